"""Tutor and QABot outcomes (services.outcome) on demo brains: grades by stance, the
lesson a failure writes, exact undo, idempotency, reflections in every lifecycle state,
the trail, stats and metrics, and a second process writing the same agent brain."""

from __future__ import annotations

import json
import multiprocessing
import sqlite3
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from fsrs import Scheduler

from brainview.core import fsrs_math
from brainview.demo.generator import DEMO_NOW, DemoInfo
from brainview.errors import ConflictError, InvalidInputError, NotFoundError
from brainview.services import (
    audit,
    intake,
    lifecycle,
    metrics,
    outcome,
    readout,
    review,
)
from brainview.services.lifecycle import writing as reflection_writing
from brainview.services.metrics import stats
from brainview.services.outcome import OutcomeReport
from brainview.services.project import Project
from brainview.services.review import queue

NOW = DEMO_NOW + timedelta(minutes=10)
LATER = NOW + timedelta(minutes=5)
NOFUZZ = Scheduler(enable_fuzzing=False)
HISTORY = {"brainview_decision", "brainview_effect", "changeset", "event"}
"""Append-only history: an undo marks the decision undone and adds its inverse
changeset; every other table must read back exactly as before."""


# -- helpers ----------------------------------------------------------------------------


@pytest.fixture
def info(make_demo: Any) -> DemoInfo:
    return make_demo()[1]


def db(info: DemoInfo) -> Path:
    return info.root / ".spikuit" / "agent" / "circuit.db"


def rows(info: DemoInfo, query: str, *params: object) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(db(info))
    try:
        return conn.execute(query, params).fetchall()
    finally:
        conn.close()


def dump(info: DemoInfo, skip: frozenset[str] | set[str] = frozenset()) -> dict[str, list[Any]]:
    """Every table of the agent brain, full rows, sorted (``skip`` left out)."""
    names = [n for (n,) in rows(info, "SELECT name FROM sqlite_master WHERE type='table'")]
    return {n: sorted(rows(info, f"SELECT * FROM {n}"), key=repr) for n in names if n not in skip}


def live_reviewed(info: DemoInfo, n: int) -> list[str]:
    """Live reflections with a reviewed card (so a grade visibly moves it)."""
    found = [
        rid
        for rid, card in rows(
            info,
            "SELECT n.id, f.card_json FROM neuron n JOIN fsrs_state f ON f.neuron_id = n.id "
            "WHERE n.type = 'reflection' AND n.retired_at IS NULL ORDER BY n.id",
        )
        if json.loads(card).get("stability")
    ]
    assert len(found) >= n
    return found[:n]


def report(
    info: DemoInfo,
    consulted: list[tuple[str, str]],
    *,
    oid: str = "o-1",
    skill: str = "tutor",
    result: str = "failure",
    situation: str = "the student mixed up the chain rule again",
    lesson: str | None = None,
    now: Any = NOW,
) -> outcome.OutcomeResult:
    rep = OutcomeReport(oid, skill, result, situation, [(r, s, None) for r, s in consulted], lesson)  # type: ignore[arg-type]
    with Project.locate(info.root, write_agent=True) as p:
        return outcome.report_outcome(p, rep, decider=skill, now=now, scheduler=NOFUZZ)


def card(info: DemoInfo, rid: str) -> dict[str, Any]:
    ((raw,),) = rows(info, "SELECT card_json FROM fsrs_state WHERE neuron_id = ?", rid)
    return json.loads(raw)


