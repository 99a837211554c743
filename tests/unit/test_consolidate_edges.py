"""Consolidation edge cases from review: hostile text, big plans, grading, undo order,
staleness of decays, pending overlaps, policy ids, intake types, pairs, dry runs."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from brainview.core.consolidation import Settings
from brainview.core.kinds import check_params
from brainview.core.params import ParamError
from brainview.errors import ConflictError, InvalidInputError
from brainview.services import consolidate, intake, review
from brainview.services.consolidate import api
from brainview.services.project import Project
from brainview.store.discovery import discover


def _db(root: Path) -> Path:
    return root / ".spikuit" / "agent" / "circuit.db"


def _plan(root: Path, now, **kw):  # type: ignore[no-untyped-def]
    with Project.open(discover(root), write_agent=True) as p:
        return consolidate.plan(p, now=now, in_process=True, **kw)


def _queued(root: Path, now):  # type: ignore[no-untyped-def]
    plan = _plan(root, now)
    with Project.open(discover(root), write_agent=True) as p:
        ids = consolidate.queue(p, plan, now=now)
    return plan, ids


def _first(plan, kind: str) -> int:  # type: ignore[no-untyped-def]
    return next(k for k, i in enumerate(plan.items) if i.kind == kind)


def test_hostile_skill_names_never_reach_the_draft(demo, now) -> None:
    root, info = demo
    conn = sqlite3.connect(_db(root))
    conn.execute(
        "UPDATE neuron SET domain = 'cur\x1b]52;c;ZXZpbA==\x07ator\u202e' WHERE type='reflection'"
    )
    conn.commit()
    conn.close()
    plan = _plan(root, now)
    drafts = [i.params["text"] for i in plan.items if i.kind == "summarize_community"]
    assert drafts and not any(c in t for t in drafts for c in ("\x1b", "\x07", "\u202e"))
    with pytest.raises(ParamError, match="control"):
        check_params(
            "summarize_community",
            {"policy": "pol-x", "members": ["a"], "text": "ok\x1b]0;pwned\x07"},
        )


def test_big_plans_are_queued_in_chunks(demo, now, monkeypatch) -> None:
    root, _ = demo
    monkeypatch.setattr(api, "CHUNK", 4)
    plan, ids = _queued(root, now)
    assert len(ids) == len(plan.items) > 8
    conn = sqlite3.connect(_db(root))
    n = conn.execute("SELECT COUNT(*) FROM brainview_consolidation_item").fetchone()[0]
    conn.close()
    assert n == len(ids)


def test_items_never_grade_even_with_annotate_grade(demo, now) -> None:
    root, _ = demo
    plan, ids = _queued(root, now)
    with Project.open(discover(root), write_agent=True) as p:
        for pid in ids:  # every kind, accepted with annotate stances graded "strong"
            result = review.decide(p, pid, "accept", decider="ann", now=now, annotate_grade=4)
            assert result.grades == [] and result.stdp == []


def test_out_of_order_undo_cannot_revive_a_link_to_a_retired_lesson(demo, now) -> None:
    root, _ = demo
    plan, ids = _queued(root, now)
    conn = sqlite3.connect(_db(root))
    prunes = [
        (k, i.params["reflection"])
        for k, i in enumerate(plan.items)
        if i.kind == "prune_reflection"
    ]  # noqa: E501
    linked = None
    for (ka, a), (kb, b) in ((x, y) for x in prunes for y in prunes if x[0] < y[0]):
        row = conn.execute(
            "SELECT 1 FROM synapse WHERE pre = ? AND post = ? AND retired_at IS NULL", (a, b)
        ).fetchone()
        if row:
            linked = (ka, kb)
            break
    conn.close()
    assert linked, "the demo's prunes include two linked lessons"
    with Project.open(discover(root), write_agent=True) as p:
        first = review.decide(p, ids[linked[0]], "accept", decider="ann", now=now)
        review.decide(p, ids[linked[1]], "accept", decider="ann", now=now)
        with pytest.raises(ConflictError, match="undo that one first"):
            review.undo(p, first.decision_id, now=now, actor="ann")
        review.undo(p, None, now=now, actor="ann")  # the later one first: fine
        review.undo(p, first.decision_id, now=now, actor="ann")


def test_a_decay_goes_stale_when_an_end_fires(demo, now) -> None:
    root, _ = demo
    plan, ids = _queued(root, now)
    k = _first(plan, "decay_synapses")
    end = plan.items[k].params["synapses"][0]["pre"]
    with Project.open(discover(root), write_agent=True) as p:
        intake.submit(
            p, {"id": "use", "kind": "note", "consulted": [end]}, now=now
        )  # a note that consulted it: it fires when decided
        review.decide(p, "use", "accept", decider="ann", now=now)
        with pytest.raises(ConflictError, match="fired since the plan"):
            review.decide(p, ids[k], "accept", decider="ann", now=now)


def test_second_plan_leaves_pending_policy_members_alone(demo, now) -> None:
    from datetime import timedelta

    root, _ = demo
    first, _ids = _queued(root, now)
    members = {
        m for i in first.items if i.kind == "summarize_community" for m in i.params["members"]
    }
    later = _plan(root, now + timedelta(days=120))
    pruned = {i.params["reflection"] for i in later.items if i.kind == "prune_reflection"}
    assert not pruned & members
    assert later.skipped.get("part of a pending policy or decay", 0) > 0


def test_policy_ids_belong_to_their_plan(demo, now) -> None:
    root, _ = demo
    plan = _plan(root, now)
    item = plan.items[_first(plan, "summarize_community")]
    expect = hashlib.sha256(
        f"{plan.id}|{'|'.join(sorted(item.params['members']))}".encode()
    ).hexdigest()[:12]
    assert item.params["policy"] == "pol-" + expect


def test_intake_checks_what_agent_kinds_name(demo, now) -> None:
    root, info = demo
    policy, reflection = info.policy_ids[0], info.reflection_ids[0]
    with Project.open(discover(root), write_agent=True) as p:
        for bad in (
            {"kind": "prune_reflection", "params": {"reflection": policy}},
            {"kind": "retire_policy", "params": {"policy": reflection}},
        ):
            with pytest.raises(InvalidInputError, match="not a"):
                intake.submit(p, bad, now=now)


def test_a_bidirectional_pair_retires_whole(demo, now) -> None:
    root, _ = demo
    conn = sqlite3.connect(_db(root))
    a, b = conn.execute(
        "SELECT pre, post FROM synapse WHERE type = 'relates_to' AND retired_at IS NULL "
        "AND pre < post LIMIT 1"
    ).fetchone()
    conn.execute("UPDATE synapse SET weight = 0.055 WHERE pre = ? AND post = ?", (a, b))
    conn.execute("UPDATE synapse SET weight = 0.3 WHERE pre = ? AND post = ?", (b, a))
    conn.execute("DELETE FROM spike WHERE neuron_id IN (?, ?)", (a, b))  # both stale
    conn.execute(
        "UPDATE neuron SET created_at = '2025-01-01T00:00:00+00:00' WHERE id IN (?, ?)", (a, b)
    )  # noqa: E501
    conn.commit()
    conn.close()
    plan = _plan(root, now, settings=Settings(threshold=0.01))
    rows = {
        (s["pre"], s["post"]): s["to"]
        for i in plan.items if i.kind == "decay_synapses" for s in i.params["synapses"]
    }  # fmt: skip
    assert rows.get((a, b), "absent") is None and rows.get((b, a), "absent") is None


def test_planning_writes_nothing(demo, now) -> None:
    """Planning (a dry run) clusters afresh and changes no row of the agent brain, even
    opened writable; rows compared through SQLite (never the file's bytes)."""
    from tests.read_only_helpers import snapshot

    root, _ = demo
    before = snapshot(root)
    with Project.open(discover(root), write_agent=True) as p:
        consolidate.plan(p, now=now, in_process=True)
    assert snapshot(root) == before


def test_agent_items_need_no_writable_user_brain(demo, now) -> None:
    from brainview.services import apply

    root, _ = demo
    plan, ids = _queued(root, now)
    k = _first(plan, "prune_reflection")
    with Project.open(discover(root), write_agent=True) as p:  # user brain read-only
        applier = apply.applier_for(p.paths)
        assert applier is not None
        result = review.decide(p, ids[k], "accept", decider="ann", now=now, applier=applier)
    assert result.apply_state == "agent"
