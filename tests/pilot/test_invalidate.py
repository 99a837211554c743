"""Invalidation driven by real keys: from the reflection view and from a community, the
blast-radius bulk action, reinstate, undo of a bulk action, and that an invalidated
reflection is no longer graded when a proposal that consulted it is decided."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from brainview.demo.generator import DEMO_NOW, DemoInfo
from brainview.services import lifecycle
from brainview.services.project import Project
from brainview.store.discovery import discover
from brainview.tui.app import BrainviewApp, make_app
from brainview.tui.clock import frozen
from brainview.tui.lifecycle import LIFECYCLE_BINDINGS, InvalidateScreen, LifecycleActions
from brainview.tui.reflection import ReflectionScreen
from brainview.tui.widgets.audit_view import AuditView
from tests.tui_helpers import settle

COMPARED = ("neuron", "synapse", "changeset", "event", "brainview_proposal", "brainview_tombstone")


# The reflection view itself carries the audit trail and the lifecycle keys.
ReflectionHost = ReflectionScreen


class CommunityHost(Screen[None]):
    """What the communities screen does: the lifecycle acts on all members at once."""

    BINDINGS: ClassVar = LIFECYCLE_BINDINGS

    def __init__(self, members: list[str]) -> None:
        super().__init__()
        self.members = members
        self.results: list[Any] = []

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static("\n".join(self.members))
        yield LifecycleActions()
        yield Footer()

    def action_lifecycle(self, verb: str) -> None:
        self.query_one(LifecycleActions).open(verb, self.members)

    def action_lifecycle_reinstate(self) -> None:
        self.query_one(LifecycleActions).reinstate(self.members)

    def action_lifecycle_undo(self) -> None:
        self.query_one(LifecycleActions).undo()

    def on_lifecycle_actions_applied(self, message: LifecycleActions.Applied) -> None:
        self.results.append(message.result)


def agent(root: Path) -> sqlite3.Connection:
    return sqlite3.connect(root / ".spikuit" / "agent" / "circuit.db")


def dump(root: Path) -> dict[str, list[Any]]:
    """The compared tables (a table not created yet reads as empty)."""
    conn = agent(root)
    names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    out = {
        t: sorted(conn.execute(f"SELECT * FROM {t}").fetchall(), key=repr) if t in names else []
        for t in COMPARED
    }
    conn.close()
    return out


def state(root: Path, rid: str) -> str:
    with Project.locate(root) as p, p.agent.read() as conn:  # type: ignore[union-attr]
        return lifecycle.statuses(conn, p.agent.era, [rid])[rid].state  # type: ignore[union-attr]


def screen_text(app: BrainviewApp) -> str:
    """The characters on screen now."""
    update = app.screen._compositor.render_update(full=True)
    return "\n".join("".join(s.text for strip in line for s in strip) for line in update.strips)


def app_for(root: Path) -> BrainviewApp:
    return make_app(discover(root), clock=frozen(DEMO_NOW), start="overview", decider="tester")


async def test_invalidate_from_the_reflection_view_then_reinstate(
    demo: tuple[Path, DemoInfo],
) -> None:
    root, info = demo
    rid = info.reflection_ids[4]
    app = app_for(root)
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        app.push_screen(ReflectionHost(rid))
        await settle(pilot)
        await pilot.press("x")
        await settle(pilot)
        modal = app.screen
        assert isinstance(modal, InvalidateScreen) and modal.targets == [rid]
        await pilot.press("ctrl+s")  # no reason yet: refused, nothing written
        await settle(pilot)
        assert app.screen is modal and not modal.confirming
        await pilot.press(*"planted by a prompt injection", "enter")
        await settle(pilot)
        assert modal.confirming and "Yes, invalidate 1" in str(
            modal.query_one("#invalidate-yes").label
        )
        await pilot.press("enter")  # the focused "Yes" button
        await settle(pilot)
        assert isinstance(app.screen, ReflectionHost) and state(root, rid) == "invalidated"
        conn = agent(root)
        assert conn.execute("SELECT retired_at FROM neuron WHERE id=?", (rid,)).fetchone()[0]
        assert conn.execute("SELECT actor, reason FROM brainview_lifecycle").fetchall() == [
            ("tester", "planted by a prompt injection")
        ]
        conn.close()
        trail = app.screen.query_one("#audit", AuditView).trail
        assert trail is not None and trail.status.state == "invalidated"
        await pilot.press("R")  # reinstate, with an optional reason
        await settle(pilot)
        await pilot.press(*"false alarm", "enter")
        await settle(pilot)
        assert state(root, rid) == "live"
        trail = app.screen.query_one("#audit", AuditView).trail
        assert trail is not None and [e.state for e in trail.lifecycle] == ["invalidated", "live"]


async def test_cancel_and_missing_reason_write_nothing(demo: tuple[Path, DemoInfo]) -> None:
    root, info = demo
    before = dump(root)
    app = app_for(root)
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        app.push_screen(CommunityHost(info.reflection_ids[:3]))
        await settle(pilot)
        await pilot.press("x")
        await settle(pilot)
        await pilot.press("enter")  # empty reason
        await settle(pilot)
        assert isinstance(app.screen, InvalidateScreen) and not app.screen.confirming
        await pilot.press(*"why", "enter")
        await settle(pilot)
        assert app.screen.confirming
        await pilot.press("escape")  # back from the confirmation
        await settle(pilot)
        assert not app.screen.confirming
        await pilot.press("escape")  # close
        await settle(pilot)
        assert isinstance(app.screen, CommunityHost) and app.screen.results == []
    assert dump(root) == before


async def test_community_bulk_with_blast_marks_then_one_undo(demo: tuple[Path, DemoInfo]) -> None:
    root, info = demo
    members = info.themes["keyword overlap"]  # summarised by the first policy
    before = dump(root)
    app = app_for(root)
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        host = CommunityHost(list(members))
        app.push_screen(host)
        await settle(pilot)
        await pilot.press("x")
        await settle(pilot)
        modal = app.screen
        assert isinstance(modal, InvalidateScreen) and modal.radius is not None
        flagged = modal.radius.default_flags()
        assert flagged and modal.chosen().flag_proposals == tuple(flagged)
        policy = info.policy_ids[0]
        assert modal.radius.neighbours[0].neuron_id == policy
        marks = modal.query_one("#invalidate-marks")
        marks.focus()
        index = next(
            i
            for i in range(marks.option_count)
            if marks.get_option_at_index(i).value == f"n:{policy}"
        )
        marks.highlighted = index
        await pilot.press("space")  # mark the policy: invalidate it too
        modal.query_one("#invalidate-reason").focus()
        await pilot.press(*"whole cluster was planted", "ctrl+s")
        await settle(pilot)
        summary = str(modal.query_one("#invalidate-summary").render())
        n = len(members) + 1
        assert (
            f"Invalidate {n} reflection(s) and flag {len(flagged)} pending proposal(s)" in summary
        )
        await pilot.press("enter")
        await settle(pilot)
        (result,) = host.results
        assert len(result.changed) == n and sorted(result.flagged) == sorted(flagged)
        conn = agent(root)
        assert conn.execute(
            "SELECT COUNT(DISTINCT batch_id) FROM brainview_lifecycle"
        ).fetchone() == (1,)
        assert conn.execute(
            "SELECT COUNT(*) FROM neuron WHERE retired_at IS NOT NULL"
        ).fetchone() == (n + len(info.superseded_ids),)
        conn.close()
        assert state(root, policy) == "invalidated"
        await pilot.press("U")  # one undo reverts the whole bulk action
        await settle(pilot)
        assert hasattr(host.results[-1], "undo_batch_id")
    after = dump(root)
    log = ("changeset", "event")  # Spikuit's change log is append-only: undo adds to it
    assert {t: v for t, v in after.items() if t not in log} == {
        t: v for t, v in before.items() if t not in log
    }
    for t in log:
        assert set(before[t]) < set(after[t]), f"{t}: undo must add its own entries"


async def test_challenge_marks_but_keeps_grading(demo: tuple[Path, DemoInfo]) -> None:
    root, info = demo
    rid = info.reflection_ids[8]
    app = app_for(root)
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        app.push_screen(CommunityHost([rid]))
        await settle(pilot)
        await pilot.press("c")
        await settle(pilot)
        assert app.screen.verb == "challenge"  # type: ignore[attr-defined]
        await pilot.press(*"doubtful", "enter")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
    assert state(root, rid) == "challenged"
    conn = agent(root)
    assert conn.execute("SELECT retired_at FROM neuron WHERE id=?", (rid,)).fetchone() == (None,)
    conn.close()


async def test_invalidated_reflection_is_shown_and_no_longer_graded(
    demo: tuple[Path, DemoInfo],
) -> None:
    root, _info = demo
    app = make_app(discover(root), clock=frozen(DEMO_NOW), start="triage", decider="tester")
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        triage = app.screen
        pid = triage.current_id
        consulted = [v.id for v in triage.detail.consulted if v.stance != "annotate"]  # type: ignore[attr-defined]
        bad = consulted[0]
        with Project.locate(root, write_agent=True) as p:
            lifecycle.invalidate(p, [bad], reason="planted", actor="alice", now=DEMO_NOW)
        await pilot.press("j", "k")  # move away and back: the detail is read again
        await settle(pilot)
        assert "⊖ invalidated" in screen_text(app)
        await pilot.press("a")  # it leans on an invalidated lesson: asked first
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
    conn = agent(root)
    (did,) = conn.execute(
        "SELECT id FROM brainview_decision WHERE proposal_id=?", (pid,)
    ).fetchone()
    graded = {
        r
        for (r,) in conn.execute(
            "SELECT reflection_id FROM brainview_grade WHERE decision_id=?", (did,)
        )
    }
    conn.close()
    assert bad not in graded and graded == set(consulted) - {bad}


async def test_reinstating_a_live_reflection_says_so_without_asking(
    demo: tuple[Path, DemoInfo],
) -> None:
    """``R`` on a live lesson: one line at once, no reason box to type the next key into."""
    from brainview.tui.widgets.reason_prompt import ReasonPrompt

    root, info = demo
    app = app_for(root)
    said: list[str] = []
    shown = app.notify
    app.notify = lambda message, *a, **k: (said.append(str(message)), shown(message, *a, **k))  # type: ignore[method-assign,assignment,func-returns-value]
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        app.push_screen(ReflectionHost(info.reflection_ids[4]))
        await settle(pilot)
        await pilot.press("R")
        await settle(pilot)
        assert not isinstance(app.screen, ReasonPrompt)
        assert any("Nothing to reinstate" in s for s in said)
