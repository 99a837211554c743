"""review.decide / decide_many / undo on demo brains (no event loop, frozen now)."""

from __future__ import annotations

import dataclasses
import json
import math
import multiprocessing
import sqlite3
import threading
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from fsrs import Scheduler

from brainview.core import fsrs_math
from brainview.demo.generator import DEMO_NOW, DemoInfo, DemoSpec
from brainview.errors import (
    ConflictError,
    InvalidInputError,
    LockedError,
    NotFoundError,
    ReadOnlyError,
)
from brainview.services import intake, review
from brainview.services.project import Project
from brainview.store.brain import open_brain
from brainview.store.writers import fresh_card

NOW = DEMO_NOW + timedelta(minutes=10)
NOW_S = fsrs_math.format_ts(NOW)
NOFUZZ = Scheduler(enable_fuzzing=False)
A_PLUS, A_MINUS, TAU = 0.03, 0.036, 7.0
NOT_COMPARED = {"brainview_decision", "brainview_effect", "brainview_grade"}


# -- fixtures and helpers ---------------------------------------------------------------


@pytest.fixture
def demo(make_demo: Any) -> DemoInfo:
    """A fresh copy of the standard demo project (conftest's cached template)."""
    _root, info = make_demo()
    return info


def agent_db(info: DemoInfo) -> Path:
    return info.root / ".spikuit" / "agent" / "circuit.db"


def sql(info: DemoInfo) -> sqlite3.Connection:
    conn = sqlite3.connect(agent_db(info), isolation_level=None)
    conn.row_factory = sqlite3.Row
    return conn


def open_project(info: DemoInfo, *, write: bool = True) -> Project:
    return Project.locate(info.root, write_agent=write)


def propose(
    info: DemoInfo,
    consulted: list[tuple[str, str]],
    *,
    retrieved: tuple[str, ...] = (),
    kind: str = "note",
    params: dict[str, Any] | None = None,
    pid: str = "prop-test",
    rationale: str = "Curator thinks so.",
) -> str:
    raw = {
        "id": pid,
        "skill": "curator",
        "kind": kind,
        "params": params or {},
        "rationale": rationale,
        "consulted": [{"reflection": r, "stance": s} for r, s in consulted],
        "retrieved": list(retrieved),
        "created_at": fsrs_math.format_ts(DEMO_NOW),
    }
    with open_project(info) as p:
        intake.submit(p, [raw], source="test", now=DEMO_NOW)
    return pid


def decide(info: DemoInfo, pid: str, verdict: str, **kw: Any) -> review.DecisionResult:
    kw.setdefault("decider", "alice")
    kw.setdefault("now", NOW)
    kw.setdefault("scheduler", NOFUZZ)
    with open_project(info) as p:
        return review.decide(p, pid, verdict, **kw)  # type: ignore[arg-type]


def undo(info: DemoInfo, decision_id: str | None = None) -> review.UndoResult:
    with open_project(info) as p:
        return review.undo(p, decision_id, now=NOW + timedelta(minutes=1), actor="alice")


def dump(info: DemoInfo) -> dict[str, list[tuple[Any, ...]]]:
    """Every table's full contents (brainview's own audit tables aside)."""
    conn = sqlite3.connect(agent_db(info))
    names = [
        r[0]
        for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")
    ]
    out = {
        name: sorted(conn.execute(f"SELECT * FROM {name}").fetchall(), key=repr)
        for name in names
        if name not in NOT_COMPARED
    }
    conn.close()
    return out


def without_version(d: dict[str, list[tuple[Any, ...]]]) -> dict[str, list[tuple[Any, ...]]]:
    """The proposal table minus its last column (``version``), and without Spikuit's
    change log (append-only: an undo adds its inverse changeset, see test_provenance)."""
    out = {k: v for k, v in d.items() if k not in ("changeset", "event")}
    out["brainview_proposal"] = [r[:-1] for r in d["brainview_proposal"]]
    return out


def card(conn: sqlite3.Connection, rid: str) -> dict[str, Any] | None:
    row = conn.execute("SELECT card_json FROM fsrs_state WHERE neuron_id=?", (rid,)).fetchone()
    return json.loads(row[0]) if row else None


