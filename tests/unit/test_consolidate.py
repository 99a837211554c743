"""Agent-brain consolidation: planning, queueing, accepting, rejecting, staleness."""

from __future__ import annotations

import json
import sqlite3
from datetime import timedelta
from pathlib import Path

import pytest
from fsrs import Scheduler

from brainview.core.kinds_agent import DECAY_FACTOR, WEIGHT_FLOOR
from brainview.errors import ConflictError
from brainview.services import consolidate, review
from brainview.services.communities import curves
from brainview.services.project import Project
from brainview.store.discovery import discover

SPIKUIT_TABLES = ("neuron", "synapse", "fsrs_state", "spike")
FIXED = Scheduler(enable_fuzzing=False)


def _plan(root: Path, now):  # type: ignore[no-untyped-def]
    with Project.open(discover(root), write_agent=True) as p:
        return consolidate.plan(p, now=now, in_process=True)


def _dump(db: Path, tables=("neuron", "synapse")) -> dict[str, list[tuple]]:  # type: ignore[no-untyped-def]
    conn = sqlite3.connect(db)
    try:
        out = {}
        for t in tables:
            cols = [r[1] for r in conn.execute(f"PRAGMA table_info({t})")]
            keep = [c for c in cols if c not in ("created_at", "updated_at", "retired_at")]
            if "retired_at" in cols:
                keep.append("retired_at IS NOT NULL")
            rows = conn.execute(f"SELECT {', '.join(keep)} FROM {t} ORDER BY 1, 2")
            out[t] = [tuple(r) for r in rows]
        return out
    finally:
        conn.close()


def _agent_db(root: Path) -> Path:
    return root / ".spikuit" / "agent" / "circuit.db"


def test_demo_plan_has_every_phase(demo, now) -> None:
    plan = _plan(demo[0], now)
    counts = plan.counts()
    assert all(counts[k] > 0 for k in counts), counts
    assert {i.phase for i in plan.items} == {"sws", "shy", "rem"}
    assert sum(plan.triage[t] for t in ("hot", "warm", "stale", "new")) == len(
        [r for r in demo[1].reflection_ids + demo[1].adversarial_ids]
    )
    retire = [i for i in plan.items if i.kind == "retire_policy"]
    assert [i.params["policy"] for i in retire] == [demo[1].orphan_policy_id]


def retired_pairs(item) -> set[tuple[str, str, str]]:  # type: ignore[no-untyped-def]
    """Rows an item retires (a bidirectional pair goes whole)."""
    return {(s["pre"], s["post"], s["type"]) for s in item.params["synapses"] if s["to"] is None}


def test_shy_numbers_follow_spikuit_defaults(demo, now) -> None:
    plan = _plan(demo[0], now)
    assert plan.settings.decay_factor == DECAY_FACTOR == 0.8
    assert plan.settings.weight_floor == WEIGHT_FLOOR == 0.05
    conn = sqlite3.connect(_agent_db(demo[0]))
    for item in (i for i in plan.items if i.kind == "decay_synapses"):
        for s in item.params["synapses"]:
            stored = conn.execute(
                "SELECT weight FROM synapse WHERE pre=? AND post=? AND type=?",
                (s["pre"], s["post"], s["type"]),
            ).fetchone()[0]
            assert s["weight"] == stored < plan.settings.weak_below
            # Spikuit: the exact product against the floor, the new weight to 4 decimals.
            exact = stored * 0.8
            if s["to"] is None:
                reverse = (s["post"], s["pre"], s["type"])
                assert exact < 0.05 or reverse in retired_pairs(item)
            else:
                assert s["to"] == round(exact, 4) and exact >= 0.05


def test_rescued_reflections_are_never_pruned(demo, now) -> None:
    root = demo[0]
    first = _plan(root, now)
    pruned = [i.params["reflection"] for i in first.items if i.kind == "prune_reflection"]
    assert len(pruned) >= 2
    with Project.open(discover(root), write_agent=True) as p:
        curves.decide_fading(p, pruned[0], "rescue", decider="ann", now=now, threshold=0.7)
    second = _plan(root, now)
    again = [i.params["reflection"] for i in second.items if i.kind == "prune_reflection"]
    assert pruned[0] not in again
    assert set(again) == set(pruned[1:])
    assert second.skipped.get("rescued") == 1


