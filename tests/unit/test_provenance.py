"""Provenance is append-only: a reflection's origin is recorded once and never
rewritten; challenge, invalidate, reinstate and every undo only add to its trail;
every agent-brain write has one changeset with Spikuit-shaped events, and every undo
logs what it actually did to each row."""

from __future__ import annotations

import json
import re
import sqlite3
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from fsrs import Scheduler

from brainview.core.kinds import USER_KINDS
from brainview.demo.generator import DEMO_NOW, DemoInfo
from brainview.services import apply, audit, consolidate, intake, lifecycle, review
from brainview.services.apply import snapshots as snap
from brainview.services.project import Project

NOFUZZ = Scheduler(enable_fuzzing=False)
T = [DEMO_NOW + timedelta(minutes=m) for m in range(0, 200, 10)]
ROWS = ("neuron", "synapse", "fsrs_state", "spike", "neuron_predecessor", "neuron_source")
"""Spikuit's row tables (the change log aside)."""


@pytest.fixture
def demo(make_demo: Any) -> DemoInfo:
    """A fresh copy of the standard demo project."""
    return make_demo()[1]


def project(info: DemoInfo, *, user: bool = False) -> Project:
    return Project.locate(info.root, write_agent=True, write_user=user)


def connect(info: DemoInfo, *, agent: bool = True) -> sqlite3.Connection:
    sub = ("agent",) if agent else ()
    return sqlite3.connect(info.root.joinpath(".spikuit", *sub, "circuit.db"))


def dump(info: DemoInfo, *, agent: bool = True) -> dict[str, list[Any]]:
    conn = connect(info, agent=agent)
    names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    out = {
        t: sorted(conn.execute(f"SELECT * FROM {t}").fetchall(), key=repr)
        for t in ROWS
        if t in names
    }
    conn.close()
    return out


def events(info: DemoInfo, tag: str, *, agent: bool = True) -> list[tuple[Any, ...]]:
    """``(op, target_kind, target_id, before_json, after_json)`` of the changesets tagged
    ``tag``, in order."""
    conn = connect(info, agent=agent)
    found = conn.execute(
        "SELECT e.op, e.target_kind, e.target_id, e.before_json, e.after_json FROM event e "
        "JOIN changeset c ON c.id = e.changeset_id WHERE c.tag = ? ORDER BY c.rowid, e.seq",
        (tag,),
    ).fetchall()
    conn.close()
    return found


def log_ids(info: DemoInfo, *, agent: bool = True) -> tuple[set[str], set[str]]:
    conn = connect(info, agent=agent)
    cs = {r[0] for r in conn.execute("SELECT id FROM changeset")}
    ev = {r[0] for r in conn.execute("SELECT id FROM event")}
    conn.close()
    return cs, ev


def assert_ops_match_rows(info: DemoInfo, logged: list[tuple[Any, ...]], *, agent: bool) -> None:
    """Each event says what happened to its row: ``*.delete`` → the row is gone,
    ``*.retire`` → retired, ``*.add`` / ``*.update`` → live and equal to the snapshot."""
    conn = connect(info, agent=agent)
    conn.row_factory = sqlite3.Row
    assert logged
    for op, kind, target, before, after in logged:
        if kind == "neuron":
            row = conn.execute("SELECT * FROM neuron WHERE id = ?", (target,)).fetchone()
            shape = snap.neuron_snapshot
        else:
            pre, post, typ = target.split("|")
            sql = "SELECT * FROM synapse WHERE pre = ? AND post = ? AND type = ?"
            row = conn.execute(sql, (pre, post, typ)).fetchone()
            shape = snap.synapse_snapshot
        verb = op.split(".")[1]
        assert op.startswith(kind + "."), op
        if verb == "delete":
            assert row is None, f"{op} {target}: the row is still there"
            assert before is not None and after is None
        elif verb == "retire":
            assert row is not None and row["retired_at"] is not None, f"{op} {target}"
        else:
            assert verb in ("add", "update"), op
            assert row is not None, f"{op} {target}: no such row"
            assert verb == "update" or row["retired_at"] is None, f"{op} {target}: retired"
            assert after == shape(dict(row)), f"{op} {target}: snapshot differs from the row"
    conn.close()


def trail_size(t: audit.AuditTrail) -> int:
    return len(t.lifecycle) + len(t.changelog) + len(t.grades)


def entries(t: audit.AuditTrail) -> list[tuple[Any, ...]]:
    """Lifecycle entries as recorded (an undo may only annotate them: ``undone_at``)."""
    return [(e.at, e.state, e.reason, e.actor, e.batch_id) for e in t.lifecycle]


# -- origin never changes ------------------------------------------------------------------