# -- grading ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("result", "expected"),
    [("success", {"support": 4, "oppose": 1}), ("failure", {"support": 1, "oppose": 4})],
)
def test_grades_follow_the_table_by_stance(
    info: DemoInfo, result: str, expected: dict[str, int]
) -> None:
    a, b, c = live_reviewed(info, 3)
    before = {r: card(info, r) for r in (a, b, c)}
    res = report(info, [(a, "support"), (b, "oppose"), (c, "annotate")], result=result)
    assert res.grades == [(a, "support", expected["support"]), (b, "oppose", expected["oppose"])]
    assert res.skipped == [(c, "annotate: no event")]
    spikes = rows(
        info,
        "SELECT neuron_id, grade, fired_at, session_id, notes FROM spike WHERE session_id = ? "
        "ORDER BY id",
        res.decision_id,
    )
    now_s = fsrs_math.format_ts(NOW)
    assert spikes == [
        (a, expected["support"], now_s, res.decision_id, "brainview:o-1"),
        (b, expected["oppose"], now_s, res.decision_id, "brainview:o-1"),
    ]
    for rid in (a, b):  # the cards were reviewed at NOW
        assert card(info, rid)["last_review"].startswith(NOW.isoformat()[:19])
    assert card(info, c) == before[c]
    graded = rows(info, "SELECT reflection_id, stance, grade FROM brainview_grade ORDER BY grade")
    assert sorted(graded) == sorted(
        [(a, "support", expected["support"]), (b, "oppose", expected["oppose"])]
    )
    status = "accepted" if result == "success" else "rejected"
    assert rows(info, "SELECT skill, kind, status FROM brainview_proposal WHERE id='o-1'") == [
        ("tutor", "outcome", status)
    ]
    decision = rows(
        info, "SELECT verdict, decider, reason, apply_state FROM brainview_decision WHERE id=?",
        res.decision_id,
    )  # fmt: skip
    verdict = "accept" if result == "success" else "reject"
    assert decision == [(verdict, "tutor", "the student mixed up the chain rule again", "recorded")]


def test_success_writes_no_lesson(info: DemoInfo) -> None:
    (a,) = live_reviewed(info, 1)
    n = rows(info, "SELECT COUNT(*) FROM neuron")
    res = report(info, [(a, "support")], result="success", skill="qabot")
    assert res.lesson_id is None
    assert rows(info, "SELECT COUNT(*) FROM neuron") == n


def test_failure_writes_a_lesson_linked_to_the_live_consulted(info: DemoInfo) -> None:
    a, b, c = live_reviewed(info, 3)
    res = report(
        info, [(a, "support"), (b, "oppose"), (c, "annotate")], lesson="Draw the function first."
    )
    new = res.lesson_id
    assert new is not None
    ((content, typ, domain),) = rows(
        info, "SELECT content, type, domain FROM neuron WHERE id=?", new
    )
    assert typ == "reflection" and domain == "tutor"
    assert "the student mixed up the chain rule again" in content
    assert "Lesson: Draw the function first." in content
    links = set(
        rows(info, "SELECT pre, post, type, weight FROM synapse WHERE pre=? OR post=?", new, new)
    )
    assert links == {(x, y, "relates_to", 0.5) for r in (a, b, c) for x, y in ((new, r), (r, new))}
    assert card(info, new)["stability"] is None  # a fresh card, as Spikuit's add_neuron
    ((cs, kind, tag),) = rows(
        info, "SELECT id, actor_kind, tag FROM changeset WHERE tag = 'brainview:o-1'"
    )
    assert (kind, tag) == ("agent", "brainview:o-1")
    ops = [op for (op,) in rows(info, "SELECT op FROM event WHERE changeset_id=? ORDER BY seq", cs)]
    assert ops == ["neuron.add"] + ["synapse.add"] * 6


def test_default_lesson_comes_from_the_situation(info: DemoInfo) -> None:
    (a,) = live_reviewed(info, 1)
    res = report(info, [(a, "support")], skill="qabot", situation="wrong unit in the answer")
    ((content,),) = rows(info, "SELECT content FROM neuron WHERE id=?", res.lesson_id)
    assert content.startswith("Failed qabot answer (outcome o-1): wrong unit in the answer")
    assert "Lesson:" in content


def test_paused_reflection_writing_grades_but_writes_no_lesson(info: DemoInfo) -> None:
    (a,) = live_reviewed(info, 1)
    with Project.locate(info.root, write_agent=True) as p:
        reflection_writing.set_writing(p, enabled=False, actor="m", now=NOW, reason="audit")
    n = rows(info, "SELECT COUNT(*) FROM neuron")
    res = report(info, [(a, "support")])
    assert res.lesson_id is None and res.grades == [(a, "support", 1)]
    assert rows(info, "SELECT COUNT(*) FROM neuron") == n


# -- undo -------------------------------------------------------------------------------