def weight(conn: sqlite3.Connection, pre: str, post: str, typ: str = "relates_to") -> sqlite3.Row:
    return conn.execute(
        "SELECT weight, co_fires, last_co_fire, updated_at FROM synapse "
        "WHERE pre=? AND post=? AND type=?",
        (pre, post, typ),
    ).fetchone()


def reviewed_reflections(info: DemoInfo, n: int) -> list[str]:
    """Demo reflections whose card was last reviewed 2+ days before NOW."""
    conn = sql(info)
    out = []
    for rid in info.reflection_ids:
        c = card(conn, rid)
        last = c and c["stability"] and c["last_review"]
        if last and fsrs_math.parse_ts(last) < NOW - timedelta(days=2):
            out.append(rid)
        if len(out) == n:
            break
    conn.close()
    assert len(out) == n
    return out


def add_reflection(conn: sqlite3.Connection, rid: str) -> None:
    conn.execute(
        "INSERT INTO neuron (id, content, type, domain, created_at, updated_at) "
        "VALUES (?, ?, 'reflection', 'curator', ?, ?)",
        (rid, f"lesson {rid}", NOW_S, NOW_S),
    )


def link(conn: sqlite3.Connection, a: str, b: str, w_ab: float = 0.5, w_ba: float = 0.5) -> None:
    for pre, post, w in ((a, b, w_ab), (b, a, w_ba)):
        conn.execute(
            "INSERT INTO synapse (pre, post, type, weight, co_fires, created_at, updated_at) "
            "VALUES (?, ?, 'relates_to', ?, 0, ?, ?)",
            (pre, post, w, "2026-01-01T00:00:00+00:00", "2026-01-01T00:00:00+00:00"),
        )


def spike(conn: sqlite3.Connection, rid: str, when: str, grade: int = 3) -> None:
    conn.execute(
        "INSERT INTO spike (neuron_id, grade, fired_at, session_id) VALUES (?, ?, ?, 'old')",
        (rid, grade, when),
    )


@pytest.fixture
def triangle(demo: DemoInfo) -> DemoInfo:
    """X ↔ Y and X ↔ Z (relates_to, 0.5 each way); Z fired exactly 3 days before NOW;
    a retired X → W link whose W fired an hour ago; none of X, Y has any spike."""
    conn = sql(demo)
    for rid in ("r-x", "r-y", "r-z", "r-w"):
        add_reflection(conn, rid)
    link(conn, "r-x", "r-y")
    link(conn, "r-x", "r-z")
    conn.execute(
        "INSERT INTO synapse (pre, post, type, weight, co_fires, created_at, updated_at, "
        "retired_at) VALUES ('r-x', 'r-w', 'extends', 0.5, 0, ?, ?, ?)",
        (NOW_S, NOW_S, NOW_S),
    )
    spike(conn, "r-z", fsrs_math.format_ts(NOW - timedelta(days=3)))
    spike(conn, "r-w", fsrs_math.format_ts(NOW - timedelta(hours=1)))
    conn.close()
    return demo


# -- grading ----------------------------------------------------------------------------