def reject_into_lesson(info: DemoInfo, consulted: list[str], pid: str = "p-lesson") -> Any:
    raw = {
        "id": pid, "skill": "curator", "kind": "note", "params": {},
        "rationale": "merge the two homonyms",
        "consulted": [{"reflection": r, "stance": "support"} for r in consulted],
        "created_at": DEMO_NOW.isoformat(),
    }  # fmt: skip
    with project(info) as p:
        intake.submit(p, [raw], now=T[0])
        return review.decide(
            p, pid, "reject", reason="they differ", decider="alice", now=T[1], scheduler=NOFUZZ
        )


def imported(info: DemoInfo, rid: str) -> None:
    """Log ``rid`` as added through Spikuit, as ``Circuit.add_neuron`` would have."""
    conn = connect(info)
    conn.execute(
        "INSERT INTO changeset VALUES ('cs_000000000001', 'neuron.add', 'system', 'system', "
        "'2026-01-01T00:00:00+00:00', '2026-01-01T00:00:00+00:00', 'committed')"
    )
    conn.execute(
        "INSERT INTO event VALUES ('ev_000000000001', 'cs_000000000001', 0, 'neuron.add', "
        "'neuron', ?, NULL, '{}', '2026-01-01T00:00:00+00:00')",
        (rid,),
    )
    conn.commit()
    conn.close()


@pytest.mark.parametrize("kind", ["pre-existing", "imported", "rejection"])
def test_origin_never_changes_and_the_trail_only_grows(demo: DemoInfo, kind: str) -> None:
    rid = demo.reflection_ids[4]
    if kind == "imported":
        imported(demo, rid)
    elif kind == "rejection":
        rid = reject_into_lesson(demo, demo.reflection_ids[:2]).new_reflection_id
    with project(demo) as p:
        first = audit.trail(p, rid)
    assert first.origin.kind == kind
    steps = [
        ("challenge", "odd", "eve"),
        ("undo", None, "eve"),
        ("invalidate", "bad", "eve"),
        ("undo", None, "eve"),
        ("invalidate", "bad", "eve"),
        ("reinstate", "fine", "root"),
        ("undo", None, "root"),
    ]
    prev = first
    for n, (verb, reason, actor) in enumerate(steps):
        with project(demo) as p:
            if verb == "undo":
                lifecycle.undo_batch(p, actor=actor, now=T[3 + n])
            else:
                lifecycle.run_batch(p, verb, [rid], reason=reason, actor=actor, now=T[3 + n])
            now = audit.trail(p, rid)
        assert now.origin == first.origin, f"origin rewritten by {verb}"
        assert trail_size(now) > trail_size(prev), f"{verb} added nothing to the trail"
        assert entries(now)[: len(prev.lifecycle)] == entries(prev)  # only appended
        assert now.changelog[: len(prev.changelog)] == prev.changelog  # only appended
        prev = now
    ops = [(e.op, e.tag) for e in now.changelog if e.tag and e.tag.startswith("brainview.")]
    assert ops == [
        ("neuron.retire", "brainview.invalidate"), ("neuron.add", "brainview.undo"),
        ("neuron.retire", "brainview.invalidate"), ("neuron.add", "brainview.reinstate"),
        ("neuron.retire", "brainview.undo"),
    ]  # fmt: skip


def test_lifecycle_undo_keeps_the_log_and_its_events_match_the_rows(demo: DemoInfo) -> None:
    rid = demo.reflection_ids[5]
    with project(demo) as p:
        lifecycle.invalidate(p, [rid], reason="bad", actor="eve", now=T[1])
    cs, ev = log_ids(demo)
    with project(demo) as p:
        lifecycle.undo_batch(p, actor="eve", now=T[2])
    cs2, ev2 = log_ids(demo)
    assert cs < cs2 and ev < ev2  # nothing removed, the undo's changeset added
    undone = events(demo, "brainview.undo")
    assert {e[0] for e in undone} == {"neuron.add", "synapse.add"}
    assert_ops_match_rows(demo, undone, agent=True)
    with project(demo) as p:
        lifecycle.invalidate(p, [rid], reason="bad", actor="eve", now=T[3])
        lifecycle.reinstate(p, [rid], actor="eve", now=T[4])
        lifecycle.undo_batch(p, actor="eve", now=T[5])
    again = events(demo, "brainview.undo")[len(undone) :]
    assert {e[0] for e in again} == {"neuron.retire", "synapse.retire"}
    assert_ops_match_rows(demo, again, agent=True)


# -- the rejection lesson's changeset -------------------------------------------------------

_ID = re.compile(r"^(cs|ev)_[0-9a-f]{12}$")