@pytest.mark.parametrize("result", ["success", "failure"])
@pytest.mark.parametrize("path", ["outcome", "proposals"])
def test_undo_puts_every_row_back(info: DemoInfo, result: str, path: str) -> None:
    a, b, c = live_reviewed(info, 3)
    before = dump(info, HISTORY)
    res = report(info, [(a, "support"), (b, "oppose"), (c, "annotate")], result=result)
    assert dump(info, HISTORY) != before
    with Project.locate(info.root, write_agent=True) as p:
        if path == "outcome":
            undone = outcome.undo_outcome(p, "o-1", now=LATER, actor="ann")
        else:  # the existing undo path, by decision id
            undone = review.undo(p, res.decision_id, now=LATER, actor="ann")
    assert undone.decision_id == res.decision_id
    assert dump(info, HISTORY) == before  # proposal, consult, grade, spike, cards, STDP, lesson
    assert rows(info, "SELECT undone_by FROM brainview_decision WHERE id=?", res.decision_id) == [
        ("ann",)
    ]
    if result == "failure":  # the change log only grows: the lesson's removal is logged
        assert rows(info, "SELECT actor_id FROM changeset WHERE tag = 'brainview:undo:o-1'") == [
            ("ann",)
        ]
    with Project.locate(info.root, write_agent=True) as p, pytest.raises(NotFoundError):
        outcome.show_outcome(p, "o-1")
    again = report(info, [(a, "support")], result=result, now=LATER)  # the id is free again
    assert again.decision_id != res.decision_id and not again.already_recorded


def test_undo_of_an_unknown_outcome_or_a_proposal_is_not_found(info: DemoInfo) -> None:
    with Project.locate(info.root, write_agent=True) as p:
        with pytest.raises(NotFoundError, match="no outcome 'nope'"):
            outcome.undo_outcome(p, "nope", now=LATER, actor="ann")
        with pytest.raises(NotFoundError):
            outcome.undo_outcome(p, info.proposal_ids[0], now=LATER, actor="ann")


# -- idempotency ------------------------------------------------------------------------


def test_same_id_and_content_records_once(info: DemoInfo) -> None:
    a, b = live_reviewed(info, 2)
    first = report(info, [(a, "support"), (b, "oppose")])
    middle = dump(info)
    again = report(info, [(a, "support"), (b, "oppose")], now=LATER)
    assert again.already_recorded and not first.already_recorded
    assert (again.decision_id, again.grades, again.lesson_id) == (
        first.decision_id, first.grades, first.lesson_id,
    )  # fmt: skip
    assert again.decided_at == first.decided_at
    assert dump(info) == middle  # not one row written


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"result": "success"}, "result"),
        ({"situation": "something else"}, "situation"),
        ({"skill": "qabot"}, "skill"),
        ({"lesson": "another lesson"}, "lesson"),
        ({"consulted": "other"}, "consulted"),
    ],
)
def test_same_id_with_other_content_is_a_conflict(
    info: DemoInfo, change: dict[str, str], field: str
) -> None:
    a, b = live_reviewed(info, 2)
    report(info, [(a, "support")])
    middle = dump(info)
    kw: dict[str, Any] = {k: v for k, v in change.items() if k != "consulted"}
    consulted = [(a, "oppose")] if "consulted" in change else [(a, "support")]
    with pytest.raises(ConflictError, match=f"already recorded with a different {field}"):
        report(info, consulted, now=LATER, **kw)
    assert dump(info) == middle


def test_an_id_taken_by_a_proposal_is_a_conflict(info: DemoInfo) -> None:
    (a,) = live_reviewed(info, 1)
    before = dump(info)
    with pytest.raises(ConflictError, match="taken by a proposal"):
        report(info, [(a, "support")], oid=info.proposal_ids[0])
    assert dump(info) == before


# -- reflections in every state, bad input -----------------------------------------------


def test_unknown_reflection_is_refused_and_nothing_written(info: DemoInfo) -> None:
    (a,) = live_reviewed(info, 1)
    before = dump(info)
    with pytest.raises(InvalidInputError, match=r"consulted\[1\]\.reflection: reflection r-nope"):
        report(info, [(a, "support"), ("r-nope", "support")])
    assert dump(info) == before


