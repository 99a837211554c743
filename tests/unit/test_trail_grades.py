"""Provenance is append-only for grades too: a grade an undo took back stays in the
reflection's trail, marked undone (when, by whom), read from the undone decision's
effect log — while the undo itself stays exact in both brains."""

from __future__ import annotations

import io
import json
import sqlite3
from datetime import timedelta
from typing import Any

import pytest
from fsrs import Scheduler
from rich.console import Console, Group
from rich.text import Text
from test_cli import cli

from brainview.core import fsrs_math
from brainview.demo.generator import DEMO_NOW, DemoInfo
from brainview.services import apply, audit, intake, review
from brainview.services.project import Project
from brainview.tui.widgets import audit_view

NOFUZZ = Scheduler(enable_fuzzing=False)
T = [DEMO_NOW + timedelta(minutes=m) for m in range(0, 200, 10)]
AUDIT = {"brainview_decision", "brainview_effect", "brainview_apply_intent", "brainview_meta"}
"""brainview's own audit tables (undo grows them); ``brainview_grade`` *is* compared."""
HOSTILE = "[@click=app.quit]x[/] \x1b]52;c;cm0=\x07 \x9b31m \u202eevil\u202c \x00"


@pytest.fixture
def demo(make_demo: Any) -> DemoInfo:
    """A fresh copy of the standard demo project."""
    return make_demo()[1]


def project(info: DemoInfo) -> Project:
    return Project.locate(info.root, write_agent=True, write_user=True)


def dump(info: DemoInfo, *, agent: bool, skip: set[str]) -> dict[str, list[Any]]:
    sub = ("agent",) if agent else ()
    conn = sqlite3.connect(info.root.joinpath(".spikuit", *sub, "circuit.db"))
    names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
    out = {
        n: sorted(conn.execute(f"SELECT * FROM {n}").fetchall(), key=repr)
        for n in sorted(names)
        if n not in skip
    }
    conn.close()
    return out


def brains(info: DemoInfo) -> tuple[dict[str, Any], dict[str, Any]]:
    """User brain minus the change log (undo adds to it); agent brain minus brainview's
    audit tables and the proposal's version (undo moves it forward on purpose)."""
    user = dump(info, agent=False, skip={"changeset", "event"})
    agent = dump(info, agent=True, skip=AUDIT)
    agent["brainview_proposal"] = [r[:-1] for r in agent["brainview_proposal"]]
    return user, agent


def note(pid: str, rid: str) -> dict[str, Any]:
    return {"id": pid, "skill": "curator", "kind": "note", "params": {},
            "consulted": [{"reflection": rid, "stance": "support"}],
            "created_at": fsrs_math.format_ts(T[0])}  # fmt: skip


def decide(p: Project, pid: str, verdict: str, decider: str, at: int) -> review.DecisionResult:
    return review.decide(
        p, pid, verdict, reason="r" if verdict == "reject" else None, decider=decider,
        now=T[at], scheduler=NOFUZZ, applier=apply.applier_for(p.paths),
    )  # fmt: skip


def fresh_lesson(info: DemoInfo) -> str:
    """A reflection written by a rejection: never graded, so every grade is ours."""
    raw = {**note("p-lesson", info.reflection_ids[0]), "rationale": "x"}
    with project(info) as p:
        intake.submit(p, [raw], now=T[0])
        rid = decide(p, "p-lesson", "reject", "alice", 1).new_reflection_id
    assert rid is not None
    return rid


