"""The held-back lane in triage, driven by real keys at 80×24 and 120×40: open it with
``H``, see the draft, the opposing lesson and why it is shown, say "should have been
proposed" (queued, lesson graded miss), undo it, say "rightly held back" (strong)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from brainview.config import Config
from brainview.demo.generator import DEMO_NOW
from brainview.services.session import Session
from brainview.store.discovery import discover
from brainview.tui.app import make_app
from brainview.tui.clock import frozen
from brainview.tui.triage.held_back import HeldBackScreen
from tests.tui_helpers import settle

HOSTILE = "[b]x[/b] [@click=app.quit]q"


def _agent(root: Path) -> sqlite3.Connection:
    return sqlite3.connect(root / ".spikuit" / "agent" / "circuit.db")


def _screen_text(app) -> str:  # type: ignore[no-untyped-def]
    update = app.screen._compositor.render_update(full=True)
    return "\n".join("".join(s.text for strip in line for s in strip) for line in update.strips)


def _seed(root: Path) -> str:
    """One held-back draft opposed by a never-confirmed lesson; the lesson's id."""
    users = sqlite3.connect(root / ".spikuit" / "circuit.db")
    (user,) = users.execute("SELECT id FROM neuron WHERE retired_at IS NULL LIMIT 1").fetchone()
    users.close()
    conn = _agent(root)
    (lesson,) = conn.execute(
        "SELECT id FROM neuron WHERE type = 'reflection' AND retired_at IS NULL ORDER BY id"
    ).fetchone()
    conn.close()
    draft = {"kind": "note", "params": {"neurons": [user]}, "rationale": "worth a quiz"}
    report = {"id": "hb-pilot", "action": "withdrawn", "draft": draft, "lessons": [lesson],
              "reason": HOSTILE}  # fmt: skip
    with Session(paths=discover(root), config=Config(), clock=lambda: DEMO_NOW) as s:
        s.report_held_back(report, runtime="curator-1")
    return str(lesson)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_the_lane_shows_why_and_decides_with_exact_undo(demo, size) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    lesson = _seed(root)
    app = make_app(discover(root), clock=frozen(DEMO_NOW), start="triage", decider="tester")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("H")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, HeldBackScreen)
        assert [i.id for i in screen.items or []] == ["hb-pilot"]
        shown = _screen_text(app)
        assert "why shown" in shown and "weakly" in shown and HOSTILE in shown
        assert screen.current is not None and screen.current.opposing[0].id == lesson

        await pilot.press("p")
        await settle(pilot)
        conn = _agent(root)
        (did, pid) = conn.execute(
            "SELECT decision_id, proposal_id FROM brainview_held_back_verdict"
        ).fetchone()
        grades = conn.execute("SELECT neuron_id, grade FROM spike WHERE session_id = ?", (did,))
        assert dict(grades) == {lesson: 1}
        status = conn.execute("SELECT status FROM brainview_proposal WHERE id = ?", (pid,))
        assert status.fetchone() == ("pending",)
        conn.close()
        assert screen.items == []  # decided: out of the lane

        await pilot.press("A")  # every reported draft, to undo this one
        await settle(pilot)
        assert screen.current is not None and screen.current.verdict is not None
        assert "should have been proposed" in _screen_text(app)
        await pilot.press("u")
        await settle(pilot)
        conn = _agent(root)
        gone = conn.execute("SELECT count(*) FROM brainview_proposal WHERE id = ?", (pid,))
        assert gone.fetchone() == (0,)
        spikes = conn.execute("SELECT count(*) FROM spike WHERE session_id = ?", (did,))
        assert spikes.fetchone() == (0,)
        conn.close()

        await pilot.press("r")
        await settle(pilot)
        conn = _agent(root)
        (did2,) = conn.execute(
            "SELECT decision_id FROM brainview_held_back_verdict WHERE undone_at IS NULL"
        ).fetchone()
        grades = conn.execute("SELECT neuron_id, grade FROM spike WHERE session_id = ?", (did2,))
        assert dict(grades) == {lesson: 4}
        conn.close()

        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, HeldBackScreen)