def test_invalidated_and_retired_are_taken_but_not_graded_challenged_is(info: DemoInfo) -> None:
    a, b, c, d = live_reviewed(info, 4)
    with Project.locate(info.root, write_agent=True) as p:
        lifecycle.invalidate(p, [b], reason="planted", actor="m", now=DEMO_NOW)
        lifecycle.challenge(p, [c], reason="odd", actor="m", now=DEMO_NOW)
    conn = sqlite3.connect(db(info))
    conn.execute("UPDATE neuron SET retired_at = ? WHERE id = ?", (DEMO_NOW.isoformat(), d))
    conn.commit()
    conn.close()
    res = report(info, [(a, "support"), (b, "support"), (c, "support"), (d, "support")])
    assert res.grades == [(a, "support", 1), (c, "support", 1)]
    assert res.skipped == [(b, "invalidated"), (d, "retired")]
    linked = {post for (post,) in rows(info, "SELECT post FROM synapse WHERE pre=?", res.lesson_id)}
    assert linked == {a, c}


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ([], "outcome: must be a JSON object"),
        ({"skill": "curator", "result": "success", "situation": "x"}, "outcome.skill"),
        ({"skill": "tutor", "result": "maybe", "situation": "x"}, "outcome.result"),
        ({"skill": "tutor", "result": "success"}, "outcome.situation"),
        ({"skill": "tutor", "result": "success", "situation": "a\nb"}, "one line"),
        ({"skill": "tutor", "result": "success", "situation": "x" * 2001}, "outcome.situation"),
        ({"skill": "tutor", "result": "success", "situation": "x", "lesson": ""}, "outcome.lesson"),
        ({"skill": "tutor", "result": "success", "situation": "x", "id": "a\x1b[2J"}, "outcome.id"),
        ({"skill": "tutor", "result": "success", "situation": "x", "extra": 1}, "outcome.extra"),
        (
            {"skill": "tutor", "result": "success", "situation": "x", "consulted": ["r", "r"]},
            r"outcome.consulted\[1\].reflection: r consulted twice",
        ),
        (
            {
                "skill": "tutor",
                "result": "success",
                "situation": "x",
                "consulted": [{"reflection": "r", "stance": "maybe"}],
            },
            r"outcome.consulted\[0\].stance",
        ),  # fmt: skip
        (
            {"skill": "tutor", "result": "success", "situation": "x", "consulted": {"r": 1}},
            "outcome.consulted: must be a list",
        ),
    ],
)
def test_bad_reports_name_the_field(raw: object, message: str) -> None:
    with pytest.raises(InvalidInputError, match=message):
        outcome.parse_report(raw)


def test_bad_decider_and_no_agent_brain(info: DemoInfo, make_demo: Any) -> None:
    (a,) = live_reviewed(info, 1)
    rep = OutcomeReport("o-1", "tutor", "success", "x", [(a, "support", None)])
    before = dump(info)
    with Project.locate(info.root, write_agent=True) as p:
        with pytest.raises(InvalidInputError, match="decider"):
            outcome.report_outcome(p, rep, decider=" ", now=NOW)
        with pytest.raises(InvalidInputError, match="decider"):
            outcome.report_outcome(p, rep, decider="a\u202eb", now=NOW)
    assert dump(info) == before
    root, _ = make_demo(name="bare")
    (root / ".spikuit" / "agent" / "circuit.db").unlink()
    with Project.locate(root) as p, pytest.raises(NotFoundError, match="no agent brain"):
        outcome.report_outcome(p, rep, decider="tutor", now=NOW)


def test_outcome_is_not_a_proposable_kind(info: DemoInfo) -> None:
    raw = {"id": "p-x", "kind": "outcome", "params": {"result": "success", "situation": "x"}}
    with (
        Project.locate(info.root, write_agent=True) as p,
        pytest.raises(InvalidInputError, match="'outcome' is not proposed"),
    ):
        intake.submit(p, [raw], now=NOW)


# -- where outcomes show (and where they do not) -------------------------------------------


def test_never_in_the_queue_nor_in_proposal_lists_or_counts(info: DemoInfo) -> None:
    (a,) = live_reviewed(info, 1)
    with Project.locate(info.root) as p:
        page_before = queue.page(p)
        counts_before = stats.project_stats(p)["proposals"]
    report(info, [(a, "support")], oid="o-1", result="success")
    report(info, [(a, "support")], oid="o-2", result="failure", now=LATER)
    with Project.locate(info.root) as p:
        assert queue.page(p) == page_before
        for status in ("accepted", "rejected", "all"):
            if status != "all":  # the console's queue pages by one status
                assert queue.page(p, status=status)[1] == 0
            listed, _total, _cur = readout.list_proposals(p, readout.ProposalQuery(status=status))
            assert not {r["id"] for r in listed} & {"o-1", "o-2"}
        data = stats.project_stats(p)
        with p.require_agent().read() as conn:
            assert review.pending_count(conn) == len(info.proposal_ids)
    assert data["proposals"] == counts_before
    assert data["outcomes"] == {
        "tutor": {"success": 1, "failure": 1, "rate": 0.5},
        "qabot": {"success": 0, "failure": 0, "rate": None},
    }