def test_accept_with_support_grades_strong_and_reviews_cards(demo: DemoInfo) -> None:
    a, b, c, d = reviewed_reflections(demo, 4)
    pid = propose(demo, [(a, "support"), (b, "support"), (c, "support")], retrieved=(d,))
    conn = sql(demo)
    before = {r: card(conn, r) for r in (a, b, c, d)}
    d_spikes = conn.execute("SELECT COUNT(*) FROM spike WHERE neuron_id=?", (d,)).fetchone()[0]

    res = decide(demo, pid, "accept", seconds_on_screen=4.5)

    assert res.grades == [(a, "support", 4), (b, "support", 4), (c, "support", 4)]
    assert res.new_reflection_id is None and res.verdict == "accept"
    rows = conn.execute(
        "SELECT neuron_id, grade, fired_at, session_id, notes FROM spike WHERE session_id=? "
        "ORDER BY id",
        (res.decision_id,),
    ).fetchall()
    assert [tuple(r) for r in rows] == [
        (r, 4, NOW_S, res.decision_id, f"brainview:{pid}") for r in (a, b, c)
    ]
    for rid in (a, b, c):
        after = card(conn, rid)
        assert after is not None and before[rid] is not None
        assert after["stability"] > before[rid]["stability"]
        assert fsrs_math.parse_ts(after["last_review"]) == NOW
        assert after["card_id"] == before[rid]["card_id"]
    # Retrieved only: untouched.
    assert card(conn, d) == before[d]
    assert conn.execute("SELECT COUNT(*) FROM spike WHERE neuron_id=?", (d,)).fetchone()[0] == (
        d_spikes
    )
    grades = conn.execute(
        "SELECT reflection_id, stance, grade, spike_id FROM brainview_grade "
        "WHERE decision_id=? ORDER BY spike_id",
        (res.decision_id,),
    ).fetchall()
    spike_ids = [
        r[0] for r in conn.execute("SELECT id FROM spike WHERE session_id=?", (res.decision_id,))
    ]
    assert [(g[0], g[1], g[2]) for g in grades] == res.grades
    assert [g[3] for g in grades] == sorted(spike_ids)
    dec = conn.execute("SELECT * FROM brainview_decision WHERE id=?", (res.decision_id,)).fetchone()
    assert (dec["verdict"], dec["decider"], dec["decided_at"], dec["apply_state"]) == (
        "accept",
        "alice",
        NOW_S,
        "recorded",
    )
    assert dec["seconds_on_screen"] == 4.5
    prop = conn.execute(
        "SELECT status, version FROM brainview_proposal WHERE id=?", (pid,)
    ).fetchone()
    assert tuple(prop) == ("accepted", 1)


def test_reject_grades_by_stance_and_annotate_gets_nothing(demo: DemoInfo) -> None:
    a, b, c = reviewed_reflections(demo, 3)
    pid = propose(demo, [(a, "support"), (b, "oppose"), (c, "annotate")])
    conn = sql(demo)
    c_card = card(conn, c)

    res = decide(demo, pid, "reject", write_reflections=False)

    assert res.grades == [(a, "support", 1), (b, "oppose", 4)]
    assert res.skipped == [(c, "annotate: no event")]
    got = dict(
        conn.execute(
            "SELECT neuron_id, grade FROM spike WHERE session_id=?", (res.decision_id,)
        ).fetchall()
    )
    assert got == {a: 1, b: 4}
    assert card(conn, c) == c_card
    assert res.new_reflection_id is None


def test_annotate_grade_can_be_configured(demo: DemoInfo) -> None:
    (a,) = reviewed_reflections(demo, 1)
    pid = propose(demo, [(a, "annotate")])
    res = decide(demo, pid, "accept", annotate_grade=3)
    assert res.grades == [(a, "annotate", 3)]


def test_reflection_without_a_card_gets_a_fresh_deterministic_one(triangle: DemoInfo) -> None:
    pid = propose(triangle, [("r-y", "support")])
    decide(triangle, pid, "accept")
    c = card(sql(triangle), "r-y")
    assert c is not None and c["stability"] is not None
    assert fsrs_math.parse_ts(c["last_review"]) == NOW
    assert c["card_id"] == fresh_card("r-y", NOW).card_id


def test_replay_era_writes_only_spikes(demo: DemoInfo) -> None:
    conn = sql(demo)
    conn.execute("DROP TABLE fsrs_state")
    a = demo.reflection_ids[0]
    pid = propose(demo, [(a, "support")])
    with open_project(demo) as p:
        assert p.require_agent().era.card_source == "replay"
        res = review.decide(p, pid, "accept", decider="bob", now=NOW, scheduler=NOFUZZ)
    assert res.grades == [(a, "support", 4)]
    assert (
        conn.execute(
            "SELECT COUNT(*) FROM spike WHERE session_id=?", (res.decision_id,)
        ).fetchone()[0]
        == 1
    )
    names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    assert "fsrs_state" not in names


# -- STDP -------------------------------------------------------------------------------