def test_undone_grade_stays_in_the_trail_and_undo_stays_exact(demo: DemoInfo) -> None:
    rid = fresh_lesson(demo)
    with project(demo) as p:
        intake.submit(p, [note("p-r", rid), note("p-q", rid)], now=T[1])
    before = brains(demo)
    with project(demo) as p:
        first = decide(p, "p-r", "accept", "alice", 2)
        review.undo(p, first.decision_id, now=T[3], actor="bob")
    assert brains(demo) == before  # exact: grade, spike, card and STDP rows gone again
    with project(demo) as p:
        second = decide(p, "p-r", "reject", "carol", 4)
        third = decide(p, "p-q", "accept", "dave", 5)
        t = audit.trail(p, rid)
        capped = audit.trail(p, rid, undone_limit=0)
    history = t.grade_history()
    assert [(g.decision_id, g.grade_name, g.verdict, g.decider, g.fate) for g in history] == [
        (first.decision_id, "strong", "accept", "alice", "undone"),
        (second.decision_id, "miss", "reject", "carol", "live"),
        (third.decision_id, "strong", "accept", "dave", "live"),
    ]
    assert [(g.undone_by, g.undone_at) for g in history] == [
        ("bob", fsrs_math.format_ts(T[3])), (None, None), (None, None)
    ]  # fmt: skip
    assert [g.fired_at for g in history] == [fsrs_math.format_ts(T[n]) for n in (2, 4, 5)]
    assert [g.decision_id for g in t.grades] == [second.decision_id, third.decision_id]
    assert t.undone_grades_total == 1 and t.grade_history_total == 3
    assert capped.undone_grades == [] and capped.grade_history_total == 3
    data = json.loads(t.to_json())
    assert [g["fate"] for g in data["undone_grades"]] == ["undone"]

    out = cli("reflect", "inspect", rid, "-C", str(demo.root), "--json")
    assert out.returncode == 0, out.stderr
    shown = json.loads(out.stdout)
    assert [(g["decision_id"], g["fate"], g["undone_by"]) for g in shown["grade_history"]] == [
        (first.decision_id, "undone", "bob"),
        (second.decision_id, "live", None),
        (third.decision_id, "live", None),
    ]
    assert shown["grade_history_total"] == 3 and len(shown["grades"]) == 2
    assert {g["fate"] for g in shown["grades"] + shown["recent_spikes"]} == {"live"}
    human = cli("reflect", "inspect", rid, "-C", str(demo.root)).stdout
    assert "grades from decisions: 2 live · 1 undone" in human and "undone by bob" in human

    rows = [r for r in render_rows(t) if "p-r (note)" in r.plain]
    assert len(rows) == 2 and "undone by bob" in rows[0].plain
    assert "strike" in str(rows[0].spans) and "undone" not in rows[1].plain
    assert "strike" not in str(rows[1].spans)


def plant_hostile_names(info: DemoInfo) -> None:
    """Decider and undoer names with control and bidi characters, as a brain written by
    an older version (or by hand) may hold them: the services refuse them now."""
    conn = sqlite3.connect(info.root / ".spikuit" / "agent" / "circuit.db")
    conn.execute(
        "UPDATE brainview_decision SET decider = ?, undone_by = ? WHERE undone_at IS NOT NULL",
        (HOSTILE, "mallory" + HOSTILE),
    )
    conn.commit()
    conn.close()


def render_rows(t: audit.AuditTrail) -> list[Text]:
    group = audit_view.render_trail(t)
    assert isinstance(group, Group)
    return [r for r in group.renderables if isinstance(r, Text)]


def test_undone_grades_are_capped_counted_and_inert(
    demo: DemoInfo, monkeypatch: pytest.MonkeyPatch
) -> None:
    rid = fresh_lesson(demo)
    with project(demo) as p:
        intake.submit(p, [note("p-r", rid)], now=T[1])
        for n in range(3):
            res = decide(p, "p-r", "accept", "dave", 2 + 2 * n)
            review.undo(p, res.decision_id, now=T[3 + 2 * n], actor="mallory")
    plant_hostile_names(demo)
    with project(demo) as p:
        t = audit.trail(p, rid, undone_limit=2)
    assert t.grades == [] and len(t.undone_grades) == 2 and t.undone_grades_total == 3
    assert [g.fired_at for g in t.undone_grades] == [fsrs_math.format_ts(T[n]) for n in (2, 4)]
    monkeypatch.setattr(audit_view, "MAX_ROWS", 1)
    console = Console(file=io.StringIO(), width=200, force_terminal=True, color_system="truecolor")
    console.print(audit_view.render_trail(t))
    out = console.file.getvalue()  # type: ignore[attr-defined]
    stripped = out.replace("\x1b[", "")
    assert "\x1b]" not in out and "\x9b" not in out and "\u202e" not in out and "\x00" not in out
    assert "grades (3)" in stripped and "… 2 more" in stripped
    assert "undone by mallory[@click=app.quit]x[/]" in stripped


def test_console_audit_view_shows_the_undone_grade_inert(demo: DemoInfo) -> None:
    from test_hostile_rendering import _AuditHost, assert_inert, run, settle

    rid = fresh_lesson(demo)
    with project(demo) as p:
        intake.submit(p, [note("p-r", rid)], now=T[1])
        res = decide(p, "p-r", "accept", "alice", 2)
        review.undo(p, res.decision_id, now=T[3], actor="mallory")
    plant_hostile_names(demo)

    async def scenario(pilot: Any, app: Any) -> None:
        app.push_screen(_AuditHost([rid]))
        await settle(pilot)
        view = app.screen.query_one(audit_view.AuditView)
        assert view.trail is not None and view.trail.undone_grades_total == 1
        assert_inert(app, "grades (1)", "↶ undone by mallory[@click=app.quit]x[/]")

    run(demo.root, scenario, start="triage")