def test_metrics_count_outcomes_per_skill_and_leave_curator_metrics_alone(
    info: DemoInfo,
) -> None:
    a, b = live_reviewed(info, 2)
    pid = info.proposal_ids[0]
    with Project.locate(info.root, write_agent=True) as p:
        review.decide(p, pid, "reject", decider="m", now=NOW, seconds_on_screen=12.0,
                      scheduler=NOFUZZ)  # fmt: skip
        before = metrics.agent_metrics(p, LATER, threshold=0.5, days=7).to_json()
    report(info, [(a, "support")], oid="o-1", result="success", now=LATER)
    report(info, [(b, "support")], oid="o-2", result="failure", now=LATER)
    report(info, [(b, "oppose")], oid="o-3", result="success", skill="qabot", now=LATER)
    with Project.locate(info.root) as p:
        after = metrics.agent_metrics(p, LATER, threshold=0.5, days=7).to_json()
    week = metrics.week_of(LATER)
    assert after["outcomes"] == [
        {"week": week, "skill": "qabot", "success": 1, "failure": 0, "rate": 1.0},
        {"week": week, "skill": "tutor", "success": 1, "failure": 1, "rate": 0.5},
    ]
    for key in ("acceptance", "decision_time", "decision_time_by_age", "by_runtime",
                "by_runtime_week", "policies_accepted_per_week"):  # fmt: skip
        assert after[key] == before[key], key
    assert before["outcomes"] == []


def test_trail_shows_outcome_grades_the_lesson_origin_and_undone_grades(info: DemoInfo) -> None:
    a, b = live_reviewed(info, 2)
    res = report(info, [(a, "support"), (b, "oppose")])
    with Project.locate(info.root, write_agent=True) as p:
        mine = [g for g in audit.trail(p, a).grades if g.decision_id == res.decision_id]
        assert [
            (g.proposal_id, g.proposal_kind, g.verdict, g.stance, g.grade_name) for g in mine
        ] == [("o-1", "outcome", "reject", "support", "miss")]
        origin = audit.trail(p, str(res.lesson_id)).origin
        assert (origin.kind, origin.proposal_id, origin.actor) == ("outcome", "o-1", "tutor")
        influenced = [h for h in audit.trail(p, b).influenced if h.proposal_id == "o-1"]
        assert [(h.kind, h.status, h.verdict) for h in influenced] == [
            ("outcome", "rejected", "reject")
        ]
        outcome.undo_outcome(p, "o-1", now=LATER, actor="ann")
        t = audit.trail(p, a)
    undone = [g for g in t.undone_grades if g.decision_id == res.decision_id]
    assert [(g.proposal_kind, g.grade_name, g.undone_by, g.fate) for g in undone] == [
        ("outcome", "miss", "ann", "undone")
    ]
    assert t.undone_grades_total >= 1


def test_show_outcome_answers_as_report_did(info: DemoInfo) -> None:
    a, b = live_reviewed(info, 2)
    res = report(info, [(a, "support"), (b, "annotate")], skill="qabot")
    with Project.locate(info.root) as p:
        shown = outcome.show_outcome(p, "o-1")
        with pytest.raises(NotFoundError):
            outcome.show_outcome(p, info.proposal_ids[0])
    assert shown.to_json() | {"already_recorded": False, "skipped": []} == res.to_json() | {
        "skipped": []
    }
    assert shown.skipped == [(b, "annotate: no event")]


# -- another process writes the same agent brain --------------------------------------------


def _reporter(root: str, consulted: list[str], ids: list[str], barrier: Any, out: Any) -> None:
    """Report ``ids`` (the same content in every process that reports them)."""
    try:
        barrier.wait(timeout=60)
        got = []
        with Project.locate(root, write_agent=True) as p:
            for oid in ids:
                rep = OutcomeReport(oid, "qabot", "failure", f"situation {oid}",
                                    [(r, "support", None) for r in consulted])  # fmt: skip
                res = outcome.report_outcome(p, rep, decider="qabot", now=NOW)
                got.append((oid, res.decision_id, res.already_recorded))
        out.put(("ok", got))
    except Exception as err:  # noqa: BLE001 - reported to the parent
        out.put(("error", f"{type(err).__name__}: {err}"))


