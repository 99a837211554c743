"""Quarantine driven by real keys at 80×24 and 120×40: ``Q`` on the reflection view opens
the lifecycle dialog on quarantine with the blast radius and what replay says the
lesson changed; confirming quarantines it (every Spikuit row kept), the recall box then
leaves it out and says so, and ``U`` undoes it exactly."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from brainview.demo.generator import DEMO_NOW
from brainview.services import lifecycle
from brainview.services.project import Project
from brainview.services.recall import recall
from brainview.services.recall.result import RecallQuery
from brainview.store.discovery import discover
from brainview.store.recall_handle import close_all
from brainview.tui.app import BrainviewApp, make_app
from brainview.tui.clock import frozen
from brainview.tui.lifecycle import InvalidateScreen
from brainview.tui.lifecycle.replay_view import ReplayLine
from brainview.tui.recall import RecallScreen
from brainview.tui.reflection import ReflectionScreen
from tests.tui_helpers import settle

KEPT = ("neuron", "synapse", "spike", "fsrs_state", "changeset", "event", "brainview_proposal")


@pytest.fixture(autouse=True)
def _fresh_handles() -> Iterator[None]:
    yield
    close_all()


def dump(root: Path) -> dict[str, list[Any]]:
    conn = sqlite3.connect(root / ".spikuit" / "agent" / "circuit.db")
    try:
        return {t: sorted(conn.execute(f"SELECT * FROM {t}").fetchall(), key=repr) for t in KEPT}
    finally:
        conn.close()


def state(root: Path, rid: str) -> str:
    with Project.locate(root) as p, p.agent.read() as conn:  # type: ignore[union-attr]
        return lifecycle.statuses(conn, p.agent.era, [rid])[rid].state  # type: ignore[union-attr]


def screen_text(app: BrainviewApp) -> str:
    update = app.screen._compositor.render_update(full=True)
    return "\n".join("".join(s.text for strip in line for s in strip) for line in update.strips)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_quarantine_from_the_reflection_view_with_replay_then_undo(
    demo: Any, size: tuple[int, int]
) -> None:
    root, info = demo
    rid = info.themes["keyword overlap"][0]
    with Project.locate(root, write_agent=True) as p:  # a logged recall it topped
        seen = recall(
            p, RecallQuery(text="keywords overlap duplicate merge", limit=10), now=DEMO_NOW
        )
    assert rid in [h.reflection for h in seen.hits]
    before = dump(root)
    app = make_app(discover(root), clock=frozen(DEMO_NOW), start="overview", decider="tester")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        app.push_screen(ReflectionScreen(rid))
        await settle(pilot)
        await pilot.press("Q")
        await settle(pilot)
        modal = app.screen
        assert isinstance(modal, InvalidateScreen) and modal.verb == "quarantine"
        line = modal.query_one(ReplayLine)
        assert [r.reflection_id for r in line.replays] == [rid]
        assert line.replays[0].recalls_total == 1
        text = screen_text(app)
        assert "Quarantine reflection" in text and "replay" in text
        await pilot.press(*"opposes good drafts", "enter")
        await settle(pilot)
        assert modal.confirming and "Yes, quarantine 1" in str(
            modal.query_one("#invalidate-yes").label
        )
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ReflectionScreen) and state(root, rid) == "quarantined"
        assert dump(root) == before  # nothing but the lifecycle log moved
        # the console's recall box leaves it out and says so
        view = app.screen
        app.push_screen(RecallScreen())
        await settle(pilot)
        box = app.screen.box  # type: ignore[attr-defined]
        await pilot.press(*"keywords overlap duplicate merge", "enter")
        await settle(pilot)
        assert box.browsed is not None and rid not in box.hit_ids
        assert box.browsed.result.excluded == {"quarantined": 1}
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is view
        await pilot.press("U")  # this session's last lifecycle batch
        await settle(pilot)
        assert state(root, rid) == "live" and dump(root) == before
