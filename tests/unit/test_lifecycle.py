"""Lifecycle (challenge / invalidate / reinstate / undo) and blast-radius actions on demo
brains, and invalidation of a brain built by the real Spikuit."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from fsrs import Scheduler

from brainview.core import fsrs_math
from brainview.demo.generator import DEMO_NOW, DemoInfo
from brainview.errors import ConflictError, InvalidInputError, NotFoundError
from brainview.services import intake, lifecycle, review
from brainview.services.lifecycle import blast
from brainview.services.project import Project
from tests.eras import to_pre07

T1 = DEMO_NOW + timedelta(hours=1)
T2 = DEMO_NOW + timedelta(hours=2)
T3 = DEMO_NOW + timedelta(hours=3)
COMPARED = ("neuron", "synapse", "changeset", "event", "spike", "fsrs_state", "brainview_proposal")


@pytest.fixture
def demo(make_demo: Any) -> DemoInfo:
    """A fresh copy of the standard demo project."""
    return make_demo()[1]


def db(info: DemoInfo) -> Path:
    return info.root / ".spikuit" / "agent" / "circuit.db"


def rows(info: DemoInfo, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(db(info))
    try:
        return conn.execute(sql, args).fetchall()
    finally:
        conn.close()


def dump(info: DemoInfo, tables: tuple[str, ...] = COMPARED) -> dict[str, list[Any]]:
    conn = sqlite3.connect(db(info))
    names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    out = {
        t: sorted(conn.execute(f"SELECT * FROM {t}").fetchall(), key=repr)
        for t in tables
        if t in names
    }
    conn.close()
    return out


def project(info: DemoInfo) -> Project:
    return Project.locate(info.root, write_agent=True)


def live_synapses(info: DemoInfo, rid: str) -> list[tuple[Any, ...]]:
    return rows(
        info,
        "SELECT pre, post, type FROM synapse WHERE (pre=? OR post=?) AND retired_at IS NULL",
        rid,
        rid,
    )


def test_challenge_flags_only_and_needs_a_reason(demo: DemoInfo) -> None:
    rid = demo.reflection_ids[3]
    before = dump(demo)
    with project(demo) as p:
        with pytest.raises(InvalidInputError, match="reason is required"):
            lifecycle.challenge(p, [rid], reason="  ", actor="alice", now=T1)
        res = lifecycle.challenge(p, [rid], reason="looks planted", actor="alice", now=T1)
        with p.agent.read() as conn:  # type: ignore[union-attr]
            st = lifecycle.statuses(conn, p.agent.era, [rid])[rid]  # type: ignore[union-attr]
    assert res.changed == [(rid, "live", "challenged")]
    assert (st.state, st.reason, st.actor, st.batch_id) == (
        "challenged",
        "looks planted",
        "alice",
        res.batch_id,
    )
    assert dump(demo) == before  # a flag only: no Spikuit row changed
    assert rows(demo, "SELECT state, reason, actor, at, batch_id FROM brainview_lifecycle") == [
        ("challenged", "looks planted", "alice", fsrs_math.format_ts(T1), res.batch_id)
    ]


def test_invalidate_soft_retires_the_spikuit_way(demo: DemoInfo) -> None:
    rid = demo.reflection_ids[5]
    touching = live_synapses(demo, rid)
    assert touching
    with project(demo) as p:
        res = lifecycle.invalidate(p, [rid], reason="poisoned", actor="alice", now=T1)
    stamp = fsrs_math.format_ts(T1)
    assert rows(demo, "SELECT retired_at FROM neuron WHERE id=?", rid) == [(stamp,)]
    assert live_synapses(demo, rid) == []
    retired = rows(
        demo, "SELECT pre, post, type, retired_at FROM synapse WHERE pre=? OR post=?", rid, rid
    )
    assert sorted(r[:3] for r in retired if r[3] == stamp) == sorted(touching)
    assert res.synapses == len(touching)
    # One changeset by a human actor, neuron.retire then synapse.retire per row (as Spikuit).
    (cs,) = rows(demo, "SELECT id, tag, actor_id, actor_kind, status FROM changeset")
    assert cs[1:] == ("brainview.invalidate", "alice", "human", "committed")
    events = rows(
        demo,
        "SELECT op, target_id, before_json, after_json FROM event WHERE changeset_id=? "
        "ORDER BY seq",
        cs[0],
    )
    assert events[0][0:2] == ("neuron.retire", rid) and events[0][3] is None
    assert json.loads(events[0][2])["id"] == rid
    assert sorted(tuple(e[1].split("|")) for e in events[1:]) == sorted(touching)
    assert {e[0] for e in events[1:]} == {"synapse.retire"}
    # Spikuit's own live predicate no longer sees it; the text is kept as a tombstone.
    assert rows(demo, "SELECT COUNT(*) FROM neuron WHERE id=? AND retired_at IS NULL", rid) == [
        (0,)
    ]
    assert rows(demo, "SELECT reflection_id, reason FROM brainview_tombstone") == [
        (rid, "poisoned")
    ]


def test_reinstate_restores_only_what_invalidation_retired(demo: DemoInfo) -> None:
    rid = demo.reflection_ids[7]
    other_pre, other_post, other_type = live_synapses(demo, rid)[0]
    conn = sqlite3.connect(db(demo))
    conn.execute(  # retired by something else, earlier: must stay retired
        "UPDATE synapse SET retired_at='2026-11-01T00:00:00+00:00' "
        "WHERE pre=? AND post=? AND type=?",
        (other_pre, other_post, other_type),
    )
    conn.commit()
    conn.close()
    before = dump(demo, ("neuron", "synapse"))
    with project(demo) as p:
        lifecycle.invalidate(p, [rid], reason="poisoned", actor="alice", now=T1)
        res = lifecycle.reinstate(p, [rid], reason="false alarm", actor="bob", now=T2)
        with p.agent.read() as c:  # type: ignore[union-attr]
            st = lifecycle.statuses(c, p.agent.era, [rid])[rid]  # type: ignore[union-attr]
    assert dump(demo, ("neuron", "synapse")) == before
    assert res.changed == [(rid, "invalidated", "live")] and st.state == "live"
    assert rows(demo, "SELECT lifted_at FROM brainview_tombstone") == [(fsrs_math.format_ts(T2),)]
    assert rows(demo, "SELECT COUNT(*) FROM brainview_tombstone_band") == [(0,)]
    assert [r[0] for r in rows(demo, "SELECT state FROM brainview_lifecycle ORDER BY id")] == [
        "invalidated",
        "live",
    ]


def test_bulk_over_a_community_is_one_batch_and_one_undo_reverts_it(demo: DemoInfo) -> None:
    members = next(iter(demo.themes.values()))
    marks = ",".join("?" * len(members))
    pending = rows(
        demo,
        "SELECT DISTINCT c.proposal_id FROM brainview_consult c JOIN brainview_proposal p ON "
        f"p.id=c.proposal_id WHERE p.status='pending' AND c.reflection_id IN ({marks})",
        *members,
    )
    flags = [r[0] for r in pending]
    assert flags
    before = dump(demo)
    action = blast.BlastAction("invalidate", tuple(members), tuple(flags), "community was planted")
    with project(demo) as p:
        res = blast.apply(p, action, actor="alice", now=T1)
    assert {r for r, _f, _t in res.changed} == set(members) and sorted(res.flagged) == sorted(flags)
    batches = rows(demo, "SELECT DISTINCT batch_id FROM brainview_lifecycle")
    assert batches == [(res.batch_id,)]
    assert rows(demo, "SELECT n_reflections, n_proposals FROM brainview_lifecycle_batch") == [
        (len(members), len(flags))
    ]
    for (susp,) in rows(
        demo, "SELECT suspicion FROM brainview_proposal WHERE suspicion IS NOT NULL"
    ):
        assert {f["kind"] for f in blast.decode_suspicion(susp)} == {"blast"}
    with project(demo) as p:
        undone = lifecycle.undo_batch(p, actor="bob", now=T2)
    assert undone.batch_id == res.batch_id and sorted(undone.reflections) == sorted(members)
    rows_only = tuple(t for t in COMPARED if t not in ("changeset", "event"))
    assert dump(demo, rows_only) == {t: before[t] for t in rows_only}  # exact
    # Spikuit's change log only grows: the invalidation stays, the undo adds its inverse.
    css = rows(demo, "SELECT id, tag, actor_id FROM changeset ORDER BY started_at")
    assert [c[1:] for c in css] == [("brainview.invalidate", "alice"), ("brainview.undo", "bob")]
    ops = [
        [r[0] for r in rows(demo, "SELECT op FROM event WHERE changeset_id=? ORDER BY seq", c[0])]
        for c in css
    ]
    undo_of = {"neuron.retire": "neuron.add", "synapse.retire": "synapse.add"}
    assert sorted(ops[1]) == sorted(undo_of[o] for o in ops[0])
    assert rows(demo, "SELECT COUNT(*) FROM brainview_tombstone") == [(0,)]
    assert rows(
        demo, "SELECT undone_by FROM brainview_lifecycle_batch WHERE id=?", res.batch_id
    ) == [("bob",)]
    # History is kept: the invalidation and the undo both read back.
    states = rows(
        demo,
        "SELECT state, batch_id FROM brainview_lifecycle WHERE reflection_id=? ORDER BY id",
        members[0],
    )
    assert states == [("invalidated", res.batch_id), ("live", undone.undo_batch_id)]
    with project(demo) as p, pytest.raises(ConflictError, match="already undone"):
        lifecycle.undo_batch(p, res.batch_id, actor="bob", now=T3)


def test_undo_refused_when_a_later_batch_touched_the_same_reflection(demo: DemoInfo) -> None:
    rid = demo.reflection_ids[9]
    with project(demo) as p:
        first = lifecycle.invalidate(p, [rid], reason="x", actor="alice", now=T1)
        lifecycle.reinstate(p, [rid], actor="alice", now=T2)
        before = dump(demo)
        with pytest.raises(ConflictError, match="undo that first|changed since"):
            lifecycle.undo_batch(p, first.batch_id, actor="alice", now=T3)
    assert dump(demo) == before


def test_refusals_write_nothing(demo: DemoInfo) -> None:
    rid = demo.reflection_ids[11]
    before = dump(demo)
    with project(demo) as p:
        with pytest.raises(NotFoundError):
            lifecycle.invalidate(p, [rid, "r-nope"], reason="x", actor="alice", now=T1)
        with pytest.raises(InvalidInputError):
            lifecycle.run_batch(p, "explode", [rid], reason="x", actor="alice", now=T1)
        with pytest.raises(InvalidInputError):
            lifecycle.invalidate(p, [rid], reason="x", actor=" ", now=T1)
        with pytest.raises(ConflictError, match="nothing to change"):
            lifecycle.reinstate(p, [rid], actor="alice", now=T1)
        with pytest.raises(NotFoundError, match="nothing|no lifecycle"):
            lifecycle.undo_batch(p, actor="alice", now=T1)
    assert dump(demo) == before
    assert rows(demo, "SELECT COUNT(*) FROM brainview_lifecycle") in ([(0,)], [])


def test_invalidated_is_never_consulted_again_and_challenged_still_is(demo: DemoInfo) -> None:
    bad, doubtful, fine = demo.reflection_ids[12:15]
    made = fsrs_math.format_ts(T1)
    with project(demo) as p:
        lifecycle.challenge(p, [doubtful], reason="check it", actor="alice", now=T1)
        (queued,) = intake.submit(
            p,
            [{"id": "p-1", "kind": "note", "params": {},
              "consulted": [bad, doubtful, fine], "created_at": made}],
            now=T2,
        )  # fmt: skip
        lifecycle.invalidate(p, [bad], reason="planted", actor="alice", now=T2)
        # From now on a proposal leaning on it is refused at intake (docs/curator.md:
        # "never consult those"), consulted or retrieved; nothing is written.
        for where, raw in (
            ("consulted[1].reflection", {"consulted": [fine, bad]}),
            ("retrieved[0]", {"retrieved": [bad]}),
        ):
            with pytest.raises(InvalidInputError) as err:
                intake.submit(p, [{"id": "p-2", "kind": "note", **raw}], now=T2)
            assert err.value.message == f"proposal[0].{where}: reflection {bad} is invalidated"
        res = review.decide(
            p, "p-1", "accept", decider="bob", now=T2, scheduler=Scheduler(enable_fuzzing=False)
        )
    flags = {(f["kind"], f["reflection"]) for f in blast.decode_suspicion(queued.suspicion)}
    assert flags == {("challenged", doubtful)}
    (stored,) = rows(demo, "SELECT suspicion FROM brainview_proposal WHERE id='p-1'")
    assert stored[0] == queued.suspicion
    assert rows(demo, "SELECT COUNT(*) FROM brainview_proposal WHERE id='p-2'") == [(0,)]
    assert [g[0] for g in res.grades] == [doubtful, fine]  # the invalidated one is not graded
    assert (bad, "retired") in res.skipped


def test_a_retired_reflection_is_refused_at_intake_as_the_docs_say(demo: DemoInfo) -> None:
    """docs/proposal-format.md and docs/curator.md: a consulted or retrieved reflection
    that is retired (here by Spikuit's own prune: ``retired_at`` set) is refused, not
    queued with a flag; nothing is written."""
    gone, fine = demo.reflection_ids[20:22]
    conn = sqlite3.connect(demo.root / ".spikuit" / "agent" / "circuit.db")
    conn.execute("UPDATE neuron SET retired_at = ? WHERE id = ?", (fsrs_math.format_ts(T1), gone))
    conn.commit()
    conn.close()
    before = rows(demo, "SELECT COUNT(*) FROM brainview_proposal")
    with project(demo) as p:
        for where, raw in (
            ("consulted[1].reflection", {"consulted": [fine, {"reflection": gone}]}),
            ("retrieved[0]", {"retrieved": [gone]}),
        ):
            with pytest.raises(InvalidInputError) as err:
                intake.submit(p, [{"kind": "note", **raw}], now=T2)
            assert err.value.message == f"proposal[0].{where}: reflection {gone} is retired"
    assert rows(demo, "SELECT COUNT(*) FROM brainview_proposal") == before


def test_pre07_brain_can_challenge_but_not_invalidate(demo: DemoInfo) -> None:
    to_pre07(db(demo))
    rid = demo.reflection_ids[0]
    with project(demo) as p:
        with pytest.raises(ConflictError, match="challenge instead"):
            lifecycle.invalidate(p, [rid], reason="x", actor="alice", now=T1)
        res = lifecycle.challenge(p, [rid], reason="x", actor="alice", now=T1)
    assert res.changed == [(rid, "live", "challenged")]


@pytest.mark.compat
def test_real_spikuit_stops_using_an_invalidated_reflection(tmp_path: Path) -> None:
    from spikuit_core import Circuit

    from tests.compat.spikuit_builder import build_spikuit_project

    built = build_spikuit_project(tmp_path / "proj", hostile=True)
    agent_db = built["agent"]["db_path"]
    rid = built["agent"]["ids"]["all"][0]

    async def stats_and_neuron() -> tuple[dict[str, Any], Any]:
        c = Circuit(db_path=agent_db)
        await c.connect()
        try:
            return await c.stats(), await c.get_neuron(rid)
        finally:
            await c.close()

    stats_before, neuron_before = asyncio.run(stats_and_neuron())
    with Project.locate(tmp_path / "proj", write_agent=True) as p:
        res = lifecycle.invalidate(p, [rid], reason="planted", actor="alice", now=T1)
    stats_after, neuron_after = asyncio.run(stats_and_neuron())
    assert neuron_before is not None and neuron_after is None
    assert stats_after["neurons"] == stats_before["neurons"] - 1
    assert stats_after["synapses"] < stats_before["synapses"] and res.synapses > 0
    with Project.locate(tmp_path / "proj", write_agent=True) as p:
        lifecycle.undo_batch(p, res.batch_id, actor="alice", now=T2)
    assert asyncio.run(stats_and_neuron())[0] == stats_before