def test_stdp_numbers_follow_the_contract_in_consulted_order(triangle: DemoInfo) -> None:
    pid = propose(triangle, [("r-x", "support"), ("r-y", "support")])
    res = decide(triangle, pid, "accept")
    conn = sql(triangle)
    far = math.exp(-3 / 7)
    # X fires first: Y has not fired yet, Z fired 3 days ago.
    # Y fires second: X fired in this decision (Δt = 0).
    assert res.stdp == [
        ("r-z", "r-x", "relates_to", 0.5, pytest.approx(0.5 + A_PLUS * far, abs=1e-15)),
        ("r-x", "r-z", "relates_to", 0.5, pytest.approx(0.5 - A_MINUS * far, abs=1e-15)),
        ("r-x", "r-y", "relates_to", 0.5, pytest.approx(0.5 + A_PLUS, abs=1e-15)),
        ("r-y", "r-x", "relates_to", 0.5, pytest.approx(0.5 - A_MINUS, abs=1e-15)),
    ]
    expected = {
        ("r-z", "r-x"): 0.5 + A_PLUS * math.exp(-3 / 7),
        ("r-x", "r-z"): 0.5 - A_MINUS * math.exp(-3 / 7),
        ("r-x", "r-y"): 0.5 + A_PLUS * math.exp(0),
        ("r-y", "r-x"): 0.5 - A_MINUS * math.exp(0),
    }
    for (pre, post), w in expected.items():
        row = weight(conn, pre, post)
        assert row["weight"] == pytest.approx(w, abs=1e-15)
        assert (row["co_fires"], row["last_co_fire"], row["updated_at"]) == (1, NOW_S, NOW_S)
    retired = weight(conn, "r-x", "r-w", "extends")
    assert (retired["weight"], retired["co_fires"]) == (0.5, 0)


def test_stdp_off_grades_the_same_and_moves_no_weight(triangle: DemoInfo) -> None:
    before = {
        pair: tuple(weight(sql(triangle), *pair)) for pair in (("r-x", "r-y"), ("r-z", "r-x"))
    }
    pid = propose(triangle, [("r-x", "support"), ("r-y", "support")])
    res = decide(triangle, pid, "accept", stdp=False)
    assert res.grades == [("r-x", "support", 4), ("r-y", "support", 4)] and res.stdp == []
    conn = sql(triangle)
    assert {pair: tuple(weight(conn, *pair)) for pair in before} == before
    assert (
        conn.execute(
            "SELECT COUNT(*) FROM spike WHERE notes = ?", (f"brainview:{pid}",)
        ).fetchone()[0]
        == 2
    )


def test_a_miss_changes_no_weight_but_still_counts_as_a_fire(triangle: DemoInfo) -> None:
    conn = sql(triangle)
    pid = propose(triangle, [("r-x", "support")], pid="p-miss")
    res = decide(triangle, pid, "reject", write_reflections=False)
    assert res.grades == [("r-x", "support", 1)] and res.stdp == []
    for pre, post in (("r-x", "r-y"), ("r-y", "r-x"), ("r-x", "r-z"), ("r-z", "r-x")):
        assert tuple(weight(conn, pre, post))[:2] == (0.5, 0)
    # X misses, then Y (oppose → strong on reject) co-fires with X's miss at Δt = 0.
    pid = propose(triangle, [("r-x", "support"), ("r-y", "oppose")], pid="p-mix")
    res = decide(triangle, pid, "reject", write_reflections=False)
    assert res.stdp == [
        ("r-x", "r-y", "relates_to", 0.5, pytest.approx(0.5 + A_PLUS, abs=1e-15)),
        ("r-y", "r-x", "relates_to", 0.5, pytest.approx(0.5 - A_MINUS, abs=1e-15)),
    ]
    assert tuple(weight(conn, "r-x", "r-z"))[:2] == (0.5, 0)