def test_accepting_every_item_equals_applying_the_plan(make_demo, now) -> None:
    a, _info = make_demo(name="reviewed")
    b, _ = make_demo(name="direct")
    plan_a, plan_b = _plan(a, now), _plan(b, now)
    assert [i.params for i in plan_a.items] == [
        {**i.params, "plan": plan_a.items[0].params["plan"]} for i in plan_b.items
    ]
    with Project.open(discover(a), write_agent=True) as p:
        ids = consolidate.queue(p, plan_a, now=now)
        # In reverse order, to show the items do not depend on one another.
        for pid in reversed(ids):
            review.decide(p, pid, "accept", decider="ann", now=now, scheduler=FIXED)
    with Project.open(discover(b), write_agent=True) as p:
        consolidate.apply_directly(p, plan_b, decider="ann", now=now)
    assert _dump(_agent_db(a)) == _dump(_agent_db(b))
    conn = sqlite3.connect(_agent_db(a))
    policies = conn.execute(
        "SELECT COUNT(*) FROM neuron WHERE type='policy' AND retired_at IS NULL"
    ).fetchone()[0]
    assert policies == 2 + plan_a.counts()["summarize_community"]
    assert conn.execute(
        "SELECT retired_at IS NOT NULL FROM neuron WHERE id = ?",
        (plan_a.items[0].params["reflection"],),
    ).fetchone() == (1,)


def test_rejecting_every_item_changes_only_decisions_and_grades(demo, now) -> None:
    root = demo[0]
    before = _dump(_agent_db(root))
    plan = _plan(root, now)
    with Project.open(discover(root), write_agent=True) as p:
        ids = consolidate.queue(p, plan, now=now)
        for pid in ids:
            review.decide(
                p, pid, "reject", reason="not now", decider="ann", now=now,
                write_reflections=False, scheduler=FIXED,
            )  # fmt: skip
    assert _dump(_agent_db(root)) == before
    conn = sqlite3.connect(_agent_db(root))
    statuses = conn.execute(
        "SELECT status, COUNT(*) FROM brainview_proposal WHERE source = 'consolidate' "
        "GROUP BY status"
    ).fetchall()
    assert statuses == [("rejected", len(ids))]


def test_rejection_teaches_the_agent_brain(demo, now) -> None:
    root = demo[0]
    plan = _plan(root, now)
    pid_of = dict(zip((i.kind for i in plan.items), plan.proposal_ids(), strict=False))
    with Project.open(discover(root), write_agent=True) as p:
        consolidate.queue(p, plan, now=now)
        result = review.decide(
            p, pid_of["summarize_community"], "reject", reason="too vague",
            decider="ann", now=now,
        )  # fmt: skip
    assert result.new_reflection_id is not None
    conn = sqlite3.connect(_agent_db(root))
    content, links = conn.execute(
        "SELECT n.content, (SELECT COUNT(*) FROM synapse WHERE pre = n.id) FROM neuron n "
        "WHERE id = ?",
        (result.new_reflection_id,),
    ).fetchone()
    assert "too vague" in content
    item = plan.items[plan.proposal_ids().index(pid_of["summarize_community"])]
    assert links == len(item.params["members"])


def test_stale_items_cannot_be_accepted(demo, now) -> None:
    root = demo[0]
    plan = _plan(root, now)
    ids = plan.proposal_ids()
    prune = next(k for k, i in enumerate(plan.items) if i.kind == "prune_reflection")
    decay = next(k for k, i in enumerate(plan.items) if i.kind == "decay_synapses")
    with Project.open(discover(root), write_agent=True) as p:
        consolidate.queue(p, plan, now=now)
    conn = sqlite3.connect(_agent_db(root))
    s = plan.items[decay].params["synapses"][0]
    conn.execute(
        "UPDATE synapse SET weight = weight + 0.01 WHERE pre=? AND post=? AND type=?",
        (s["pre"], s["post"], s["type"]),
    )
    conn.commit()
    conn.close()
    later = now + timedelta(minutes=5)
    with Project.open(discover(root), write_agent=True) as p:
        # A grade on the reflection since the plan: it proved useful, no longer prune it.
        rid = plan.items[prune].params["reflection"]
        probe = {
            "id": "probe",
            "kind": "note",
            "params": {},
            "consulted": [{"reflection": rid}],
            "created_at": "2026-11-30T09:00:00+00:00",
        }
        from brainview.services import intake

        intake.submit(p, probe, now=later)
        review.decide(p, "probe", "accept", decider="ann", now=later, scheduler=FIXED)
        for k, why in ((prune, "fired since the plan"), (decay, "changed weight")):
            with pytest.raises(ConflictError, match=why):
                review.decide(p, ids[k], "accept", decider="ann", now=later)
        # Rejecting or dismissing a stale item still works.
        review.dismiss(p, ids[prune], decider="ann", now=later)


