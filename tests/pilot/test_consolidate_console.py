"""Consolidation in the console: plan → queue → triage a policy with an edited text;
pausing reflection writing from the palette."""

from __future__ import annotations

import sqlite3

from textual.widgets import Input, TextArea

from brainview.demo.generator import DEMO_NOW
from brainview.store.discovery import discover
from brainview.tui.app import make_app
from brainview.tui.clock import frozen
from brainview.tui.consolidate import ConsolidateScreen
from brainview.tui.triage import TriageScreen
from brainview.tui.widgets.policy_editor import PolicyEditor
from tests.tui_helpers import settle


def _agent(root):  # type: ignore[no-untyped-def]
    return sqlite3.connect(root / ".spikuit" / "agent" / "circuit.db")


async def test_plan_queue_and_accept_an_edited_policy(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    app = make_app(discover(root), clock=frozen(DEMO_NOW), start="communities", decider="ann")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("z")
        await settle(pilot, rounds=8)
        modal = app.screen
        assert isinstance(modal, ConsolidateScreen)
        plan = modal.plan
        assert plan is not None and plan.items
        await pilot.press("enter")
        await settle(pilot, rounds=8)
        screen = app.screen
        assert isinstance(screen, TriageScreen)
        assert screen.query_one("#filter", Input).value == plan.id
        assert screen.total == len(plan.items)
        assert all(r.id.startswith(plan.id) for r in screen.rows)
        # Walk to the first policy and edit it before accepting.
        target = next(r.id for r in screen.rows if r.kind == "summarize_community")
        while screen.current_id != target:
            await pilot.press("j")
        await settle(pilot)
        assert screen.check_action("edit_policy", ()) is True
        await pilot.press("E")
        await settle(pilot)
        editor = app.screen
        assert isinstance(editor, PolicyEditor)
        editor.query_one("#policy-text", TextArea).text = "Keep homonyms apart [b]bold?[/b]"
        await pilot.press("ctrl+s")
        await settle(pilot, rounds=6)
        assert isinstance(app.screen, TriageScreen)
        conn = _agent(root)
        status, params = conn.execute(
            "SELECT status, params_json FROM brainview_proposal WHERE id = ?", (target,)
        ).fetchone()
        item = next(
            i for i, pid in zip(plan.items, plan.proposal_ids(), strict=True) if pid == target
        )
        content = conn.execute(
            "SELECT content FROM neuron WHERE id = ?", (item.params["policy"],)
        ).fetchone()
        state = conn.execute(
            "SELECT apply_state, decider FROM brainview_decision WHERE proposal_id = ?", (target,)
        ).fetchone()
        conn.close()
        assert status == "accepted" and '"draft"' in params
        assert content == ("Keep homonyms apart [b]bold?[/b]",)
        assert state == ("agent", "ann")
        assert target not in {r.id for r in screen.rows}


async def test_stale_policy_cannot_be_edited_or_accepted(demo) -> None:  # type: ignore[no-untyped-def]
    from brainview.services import consolidate
    from brainview.services.project import Project

    root, _ = demo
    with Project.open(discover(root), write_agent=True) as p:
        plan = consolidate.plan(p, now=DEMO_NOW, in_process=True)
        consolidate.queue(p, plan, now=DEMO_NOW)
    k = next(k for k, i in enumerate(plan.items) if i.kind == "summarize_community")
    pid, member = plan.proposal_ids()[k], plan.items[k].params["members"][0]
    conn = _agent(root)
    conn.execute(
        "UPDATE neuron SET retired_at = '2026-11-30T08:00:00+00:00' WHERE id = ?", (member,)
    )
    conn.commit()
    conn.close()
    app = make_app(discover(root), clock=frozen(DEMO_NOW), start="triage", decider="ann")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        screen.show_only(pid)
        await settle(pilot)
        assert screen.current_id == pid
        assert screen.detail is not None and "retired" in (screen.detail.stale or "")
        assert not screen.check_action("edit_policy", ())
        assert not screen.check_action("accept", ())


async def test_pause_writing_from_the_palette_stops_rejection_reflections(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    app = make_app(discover(root), clock=frozen(DEMO_NOW), start="triage", decider="ann")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.action_toggle_writing()
        await settle(pilot)
        screen = app.screen
        assert app.writing_paused is True
        title = str(screen.query_one("#queue-title").render())
        assert "reflections paused" in title
        first = screen.current_id
        await pilot.press("r")
        await settle(pilot)
        await pilot.press(*"wrong", "enter")
        await settle(pilot, rounds=6)
        conn = _agent(root)
        (new,) = conn.execute(
            "SELECT new_reflection_id FROM brainview_decision WHERE proposal_id = ?", (first,)
        ).fetchone()
        grades = conn.execute(
            "SELECT COUNT(*) FROM brainview_grade g JOIN brainview_decision d "
            "ON d.id = g.decision_id WHERE d.proposal_id = ?",
            (first,),
        ).fetchone()[0]
        conn.close()
        assert new is None
        assert grades > 0


async def test_a_pause_from_another_process_shows_in_the_title(demo) -> None:  # type: ignore[no-untyped-def]
    from brainview.services.lifecycle import writing as reflection_writing
    from brainview.services.project import Project

    root, _ = demo
    app = make_app(discover(root), clock=frozen(DEMO_NOW), start="triage", decider="ann")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert "paused" not in str(app.screen.query_one("#queue-title").render())
        with Project.open(discover(root), write_agent=True) as p:  # e.g. `reflect disable`
            reflection_writing.set_writing(p, enabled=False, actor="bob", now=DEMO_NOW)
        title = ""
        for _ in range(20):  # the queue poll runs every second: wait for a tick or two
            await pilot.pause(0.25)
            title = str(app.screen.query_one("#queue-title").render())
            if "paused" in title:
                break
        assert "reflections paused" in title