def test_stdp_clamps_and_ignores_fires_older_than_tau(demo: DemoInfo) -> None:
    conn = sql(demo)
    for rid in ("r-a", "r-b", "r-old"):
        add_reflection(conn, rid)
    link(conn, "r-a", "r-b", w_ab=1.0, w_ba=0.05)
    link(conn, "r-b", "r-old")
    spike(conn, "r-old", fsrs_math.format_ts(NOW - timedelta(days=7, seconds=1)))
    pid = propose(demo, [("r-a", "support"), ("r-b", "support")])
    res = decide(demo, pid, "accept")
    assert res.stdp == [
        ("r-a", "r-b", "relates_to", 1.0, 1.0),
        ("r-b", "r-a", "relates_to", 0.05, 0.05),
    ]
    assert tuple(weight(conn, "r-a", "r-b"))[:2] == (1.0, 1)
    assert tuple(weight(conn, "r-b", "r-old"))[:2] == (0.5, 0)


def test_neighbour_timestamps_in_other_spellings_count(demo: DemoInfo) -> None:
    conn = sql(demo)
    for rid in ("r-a", "r-b"):
        add_reflection(conn, rid)
    link(conn, "r-a", "r-b")
    spike(conn, "r-b", (NOW - timedelta(days=2)).strftime("%Y-%m-%d %H:%M:%S"))  # space, naive
    pid = propose(demo, [("r-a", "support")])
    res = decide(demo, pid, "accept")
    assert res.stdp[0] == (
        "r-b",
        "r-a",
        "relates_to",
        0.5,
        pytest.approx(0.5 + A_PLUS * math.exp(-2 / 7)),
    )


# -- rejection lesson -------------------------------------------------------------------


def test_reject_writes_a_reflection_with_refs_reason_and_links(demo: DemoInfo) -> None:
    a, b, c = reviewed_reflections(demo, 3)
    retired = demo.reflection_ids[-1]
    users = [u for u in demo.user_ids if u not in demo.retired_user_ids]
    keep, merge = users[0], users[1]
    pid = propose(
        demo,
        [(a, "support"), (b, "oppose"), (c, "annotate"), (retired, "support")],
        kind="merge_neurons",
        params={"keep": keep, "merge": [merge]},
        rationale="Same idea <b>twice</b>.",
    )
    conn = sql(demo)
    conn.execute("UPDATE neuron SET retired_at=? WHERE id=?", (NOW_S, retired))

    res = decide(demo, pid, "reject", reason="They differ in role.")

    new = res.new_reflection_id
    assert new is not None and new.startswith("r-") and len(new) == 14
    assert (retired, "retired") in res.skipped
    row = conn.execute("SELECT * FROM neuron WHERE id=?", (new,)).fetchone()
    assert (row["type"], row["domain"], row["created_at"], row["updated_at"]) == (
        "reflection",
        "curator",
        NOW_S,
        NOW_S,
    )
    assert row["retired_at"] is None
    text = row["content"]
    assert f"[user:{keep}]" in text and f"[user:{merge}]" in text
    assert "Same idea <b>twice</b>." in text
    assert "Maintainer rejected: They differ in role." in text
    assert pid in text
    links = conn.execute(
        "SELECT pre, post, type, weight FROM synapse WHERE pre=? OR post=? ORDER BY pre, post",
        (new, new),
    ).fetchall()
    expected = sorted(
        [(new, r, "relates_to", 0.5) for r in (a, b, c)]
        + [(r, new, "relates_to", 0.5) for r in (a, b, c)]
    )
    assert sorted(tuple(x) for x in links) == expected
    dec = conn.execute(
        "SELECT new_reflection_id, reason FROM brainview_decision WHERE id=?", (res.decision_id,)
    ).fetchone()
    assert tuple(dec) == (new, "They differ in role.")


def test_reject_without_reason_says_so(demo: DemoInfo) -> None:
    (a,) = reviewed_reflections(demo, 1)
    pid = propose(demo, [(a, "support")])
    res = decide(demo, pid, "reject")
    text = (
        sql(demo)
        .execute("SELECT content FROM neuron WHERE id=?", (res.new_reflection_id,))
        .fetchone()[0]
    )
    assert text.endswith("Maintainer rejected: no reason given")


# -- undo -------------------------------------------------------------------------------