def test_queue_refuses_a_plan_older_than_the_brain(demo, now) -> None:
    root = demo[0]
    plan = _plan(root, now)
    with Project.open(discover(root), write_agent=True) as p:
        rid = plan.items[0].params["reflection"]
        curves.decide_fading(p, rid, "rescue", decider="ann", now=now, threshold=0.7)
        with pytest.raises(ConflictError, match="plan again"):
            consolidate.queue(p, plan, now=now)


def test_second_consolidation_does_not_repeat_pending_items(demo, now) -> None:
    root = demo[0]
    first = _plan(root, now)
    with Project.open(discover(root), write_agent=True) as p:
        consolidate.queue(p, first, now=now)
    second = _plan(root, now)
    assert second.items == []
    assert second.skipped.get("already pending", 0) >= first.counts()["summarize_community"]


def test_edited_policy_text_is_written_and_undo_is_exact(demo, now) -> None:
    root = demo[0]
    before = _dump(_agent_db(root), SPIKUIT_TABLES)
    plan = _plan(root, now)
    k = next(k for k, i in enumerate(plan.items) if i.kind == "summarize_community")
    pid, item = plan.proposal_ids()[k], plan.items[k]
    with Project.open(discover(root), write_agent=True) as p:
        consolidate.queue(p, plan, now=now)
        result = review.decide(
            p, pid, "accept", decider="ann", now=now, policy_text="Don't merge homonyms."
        )
        assert result.apply_state == review.APPLY_AGENT
    conn = sqlite3.connect(_agent_db(root))
    row = conn.execute(
        "SELECT content, type FROM neuron WHERE id = ?", (item.params["policy"],)
    ).fetchone()
    assert row == ("Don't merge homonyms.", "policy")
    sql = "SELECT params_json FROM brainview_proposal WHERE id = ?"
    params = json.loads(conn.execute(sql, (pid,)).fetchone()[0])
    assert params["draft"] == item.params["text"]
    targets = conn.execute(
        "SELECT post FROM synapse WHERE pre = ? AND type = 'summarizes' ORDER BY post",
        (item.params["policy"],),
    ).fetchall()
    assert [t[0] for t in targets] == sorted(item.params["members"])
    tag = conn.execute(
        "SELECT COUNT(*) FROM changeset WHERE tag = ?", (f"brainview:{pid}",)
    ).fetchone()[0]
    assert tag == 1
    conn.close()
    with Project.open(discover(root), write_agent=True) as p:
        review.undo(p, result.decision_id, now=now, actor="ann")
    after = _dump(_agent_db(root), SPIKUIT_TABLES)
    assert after == before


def test_a_rejected_prune_is_not_proposed_again(demo, now) -> None:
    root = demo[0]
    plan = _plan(root, now)
    k = next(k for k, i in enumerate(plan.items) if i.kind == "prune_reflection")
    rid = plan.items[k].params["reflection"]
    with Project.open(discover(root), write_agent=True) as p:
        ids = consolidate.queue(p, plan, now=now)
        review.decide(p, ids[k], "reject", reason="still useful", decider="ann", now=now)
        for pid in ids[:k] + ids[k + 1 :]:
            review.dismiss(p, pid, decider="ann", now=now)
    again = _plan(root, now)
    assert rid not in {i.params.get("reflection") for i in again.items}
    assert again.skipped["kept (a maintainer rejected its prune)"] == 1
