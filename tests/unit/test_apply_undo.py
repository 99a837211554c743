"""Undoing an applied proposal: an inverse changeset in the user brain, the grades
reverted, both brains back to their exact prior rows (apart from the change log)."""

from __future__ import annotations

import json
import sqlite3
from datetime import timedelta
from typing import Any

import pytest
from fsrs import Scheduler

from brainview.core.kinds import USER_KINDS as ALL_KINDS
from brainview.demo.generator import DEMO_NOW, DemoInfo
from brainview.errors import ConflictError, ReadOnlyError
from brainview.services import apply, review
from brainview.services.apply import hooks
from brainview.services.project import Project

NOW = DEMO_NOW + timedelta(minutes=10)
LATER = NOW + timedelta(minutes=1)
NOFUZZ = Scheduler(enable_fuzzing=False)
AUDIT = {"brainview_decision", "brainview_effect", "brainview_grade", "brainview_apply_intent"}
KINDS = list(ALL_KINDS)


@pytest.fixture
def demo(make_demo: Any) -> DemoInfo:
    _root, info = make_demo()
    return info


def connect(info: DemoInfo, agent: bool = False) -> sqlite3.Connection:
    sub = ("agent",) if agent else ()
    return sqlite3.connect(info.root.joinpath(".spikuit", *sub, "circuit.db"), isolation_level=None)


def dump(conn: sqlite3.Connection, skip: set[str]) -> dict[str, list[tuple[Any, ...]]]:
    names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
    out = {
        n: sorted(conn.execute(f"SELECT * FROM {n}").fetchall(), key=repr)
        for n in sorted(names)
        if n not in skip
    }
    conn.close()
    return out


def brains(info: DemoInfo) -> tuple[dict[str, Any], dict[str, Any]]:
    """User brain minus the change log; agent brain minus audit tables and the
    proposal's version (undo moves it forward on purpose)."""
    user = dump(connect(info), {"changeset", "event"})
    agent = dump(connect(info, agent=True), AUDIT)
    agent["brainview_proposal"] = [r[:-1] for r in agent["brainview_proposal"]]
    return user, agent


def fresh_by_kind(info: DemoInfo) -> dict[str, str]:
    conn = connect(info, agent=True)
    out: dict[str, str] = {}
    for pid, kind in conn.execute(
        "SELECT id, kind FROM brainview_proposal WHERE status = 'pending' ORDER BY id"
    ):
        if pid not in info.stale_proposal_ids:
            out.setdefault(kind, pid)
    conn.close()
    return out


def params_of(info: DemoInfo, pid: str) -> dict[str, Any]:
    conn = connect(info, agent=True)
    (raw,) = conn.execute(
        "SELECT params_json FROM brainview_proposal WHERE id=?", (pid,)
    ).fetchone()
    conn.close()
    return json.loads(raw)


def accept(info: DemoInfo, pid: str) -> review.DecisionResult:
    with Project.locate(info.root, write_agent=True, write_user=True) as p:
        return review.decide(
            p,
            pid,
            "accept",
            decider="alice",
            now=NOW,
            scheduler=NOFUZZ,
            applier=apply.applier_for(p.paths),
        )


def undo(info: DemoInfo, decision_id: str, *, user: bool = True) -> review.UndoResult:
    with Project.locate(info.root, write_agent=True, write_user=user) as p:
        return review.undo(p, decision_id, now=LATER, actor="bob")


@pytest.mark.parametrize("kind", KINDS)
def test_undo_returns_both_brains_to_their_prior_rows(demo: DemoInfo, kind: str) -> None:
    pid = fresh_by_kind(demo)[kind]
    before = brains(demo)
    result = accept(demo, pid)
    applied = brains(demo)
    assert (applied[0] == before[0]) == (kind == "note")
    assert applied[1] != before[1]  # grades were fired
    done = undo(demo, result.decision_id)
    assert brains(demo) == before
    assert done.rows_restored > 0
    conn = connect(demo)
    tags = [r[0] for r in conn.execute("SELECT tag FROM changeset WHERE tag LIKE 'brainview:%'")]
    conn.close()
    if kind == "note":
        assert tags == [] and done.user_rows_restored == 0
    else:
        assert tags == [f"brainview:{pid}", f"brainview:undo:{pid}"]
        assert done.user_rows_restored > 0
    conn = connect(demo, agent=True)
    (state,) = conn.execute(
        "SELECT apply_state FROM brainview_decision WHERE id=?", (result.decision_id,)
    ).fetchone()
    conn.close()
    assert state == "reverted"