@pytest.mark.parametrize("verdict", ["accept", "reject"])
def test_undo_restores_every_table_exactly(triangle: DemoInfo, verdict: str) -> None:
    a, b = reviewed_reflections(triangle, 2)
    pid = propose(
        triangle,
        [("r-x", "support"), ("r-y", "oppose"), (a, "support"), (b, "annotate")],
        retrieved=("r-z",),
    )
    before = dump(triangle)

    res = decide(triangle, pid, verdict, reason="no")
    middle = dump(triangle)
    assert middle != before
    result = undo(triangle)

    after = dump(triangle)
    assert result.decision_id == res.decision_id and result.proposal_id == pid
    assert without_version(after) == without_version(before)
    version = {r[0]: r[-1] for r in after["brainview_proposal"]}
    assert version[pid] == 2  # 0 → 1 (decided) → 2 (undone): observers see it moved
    conn = sql(triangle)
    dec = conn.execute(
        "SELECT undone_at, undone_by FROM brainview_decision WHERE id=?", (res.decision_id,)
    ).fetchone()
    assert tuple(dec) == (fsrs_math.format_ts(NOW + timedelta(minutes=1)), "alice")
    assert (
        conn.execute(
            "SELECT COUNT(*) FROM brainview_grade WHERE decision_id=?", (res.decision_id,)
        ).fetchone()[0]
        == 0
    )
    assert (
        conn.execute(
            "SELECT COUNT(*) FROM brainview_effect WHERE decision_id=?", (res.decision_id,)
        ).fetchone()[0]
        > 0
    )
    # The proposal can be decided again.
    again = decide(triangle, pid, "accept")
    assert again.decision_id != res.decision_id


def test_undo_refuses_when_a_touched_row_changed_since(triangle: DemoInfo) -> None:
    pid = propose(triangle, [("r-x", "support"), ("r-y", "support")])
    res = decide(triangle, pid, "accept")
    conn = sql(triangle)
    conn.execute("UPDATE synapse SET weight = 0.9 WHERE pre='r-x' AND post='r-y'")
    snapshot = dump(triangle)
    with pytest.raises(ConflictError, match="synapse r-x, r-y, relates_to changed since"):
        undo(triangle, res.decision_id)
    assert dump(triangle) == snapshot


def test_undo_out_of_order_is_refused_then_reverse_order_restores(triangle: DemoInfo) -> None:
    before = dump(triangle)
    p1 = propose(triangle, [("r-x", "support"), ("r-y", "support")], pid="p1")
    p2 = propose(triangle, [("r-y", "support"), ("r-z", "oppose")], pid="p2")
    start = dump(triangle)
    d1 = decide(triangle, p1, "accept")
    d2 = decide(triangle, p2, "reject")
    with pytest.raises(ConflictError):
        undo(triangle, d1.decision_id)
    assert undo(triangle).decision_id == d2.decision_id
    assert undo(triangle).decision_id == d1.decision_id
    assert without_version(dump(triangle)) == without_version(start)
    assert before != start  # the proposals themselves stay queued
    with pytest.raises(NotFoundError, match="no decision left"):
        undo(triangle)
    with pytest.raises(ConflictError, match="already undone"):
        undo(triangle, d1.decision_id)


def test_undo_leaves_the_spike_counter_when_others_inserted_spikes(triangle: DemoInfo) -> None:
    pid = propose(triangle, [("r-x", "support")])
    res = decide(triangle, pid, "accept")
    conn = sql(triangle)
    spike(conn, "r-z", NOW_S)  # the curator fires something meanwhile
    seq = conn.execute("SELECT seq FROM sqlite_sequence WHERE name='spike'").fetchone()[0]
    undo(triangle, res.decision_id)
    assert conn.execute("SELECT seq FROM sqlite_sequence WHERE name='spike'").fetchone()[0] == seq
    assert (
        conn.execute(
            "SELECT COUNT(*) FROM spike WHERE session_id=?", (res.decision_id,)
        ).fetchone()[0]
        == 0
    )
    assert conn.execute("SELECT COUNT(*) FROM spike WHERE id=?", (seq,)).fetchone()[0] == 1