def test_rejection_lesson_is_one_spikuit_changeset(demo: DemoInfo) -> None:
    consulted = demo.reflection_ids[:3]
    res = reject_into_lesson(demo, consulted)
    new = res.new_reflection_id
    conn = connect(demo)
    (cs,) = conn.execute(
        "SELECT id, tag, actor_id, actor_kind, started_at, committed_at, status FROM changeset "
        "WHERE tag = 'brainview:p-lesson'"
    ).fetchall()
    assert _ID.match(cs[0]) and cs[2:] == ("alice", "human", res.decided_at, res.decided_at,
                                           "committed")  # fmt: skip
    rows = conn.execute(
        "SELECT id, seq, op, target_kind, target_id, before_json, after_json, at FROM event "
        "WHERE changeset_id = ? ORDER BY seq",
        (cs[0],),
    ).fetchall()
    links = conn.execute(
        "SELECT * FROM synapse WHERE pre = ? OR post = ? ORDER BY rowid", (new, new)
    ).fetchall()
    card = conn.execute("SELECT COUNT(*) FROM fsrs_state WHERE neuron_id = ?", (new,)).fetchone()
    conn.close()
    assert [r[1] for r in rows] == list(range(len(rows)))
    assert all(_ID.match(r[0]) and r[7] == res.decided_at for r in rows)
    assert rows[0][2:6] == ("neuron.add", "neuron", new, None)
    lesson = json.loads(rows[0][6])
    assert list(lesson) == list(snap.NEURON_FIELDS) and lesson["type"] == "reflection"
    adds = [(r[2], r[3], r[4]) for r in rows[1:]]
    expected = [(a, b) for r in consulted for a, b in ((new, r), (r, new))]
    assert adds == [("synapse.add", "synapse", f"{a}|{b}|relates_to") for a, b in expected]
    assert len(links) == len(expected) and card == (1,)
    assert all(list(json.loads(r[6])) == list(snap.SYNAPSE_FIELDS) for r in rows[1:])
    assert all(r[5] is None for r in rows)
    assert_ops_match_rows(demo, events(demo, "brainview:p-lesson"), agent=True)


def test_undoing_a_rejection_is_exact_and_logged(demo: DemoInfo) -> None:
    before = dump(demo)
    res = reject_into_lesson(demo, demo.reflection_ids[:2])
    forward = events(demo, "brainview:p-lesson")
    cs, ev = log_ids(demo)
    with project(demo) as p:
        review.undo(p, res.decision_id, now=T[2], actor="bob")
    assert dump(demo) == before  # every row back, the lesson, its links and card gone
    cs2, ev2 = log_ids(demo)
    assert cs < cs2 and ev < ev2 and len(cs2) == len(cs) + 1
    assert events(demo, "brainview:p-lesson") == forward  # the decision's log stays
    inverse = events(demo, "brainview:undo:p-lesson")
    assert sorted(e[:3] for e in inverse) == sorted(
        (op.replace(".add", ".delete"), kind, target) for op, kind, target, *_ in forward
    )
    assert inverse[-1][:3] == ("neuron.delete", "neuron", res.new_reflection_id)
    assert_ops_match_rows(demo, inverse, agent=True)


# -- undo logs what it did --------------------------------------------------------------------


def fresh(info: DemoInfo, kind: str) -> str:
    conn = connect(info)
    pids = [
        pid
        for pid, k in conn.execute(
            "SELECT id, kind FROM brainview_proposal WHERE status='pending' ORDER BY id"
        )
        if k == kind and pid not in info.stale_proposal_ids
    ]
    conn.close()
    return pids[0]


@pytest.mark.parametrize("kind", sorted(k for k in USER_KINDS if k != "note"))
def test_user_brain_undo_events_match_the_rows(demo: DemoInfo, kind: str) -> None:
    pid = fresh(demo, kind)
    before = dump(demo, agent=False)
    with project(demo, user=True) as p:
        res = review.decide(p, pid, "accept", decider="alice", now=T[1], scheduler=NOFUZZ,
                            applier=apply.applier_for(p.paths))  # fmt: skip
        review.undo(p, res.decision_id, now=T[2], actor="bob")
    assert dump(demo, agent=False) == before
    logged = events(demo, f"brainview:undo:{pid}", agent=False)
    if not events(demo, f"brainview:{pid}", agent=False):
        assert logged == []  # Spikuit logs no event for a domain rename: neither do we
        return
    assert_ops_match_rows(demo, logged, agent=False)
    if kind == "add_synapse":
        assert {e[0] for e in logged} == {"synapse.delete"}


@pytest.mark.parametrize("kind", ["prune_reflection", "decay_synapses", "summarize_community"])
def test_agent_kind_undo_keeps_the_log_and_events_match_the_rows(demo: DemoInfo, kind: str) -> None:
    root: Path = demo.root
    before = dump(demo)
    with Project.locate(root, write_agent=True) as p:
        plan = consolidate.plan(p, now=T[0], in_process=True)
        k = next(n for n, item in enumerate(plan.items) if item.kind == kind)
        pid = consolidate.queue(p, plan, now=T[0])[k]
        res = review.decide(p, pid, "accept", decider="ann", now=T[1], scheduler=NOFUZZ)
        forward = events(demo, f"brainview:{pid}")
        assert forward
        review.undo(p, res.decision_id, now=T[2], actor="ann")
    assert dump(demo) == before
    assert events(demo, f"brainview:{pid}") == forward
    assert_ops_match_rows(demo, events(demo, f"brainview:undo:{pid}"), agent=True)
