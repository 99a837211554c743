"""The stored effect log of a decision: its compact shape, exact undo/redo byte for
byte, and decisions stored in the schema-2 shape (one row per changed row)."""

from __future__ import annotations

import sqlite3
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from fsrs import Scheduler

from brainview.core import fsrs_math
from brainview.demo.generator import DEMO_NOW, DemoInfo
from brainview.errors import ConflictError
from brainview.services import intake, review
from brainview.services.project import Project
from brainview.store.effects import (
    GROUPED_OPS,
    logged_effects,
    reapply_effects,
    revert_effects,
    stored_effects,
)
from brainview.store.rows import encode

NOW = DEMO_NOW + timedelta(minutes=10)
NOFUZZ = Scheduler(enable_fuzzing=False)
SKIPPED = {"brainview_decision", "brainview_effect"}
CHANGE_LOG = ("changeset", "event")
"""Spikuit's change log: append-only, so undo leaves it (and adds to it)."""


def rows_of(dumped: dict[str, list[tuple[Any, ...]]]) -> dict[str, list[tuple[Any, ...]]]:
    """A dump without the change log."""
    return {t: v for t, v in dumped.items() if t not in CHANGE_LOG}


def grew(before: dict[str, list[Any]], after: dict[str, list[Any]]) -> bool:
    """Every change-log row of ``before`` is still in ``after``."""
    return all(set(before[t]) <= set(after[t]) for t in CHANGE_LOG)


@pytest.fixture
def demo(make_demo: Any) -> DemoInfo:
    _root, info = make_demo()
    return info


def agent_db(info: DemoInfo) -> Path:
    return info.root / ".spikuit" / "agent" / "circuit.db"


def exact_dump(info: DemoInfo) -> dict[str, list[tuple[Any, ...]]]:
    """Every table, every value with its SQLite storage class and exact Python repr
    (``brainview_proposal.version`` aside: undo moves it up)."""
    conn = sqlite3.connect(agent_db(info))
    names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
    out: dict[str, list[tuple[Any, ...]]] = {}
    for name in sorted(set(names) - SKIPPED):
        cols = [r[1] for r in conn.execute(f"PRAGMA table_info({name})")]
        if name == "brainview_proposal":
            cols.remove("version")
        sql = ", ".join(f"typeof({c}), {c}" for c in cols)
        rows = conn.execute(f"SELECT {sql} FROM {name}").fetchall()
        out[name] = sorted((tuple(repr(v) for v in row) for row in rows), key=repr)
    conn.close()
    return out


def queue(info: DemoInfo, pid: str, consulted: list[str], stance: str = "support") -> str:
    raw = {
        "id": pid,
        "skill": "curator",
        "kind": "note",
        "params": {},
        "rationale": "why\t[bold]é🧠\nline two",
        "consulted": [{"reflection": r, "stance": stance} for r in consulted],
        "created_at": fsrs_math.format_ts(DEMO_NOW),
    }
    with Project.locate(info.root, write_agent=True) as p:
        intake.submit(p, [raw], source="test", now=DEMO_NOW)
    return pid


def decide(info: DemoInfo, pid: str, verdict: str) -> review.DecisionResult:
    with Project.locate(info.root, write_agent=True) as p:
        return review.decide(
            p, pid, verdict, reason="because", decider="alice", now=NOW, scheduler=NOFUZZ
        )  # type: ignore[arg-type]


def undo(info: DemoInfo, decision_id: str) -> review.UndoResult:
    with Project.locate(info.root, write_agent=True) as p:
        return review.undo(p, decision_id, now=NOW + timedelta(minutes=1), actor="alice")


def effect_rows(info: DemoInfo, decision_id: str) -> list[tuple[str, str]]:
    conn = sqlite3.connect(agent_db(info))
    rows = conn.execute(
        "SELECT tbl, op FROM brainview_effect WHERE decision_id=? ORDER BY seq", (decision_id,)
    ).fetchall()
    conn.close()
    return rows


def linked_reflections(info: DemoInfo, n: int) -> list[str]:
    """``n`` live reflections of the largest theme (linked, so STDP has work)."""
    return max(info.themes.values(), key=len)[:n]


@pytest.mark.parametrize("verdict", ["accept", "reject"])
def test_one_row_per_run_and_undo_is_byte_exact(demo: DemoInfo, verdict: str) -> None:
    stance = "support" if verdict == "accept" else "oppose"  # graded strong: STDP runs
    pid = queue(demo, "p-compact", linked_reflections(demo, 12), stance)
    before = exact_dump(demo)
    res = decide(demo, pid, verdict)
    assert res.stdp, "the theme's links should co-fire"
    rows = effect_rows(demo, res.decision_id)
    # claim, spikes, spike counter, cards, synapses, grades (+ the rejection's
    # reflection, its card, its links and their changeset + events): one row each,
    # however many reflections.
    assert 6 <= len(rows) <= 11
    assert {op for _t, op in rows} <= set(GROUPED_OPS.values())
    with Project.locate(demo.root) as p, p.require_agent().read() as conn:
        effects = stored_effects(conn, res.decision_id)
    assert sum(1 for e in effects if e.tbl == "spike") == 12
    assert sum(1 for e in effects if e.tbl == "synapse" and e.op == "update") > 0
    rows_only = [e for e in effects if e.tbl not in CHANGE_LOG]
    decided = exact_dump(demo)
    assert undo(demo, res.decision_id).rows_restored == len(rows_only)
    after = exact_dump(demo)
    assert rows_of(after) == rows_of(before) and grew(decided, after)
    assert (after == before) == (verdict == "accept")  # a lesson's undo is logged