def _decider(root: str, pids: list[str], barrier: Any, out: Any) -> None:
    try:
        barrier.wait(timeout=60)
        with Project.locate(root, write_agent=True) as p:
            for pid in pids:
                review.decide(p, pid, "reject", reason="no", decider="m", now=NOW)
        out.put(("ok", pids))
    except Exception as err:  # noqa: BLE001
        out.put(("error", f"{type(err).__name__}: {err}"))


def test_two_processes_report_the_same_outcomes_while_a_third_decides(info: DemoInfo) -> None:
    consulted = live_reviewed(info, 2)
    ids = [f"o-{i}" for i in range(4)]
    pids = list(info.proposal_ids[:3])
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(3)
    out = ctx.Queue()
    procs = [
        ctx.Process(target=_reporter, args=(str(info.root), consulted, ids, barrier, out)),
        ctx.Process(target=_reporter, args=(str(info.root), consulted, ids[::-1], barrier, out)),
        ctx.Process(target=_decider, args=(str(info.root), pids, barrier, out)),
    ]
    for proc in procs:
        proc.start()
    results = [out.get(timeout=120) for _ in procs]
    for proc in procs:
        proc.join(timeout=60)
    assert all(kind == "ok" for kind, _ in results), results
    reports = [got for _kind, got in results if got != pids]
    assert len(reports) == 2
    by_id: dict[str, set[str]] = {}
    fresh: dict[str, int] = {}
    for got in reports:
        for oid, did, already in got:
            by_id.setdefault(oid, set()).add(did)
            fresh[oid] = fresh.get(oid, 0) + (not already)
    assert all(len(dids) == 1 for dids in by_id.values())  # both saw the same decision
    assert fresh == dict.fromkeys(ids, 1)  # recorded once, "already recorded" once
    decisions = rows(
        info, "SELECT p.kind, COUNT(*) FROM brainview_decision d JOIN brainview_proposal p "
        "ON p.id = d.proposal_id GROUP BY p.kind ORDER BY p.kind",
    )  # fmt: skip
    kinds = dict(decisions)
    assert kinds["outcome"] == 4 and sum(kinds.values()) == 4 + len(pids)
    assert rows(info, "SELECT COUNT(*) FROM brainview_grade g JOIN brainview_decision d ON "
                "d.id = g.decision_id JOIN brainview_proposal p ON p.id = d.proposal_id "
                "WHERE p.kind = 'outcome'") == [(4 * 2,)]  # fmt: skip
    lessons = rows(info, "SELECT COUNT(*) FROM neuron WHERE domain = 'qabot' AND content LIKE "
                   "'Failed qabot answer%'")  # fmt: skip
    assert lessons == [(4,)]
    assert rows(info, "PRAGMA integrity_check") == [("ok",)]


def test_console_trail_names_the_outcome(info: DemoInfo) -> None:
    from brainview.tui.widgets import audit_view

    (a,) = live_reviewed(info, 1)
    res = report(info, [(a, "support")])
    with Project.locate(info.root) as p:
        graded = audit_view.render_trail(audit.trail(p, a))
        lesson = audit_view.render_trail(audit.trail(p, str(res.lesson_id)))
    lines = [r.plain for r in graded.renderables if hasattr(r, "plain")]
    assert any("o-1 (outcome) failure by tutor · support" in line for line in lines)
    origin = [r.plain for r in lesson.renderables if hasattr(r, "plain")]
    assert any(line.startswith("▁ written by a failed outcome o-1") for line in origin)  # miss


@pytest.mark.parametrize("era", ["0.9-overlay", "0.9-replay", "pre-0.7"])
def test_other_eras_grade_write_the_lesson_and_undo_exactly(info: DemoInfo, era: str) -> None:
    from tests.eras import to_09, to_pre07

    a, b = live_reviewed(info, 2)
    if era == "pre-0.7":
        to_pre07(db(info))
    else:
        to_09(db(info), overlay=era == "0.9-overlay")
    before = dump(info, HISTORY)
    res = report(info, [(a, "support"), (b, "oppose")])
    assert res.grades == [(a, "support", 1), (b, "oppose", 4)] and res.lesson_id
    assert rows(info, "SELECT type FROM neuron WHERE id=?", res.lesson_id) == [("reflection",)]
    with Project.locate(info.root, write_agent=True) as p:
        outcome.undo_outcome(p, "o-1", now=LATER, actor="ann")
    assert dump(info, HISTORY) == before