def test_applied_decisions_are_not_undone_here(demo: DemoInfo) -> None:
    (a,) = reviewed_reflections(demo, 1)
    pid = propose(demo, [(a, "support")])
    seen: list[review.DecisionResult] = []
    res = decide(demo, pid, "accept", applier=lambda _p, r: seen.append(r))
    assert seen == [res] and res.apply_state == review.APPLY_PENDING
    with pytest.raises(ConflictError, match="applied to the user brain"):
        undo(demo)


# -- conflicts, errors, concurrency ------------------------------------------------------


def test_deciding_twice_is_a_conflict_naming_the_first_decision(demo: DemoInfo) -> None:
    pid = demo.proposal_ids[0]
    decide(demo, pid, "accept")
    snapshot = dump(demo)
    with pytest.raises(ConflictError, match=r"already decided \(accepted by alice at "):
        decide(demo, pid, "reject", decider="bob")
    assert dump(demo) == snapshot


def test_unknown_proposal_and_bad_input(demo: DemoInfo) -> None:
    snapshot = dump(demo)
    with pytest.raises(NotFoundError, match="no proposal 'nope'"):
        decide(demo, "nope", "accept")
    with pytest.raises(InvalidInputError):
        decide(demo, demo.proposal_ids[0], "maybe")
    with pytest.raises(InvalidInputError):
        decide(demo, demo.proposal_ids[0], "accept", decider=" ")
    assert dump(demo) == snapshot


def test_read_only_agent_brain_writes_nothing(demo: DemoInfo) -> None:
    snapshot = dump(demo)
    pid = demo.proposal_ids[0]
    with open_project(demo, write=False) as p, pytest.raises(ReadOnlyError):
        review.decide(p, pid, "accept", decider="x", now=NOW)
    # A file SQLite can only open read-only (root ignores chmod, so build that case).
    with open_project(demo, write=False) as p:
        original = p.require_agent()
        ro = open_brain(agent_db(demo), "agent", write=False)
        p.agent = dataclasses.replace(ro, writable=True)
        with pytest.raises(ReadOnlyError):
            review.decide(p, pid, "accept", decider="x", now=NOW)
        original.dispose()
    assert dump(demo) == snapshot


def test_read_only_file_is_refused(demo: DemoInfo) -> None:
    snapshot = dump(demo)
    agent_db(demo).chmod(0o444)
    with pytest.raises(ReadOnlyError):
        decide(demo, demo.proposal_ids[0], "accept")
    assert dump(demo) == snapshot