def test_reapply_is_the_exact_inverse_of_revert(demo: DemoInfo) -> None:
    pid = queue(demo, "p-redo", linked_reflections(demo, 8), "oppose")
    before = exact_dump(demo)
    res = decide(demo, pid, "reject")
    decided = exact_dump(demo)
    with Project.locate(demo.root, write_agent=True) as p, p.require_agent().write() as conn:
        n = revert_effects(conn, res.decision_id)
    reverted = exact_dump(demo)
    assert rows_of(reverted) == rows_of(before)
    assert {t: reverted[t] for t in CHANGE_LOG} == {t: decided[t] for t in CHANGE_LOG}
    with Project.locate(demo.root, write_agent=True) as p, p.require_agent().write() as conn:
        assert reapply_effects(conn, res.decision_id) == n
    assert exact_dump(demo) == decided


def _legacy_delta(before: dict[str, Any] | None, after: dict[str, Any]) -> dict[str, Any]:
    """Schema 2's after_json: the whole row for an insert, changed columns otherwise."""
    if before is None:
        return after
    return {
        c: v
        for c, v in after.items()
        if c not in before or type(before[c]) is not type(v) or before[c] != v
    }


def rewrite_as_schema_2(info: DemoInfo, decision_id: str) -> int:
    """Store a decision's effects as brainview ≤ schema 2 did: one row per changed row."""
    with Project.locate(info.root, write_agent=True) as p, p.require_agent().write() as conn:
        effects = stored_effects(conn, decision_id)
        raw = conn.connection.driver_connection
        assert isinstance(raw, sqlite3.Connection)
        raw.execute("DELETE FROM brainview_effect WHERE decision_id = ?", (decision_id,))
        raw.executemany(
            "INSERT INTO brainview_effect (decision_id, seq, tbl, op, key_json, before_json, "
            "after_json) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    decision_id, seq, e.tbl, e.op, encode(e.key),
                    None if e.before is None else encode(e.before),
                    None if e.after is None else encode(_legacy_delta(e.before, e.after)),
                )
                for seq, e in enumerate(effects)
            ],
        )  # fmt: skip
    return len(effects)


def test_decisions_stored_in_the_schema_2_shape_still_undo_exactly(demo: DemoInfo) -> None:
    old_pid = queue(demo, "p-old", linked_reflections(demo, 10), "oppose")
    new_pid = queue(demo, "p-new", linked_reflections(demo, 10))
    start = exact_dump(demo)
    first = decide(demo, old_pid, "reject")
    middle = exact_dump(demo)
    n = rewrite_as_schema_2(demo, first.decision_id)
    assert len(effect_rows(demo, first.decision_id)) == n  # one row per changed row
    assert {op for _t, op in effect_rows(demo, first.decision_id)} == {"insert", "update"}
    second = decide(demo, new_pid, "accept")
    with Project.locate(demo.root) as p, p.require_agent().read() as conn:
        mentioned = linked_reflections(demo, 1)[0]
        found = {did for did, _at, e in logged_effects(conn, "synapse", mentioned)}
    assert found == {first.decision_id, second.decision_id}  # both shapes are searched
    undo(demo, second.decision_id)
    assert exact_dump(demo) == middle
    with Project.locate(demo.root) as p, p.require_agent().read() as conn:
        logged = sum(1 for e in stored_effects(conn, first.decision_id) if e.tbl in CHANGE_LOG)
    assert undo(demo, first.decision_id).rows_restored == n - logged
    end = exact_dump(demo)
    assert rows_of(end) == rows_of(start) and grew(middle, end)


def test_an_old_decision_is_refused_when_a_row_changed_since(demo: DemoInfo) -> None:
    res = decide(demo, queue(demo, "p-old", linked_reflections(demo, 6)), "accept")
    rewrite_as_schema_2(demo, res.decision_id)
    a, b = res.stdp[0][:2]
    conn = sqlite3.connect(agent_db(demo))
    conn.execute("UPDATE synapse SET confidence = 'edited' WHERE pre=? AND post=?", (a, b))
    conn.commit()
    conn.close()
    snapshot = exact_dump(demo)
    with pytest.raises(ConflictError, match=f"synapse {a}, {b}, .* changed since"):
        undo(demo, res.decision_id)
    assert exact_dump(demo) == snapshot


def test_a_row_changed_in_a_column_the_decision_did_not_touch_blocks_undo(
    demo: DemoInfo,
) -> None:
    res = decide(demo, queue(demo, "p-new", linked_reflections(demo, 6)), "accept")
    a, b = res.stdp[0][:2]
    conn = sqlite3.connect(agent_db(demo))
    conn.execute("UPDATE synapse SET confidence = 'edited' WHERE pre=? AND post=?", (a, b))
    conn.commit()
    conn.close()
    with pytest.raises(ConflictError, match="changed since"):
        undo(demo, res.decision_id)