def test_undo_of_a_merge_logs_spikuit_inverse_ops(demo: DemoInfo) -> None:
    pid = fresh_by_kind(demo)["merge_neurons"]
    p = params_of(demo, pid)
    result = accept(demo, pid)
    undo(demo, result.decision_id)
    conn = connect(demo)
    ops = [
        (op, target)
        for op, target in conn.execute(
            "SELECT e.op, e.target_id FROM event e JOIN changeset c ON c.id = e.changeset_id "
            "WHERE c.tag = ? ORDER BY e.seq",
            (f"brainview:undo:{pid}",),
        )
    ]
    (actor,) = conn.execute(
        "SELECT actor_kind || ':' || actor_id FROM changeset WHERE tag = ?",
        (f"brainview:undo:{pid}",),
    ).fetchone()
    conn.close()
    assert actor == "human:bob"
    assert ("neuron.add", p["merge"][0]) in ops  # the merged neuron is live again
    assert ("neuron.update", p["keep"]) in ops  # the survivor's text is back
    gone = [t for op, t in ops if op == "synapse.delete"]
    assert gone  # redirected copies are removed, and the log says so (not synapse.retire)
    conn = connect(demo)
    for target in gone:
        pre, post, typ = target.split("|")
        sql = "SELECT COUNT(*) FROM synapse WHERE pre=? AND post=? AND type=?"
        assert conn.execute(sql, (pre, post, typ)).fetchone()[0] == 0
    conn.close()


def test_accept_again_after_undo_applies_again(demo: DemoInfo) -> None:
    pid = fresh_by_kind(demo)["retire_neuron"]
    first = accept(demo, pid)
    undo(demo, first.decision_id)
    second = accept(demo, pid)
    assert second.apply_state == "applied"
    nid = params_of(demo, pid)["neuron"]
    conn = connect(demo)
    assert conn.execute("SELECT retired_at FROM neuron WHERE id=?", (nid,)).fetchone()[0]
    assert conn.execute(
        "SELECT COUNT(*) FROM changeset WHERE tag = ?", (f"brainview:{pid}",)
    ).fetchone() == (2,)
    conn.close()


def test_undo_refused_when_the_user_brain_changed_since(demo: DemoInfo) -> None:
    pid = fresh_by_kind(demo)["set_synapse_weight"]
    p = params_of(demo, pid)
    result = accept(demo, pid)
    conn = connect(demo)
    conn.execute(
        "UPDATE synapse SET weight = 0.99 WHERE pre=? AND post=? AND type=?",
        (p["pre"], p["post"], p["type"]),
    )
    conn.close()
    snapshot = brains(demo)
    with pytest.raises(ConflictError, match="in the user brain, synapse .* changed"):
        undo(demo, result.decision_id)
    assert brains(demo) == snapshot


def test_undo_of_an_applied_decision_needs_a_writable_user_brain(demo: DemoInfo) -> None:
    result = accept(demo, fresh_by_kind(demo)["retire_neuron"])
    snapshot = brains(demo)
    with pytest.raises(ReadOnlyError, match="read-only"):
        undo(demo, result.decision_id, user=False)
    assert brains(demo) == snapshot


def test_user_brain_change_during_undo_redoes_the_agent_half(demo: DemoInfo) -> None:
    pid = fresh_by_kind(demo)["edit_content"]
    nid = params_of(demo, pid)["neuron"]
    result = accept(demo, pid)
    applied_user, applied_agent = brains(demo)

    def meddle(step: str) -> None:
        if step == "revert.agent_committed":
            conn = connect(demo)
            conn.execute("UPDATE neuron SET content = 'spkt edit' WHERE id = ?", (nid,))
            conn.close()

    hooks.set_step_hook(meddle)
    try:
        with pytest.raises(ConflictError, match="undo was rolled back"):
            undo(demo, result.decision_id)
    finally:
        hooks.set_step_hook(None)
    user, agent = brains(demo)
    assert agent == applied_agent  # grades, spikes, cards: as after the accept
    conn = connect(demo, agent=True)
    row = conn.execute(
        "SELECT apply_state, undone_at FROM brainview_decision WHERE id=?", (result.decision_id,)
    ).fetchone()
    states = conn.execute(
        "SELECT action, state FROM brainview_apply_intent ORDER BY created_at, rowid"
    ).fetchall()
    conn.close()
    assert row == ("applied", None)
    assert states == [("apply", "done"), ("revert", "rolled_back")]


def test_plan_round_trips_and_inverse_of_inverse_is_the_plan(demo: DemoInfo) -> None:
    pid = fresh_by_kind(demo)["merge_neurons"]
    p = params_of(demo, pid)
    with Project.locate(demo.root) as proj:
        plan = apply.plan_for(proj, pid, "merge_neurons", p, now=NOW)
    again = apply.Plan.from_json(plan.to_json())
    assert again.to_json() == plan.to_json() and again.changes == plan.changes
    twice = plan.inverse(plan.changeset).inverse(plan.changeset)
    assert twice.changes == plan.changes