def test_locked_agent_brain(demo: DemoInfo, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BRAINVIEW_BUSY_TIMEOUT", "0.1")
    holder = sql(demo)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(LockedError):
            decide(demo, demo.proposal_ids[0], "accept")
    finally:
        holder.execute("ROLLBACK")


def test_decide_many_is_all_or_nothing(demo: DemoInfo) -> None:
    p1, p2, p3 = demo.proposal_ids[:3]
    decide(demo, p3, "accept")
    snapshot = dump(demo)
    with open_project(demo) as p, pytest.raises(ConflictError, match=p3):
        review.decide_many(p, [p1, p2, p3], "reject", decider="a", now=NOW, scheduler=NOFUZZ)
    assert dump(demo) == snapshot
    with open_project(demo) as p:
        results = review.decide_many(p, [p1, p2, p1], "reject", decider="a", now=NOW)
        with p.require_agent().read() as conn:
            assert review.pending_count(conn) == len(demo.proposal_ids) - 3
    assert [r.proposal_id for r in results] == [p1, p2]
    assert len({r.decision_id for r in results}) == 2


def _race(info: DemoInfo, pid: str, verdict: str, barrier: Any, out: Any) -> None:
    with Project.locate(info.root, write_agent=True) as p:
        barrier.wait()
        try:
            res = review.decide(p, pid, verdict, decider=verdict, now=NOW)  # type: ignore[arg-type]
            out.put(("ok", res.decision_id))
        except ConflictError as err:
            out.put(("conflict", str(err)))


def _check_one_winner(info: DemoInfo, pid: str, outcomes: list[tuple[str, str]]) -> None:
    kinds = sorted(k for k, _ in outcomes)
    assert kinds == ["conflict", "ok"], outcomes
    winner = next(v for k, v in outcomes if k == "ok")
    conn = sql(info)
    assert (
        conn.execute(
            "SELECT COUNT(*) FROM brainview_decision WHERE proposal_id=?", (pid,)
        ).fetchone()[0]
        == 1
    )
    graded = conn.execute(
        "SELECT COUNT(*) FROM brainview_grade WHERE decision_id=?", (winner,)
    ).fetchone()[0]
    assert graded > 0
    assert (
        conn.execute("SELECT COUNT(*) FROM spike WHERE notes=?", (f"brainview:{pid}",)).fetchone()[
            0
        ]
        == graded
    )
    assert conn.execute("SELECT COUNT(*) FROM brainview_grade").fetchone()[0] == graded


def test_two_threads_deciding_one_proposal_exactly_one_wins(demo: DemoInfo) -> None:
    import queue

    a, b = reviewed_reflections(demo, 2)
    pid = propose(demo, [(a, "support"), (b, "oppose")])
    barrier = threading.Barrier(2)
    out: queue.Queue[tuple[str, str]] = queue.Queue()
    threads = [
        threading.Thread(target=_race, args=(demo, pid, v, barrier, out))
        for v in ("accept", "reject")
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    _check_one_winner(demo, pid, [out.get_nowait() for _ in range(2)])


def test_two_processes_deciding_one_proposal_exactly_one_wins(demo: DemoInfo) -> None:
    a, b = reviewed_reflections(demo, 2)
    pid = propose(demo, [(a, "support"), (b, "support")])
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(2)
    out = ctx.Queue()
    procs = [
        ctx.Process(target=_race, args=(demo, pid, v, barrier, out)) for v in ("accept", "reject")
    ]
    for proc in procs:
        proc.start()
    outcomes = [out.get(timeout=60) for _ in procs]
    for proc in procs:
        proc.join(timeout=30)
    _check_one_winner(demo, pid, outcomes)


def test_pending_count_and_latest_decision(demo: DemoInfo) -> None:
    with open_project(demo) as p, p.require_agent().read() as conn:
        assert review.pending_count(conn) == len(demo.proposal_ids)
        assert review.latest_decision(conn) is None
    res = decide(demo, demo.proposal_ids[0], "accept")
    with open_project(demo) as p, p.require_agent().read() as conn:
        assert review.pending_count(conn) == len(demo.proposal_ids) - 1
        latest = review.latest_decision(conn)
        assert latest is not None and latest["id"] == res.decision_id


def test_hostile_text_round_trips_through_decide_and_undo(triangle: DemoInfo) -> None:
    """Markup, quotes, backslashes, lines and tabs are text: stored as given, undone
    exactly.  Control and bidi characters are refused (test_text_rules.py)."""
    nasty = "[bold]x[/] [@click=app.quit] \\[red] 漢字 🧠 \\\" '\n\ttab\r\n" + "y" * 25_000
    pid = propose(triangle, [("r-x", "support"), ("r-y", "oppose")], rationale=nasty)
    before = dump(triangle)
    res = decide(triangle, pid, "reject", reason=nasty[:5_000])
    text = (
        sql(triangle)
        .execute("SELECT content FROM neuron WHERE id=?", (res.new_reflection_id,))
        .fetchone()[0]
    )
    assert nasty in text and f"Maintainer rejected: {nasty[:5_000].strip()}" in text
    undo(triangle)
    assert without_version(dump(triangle)) == without_version(before)
    for bad in ("\x1b[31mred", "\x85\x9b", "\u202eevil\u202c", "a\x00b", "lone\rcr"):
        with pytest.raises(InvalidInputError, match="^reason: (control|bidi) "):
            decide(triangle, pid, "reject", reason=bad)
    assert without_version(dump(triangle)) == without_version(before)


def test_agent_brain_without_a_queue(make_demo: Any) -> None:
    _root, info = make_demo(DemoSpec(proposals=0), name="empty")
    with pytest.raises(NotFoundError, match="no proposal queue"):
        decide(info, "prop-x", "accept")
    with pytest.raises(NotFoundError):
        undo(info)
    with open_project(info) as p, p.require_agent().read() as conn:
        assert review.pending_count(conn) == 0
