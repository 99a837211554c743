"""Lifecycle changes made by another process show wherever the reflection appears: the
reflection view (card and audit trail) and the communities screen (member rows, fading
list) follow within the poll, keeping the cursor and the scroll; and planning a
consolidation in the console writes nothing.  Real app, demo brains, time frozen; the
other process is a real child (the CLI, or a python -c calling the services API)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from textual.geometry import Region

from brainview.demo.generator import DEMO_NOW
from brainview.store.discovery import discover
from brainview.tui.app import BrainviewApp, make_app
from brainview.tui.clock import frozen
from brainview.tui.communities import CommunitiesScreen
from brainview.tui.consolidate import ConsolidateScreen
from brainview.tui.reflection import ReflectionScreen
from brainview.tui.widgets.audit_view import AuditView
from tests.read_only_helpers import snapshot
from tests.tui_helpers import settle

ENV = {"BRAINVIEW_NOW": DEMO_NOW.isoformat(), "XDG_CONFIG_HOME": "/nonexistent-bv-config"}
WITHIN = 3.0
"""Seconds a change may take to show: one poll period (1 s), a worker's read and the
render, with room for a loaded 2-core machine."""

API = """
import sys
from datetime import datetime
from brainview.services import lifecycle
from brainview.services.project import Project
verb, root, rid, now = sys.argv[1:5]
with Project.locate(root, write_agent=True) as project:
    getattr(lifecycle, verb)(project, [rid], reason="checked by hand", actor="other",
                             now=datetime.fromisoformat(now))
"""


def _app(root: Path, start: str) -> BrainviewApp:
    return make_app(discover(root), clock=frozen(DEMO_NOW), start=start, decider="tester")


async def _run(*argv: str) -> None:
    """Run a child process to completion without blocking the app's event loop."""
    done = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, *argv],
        capture_output=True,
        text=True,
        env={**os.environ, **ENV},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr


async def _cli(root: Path, verb: str, rid: str) -> None:
    await _run("-m", "brainview", "reflect", verb, rid, "--reason", "x", "-C", str(root))


async def _api(root: Path, verb: str, rid: str) -> None:
    await _run("-c", API, verb, str(root), rid, DEMO_NOW.isoformat())


async def _within(pilot, shown: Callable[[], bool]) -> float:  # type: ignore[no-untyped-def]
    """Seconds until ``shown()`` holds (fails after ``WITHIN``)."""
    start = time.monotonic()
    while not shown():
        assert time.monotonic() - start < WITHIN, "the screen did not follow the change"
        await pilot.pause(0.05)
    return time.monotonic() - start


def _screen_text(app: BrainviewApp) -> str:
    update = app.screen._compositor.render_update(full=True)
    return "\n".join("".join(s.text for strip in line for s in strip) for line in update.strips)


def _trail_text(app: BrainviewApp) -> str:
    """The audit trail as rendered (all of it, scrolled into view or not)."""
    view = app.screen.query_one("#audit", AuditView)
    width, height = view.size
    return " ".join(
        " ".join(s.text for s in view.render_lines(Region(0, 0, width, height))).split()
    )


async def test_reflection_view_follows_another_process(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    rid = info.reflection_ids[4]
    app = _app(root, "overview")
    async with app.run_test(size=(120, 24)) as pilot:
        await settle(pilot)
        app.open_reflection(rid)
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReflectionScreen)
        left = screen.query_one("#reflection-left")
        assert "● live" in _trail_text(app) and "never challenged" in _trail_text(app)
        assert "· ● live" in _screen_text(app)  # the card's status row
        assert left.max_scroll_y > 3, left.max_scroll_y
        left.scroll_to(y=3, animate=False)
        await settle(pilot)
        assert left.scroll_y == 3

        await _cli(root, "invalidate", rid)
        await _within(pilot, lambda: "⊖ invalidated" in _trail_text(app))
        # The card says what the legend says: ⊖ invalidated, never "⚠ retired".
        await _within(pilot, lambda: "· ⊖ invalidated" in _screen_text(app))
        assert "⚠ retired" not in _screen_text(app)
        trail = _trail_text(app)
        assert "invalidate by" in trail and "never challenged" not in trail
        assert left.scroll_y == 3  # re-rendered in place

        await _api(root, "reinstate", rid)
        await _within(pilot, lambda: "reinstate by other" in _trail_text(app))
        await settle(pilot)
        assert _trail_text(app).split(" origin ")[0].endswith("● live")
        assert "· ● live" in _screen_text(app) and "⚠ retired" not in _screen_text(app)
        assert app.screen is screen and left.scroll_y == 3


async def test_reflection_view_reads_nothing_while_nothing_moves(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    app = _app(root, "overview")
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        app.open_reflection(info.reflection_ids[4])
        await settle(pilot)
        shown = app.screen.query_one("#audit", AuditView).trail
        await pilot.pause(2.5)  # two polls, no lifecycle change
        await settle(pilot)
        assert app.screen.query_one("#audit", AuditView).trail is shown  # not read again


async def test_member_rows_follow_another_process(demo) -> None:  # type: ignore[no-untyped-def]
    root, _info = demo
    app = _app(root, "communities")
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, CommunitiesScreen)
        await pilot.press("enter")  # into the members table
        await pilot.press("j", "j")
        await settle(pilot)
        members = screen.member_list
        table = members.table
        assert screen.focused is table and table.cursor_row == 2
        rid = members.members[2].id

        def cell() -> str:
            return table.get_cell(rid, "title").plain

        assert members.members[2].state == "live" and not cell().startswith(("⊘", "⊖", "⚠"))

        await _cli(root, "invalidate", rid)
        await _within(pilot, lambda: "⊖ invalidated" in _screen_text(app))
        assert cell().startswith("⊖ invalidated ")
        assert members.members[2].state == "invalidated"
        assert table.cursor_row == 2 and screen.focused is table  # the cursor stays

        await _api(root, "reinstate", rid)
        await _within(pilot, lambda: not cell().startswith("⊖"))
        assert "⊖ invalidated" not in _screen_text(app) and members.members[2].state == "live"
        assert table.cursor_row == 2


async def test_fading_list_follows_another_process(demo) -> None:  # type: ignore[no-untyped-def]
    root, _info = demo
    app = _app(root, "communities")
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        await pilot.press("f")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, CommunitiesScreen)
        pane = screen.fading_pane
        assert pane.fading and pane.fading.rows
        table = pane.table
        await pilot.press("j")
        await settle(pilot)
        rid = pane.fading.rows[1].id
        await _api(root, "challenge", rid)
        await _within(pilot, lambda: "⚠ challenged" in _screen_text(app))
        assert table.get_cell(rid, "title").plain.startswith("⚠ challenged ")
        assert table.cursor_row == 1
        await _cli(root, "reinstate", rid)
        await _within(pilot, lambda: "⚠ challenged" not in _screen_text(app))
        assert pane.fading is not None and pane.fading.rows[1].state == "live"
        assert table.cursor_row == 1


async def test_planning_a_consolidation_writes_nothing(demo) -> None:  # type: ignore[no-untyped-def]
    root, _info = demo
    app = _app(root, "communities")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        before = snapshot(root)
        await pilot.press("z")
        await settle(pilot, rounds=8)
        modal = app.screen
        assert isinstance(modal, ConsolidateScreen) and modal.plan is not None
        assert modal.plan.items
        assert snapshot(root) == before
        # Nothing this session did opened the agent brain for writing.
        assert all(not write_agent for write_agent, _user in app.session.open_modes)
        await pilot.press("escape")
        await settle(pilot)
    assert snapshot(root) == before
