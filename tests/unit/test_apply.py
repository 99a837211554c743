"""Accepting a proposal applies it to the user brain: preview = apply, change log,
stale refusal, dismiss, record-only mode, eras, batches (demo brains, frozen now)."""

from __future__ import annotations

import json
import sqlite3
from datetime import timedelta
from typing import Any

import pytest
from fsrs import Scheduler

from brainview.core import fsrs_math
from brainview.core.kinds import USER_KINDS as ALL_KINDS
from brainview.demo.generator import DEMO_NOW, DemoInfo
from brainview.errors import ConflictError, LockedError, ReadOnlyError
from brainview.services import apply, review
from brainview.services.apply import hooks
from brainview.services.apply import intent as intents
from brainview.services.apply.snapshots import NEURON_FIELDS, SYNAPSE_FIELDS
from brainview.services.project import Project
from brainview.services.review import detail
from tests.eras import to_09, to_pre07

NOW = DEMO_NOW + timedelta(minutes=10)
NOFUZZ = Scheduler(enable_fuzzing=False)
AUDIT = {"brainview_decision", "brainview_effect", "brainview_grade", "brainview_apply_intent"}
KEYS = {
    "neuron": ("id",),
    "synapse": ("pre", "post", "type"),
    "neuron_predecessor": ("child_id", "parent_id"),
    "neuron_source": ("neuron_id", "source_id"),
}


@pytest.fixture
def demo(make_demo: Any) -> DemoInfo:
    _root, info = make_demo()
    return info


def user_db(info: DemoInfo) -> sqlite3.Connection:
    conn = sqlite3.connect(info.root / ".spikuit" / "circuit.db", isolation_level=None)
    conn.row_factory = sqlite3.Row
    return conn


def agent_db(info: DemoInfo) -> sqlite3.Connection:
    conn = sqlite3.connect(info.root / ".spikuit" / "agent" / "circuit.db", isolation_level=None)
    conn.row_factory = sqlite3.Row
    return conn


def dump(conn: sqlite3.Connection, skip: set[str]) -> dict[str, list[tuple[Any, ...]]]:
    names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
    out = {
        n: sorted((tuple(r) for r in conn.execute(f"SELECT * FROM {n}")), key=repr)
        for n in sorted(names)
        if n not in skip
    }
    conn.close()
    return out


def brains(info: DemoInfo) -> tuple[dict[str, Any], dict[str, Any]]:
    """(user brain minus its change log, agent brain minus brainview's audit tables)."""
    return dump(user_db(info), {"changeset", "event"}), dump(agent_db(info), AUDIT)


def fresh_by_kind(info: DemoInfo) -> dict[str, str]:
    conn = agent_db(info)
    out: dict[str, str] = {}
    for pid, kind in conn.execute(
        "SELECT id, kind FROM brainview_proposal WHERE status = 'pending' ORDER BY id"
    ):
        if pid not in info.stale_proposal_ids:
            out.setdefault(kind, pid)
    conn.close()
    return out


def open_project(info: DemoInfo, *, user: bool = True) -> Project:
    return Project.locate(info.root, write_agent=True, write_user=user)


def accept(info: DemoInfo, pid: str | list[str], **kw: Any) -> list[review.DecisionResult]:
    with open_project(info) as p:
        kw.setdefault("applier", apply.applier_for(p.paths))
        ids = [pid] if isinstance(pid, str) else pid
        return review.decide_many(
            p, ids, "accept", decider="alice", now=NOW, scheduler=NOFUZZ, **kw
        )


def row_of(conn: sqlite3.Connection, table: str, key: tuple[Any, ...]) -> dict[str, Any] | None:
    cols = " AND ".join(f"{c} = ?" for c in KEYS[table])
    found = conn.execute(f"SELECT * FROM {table} WHERE {cols}", key).fetchone()
    return dict(found) if found else None


# -- every kind ----------------------------------------------------------------------------

KINDS = [k for k in ALL_KINDS if k != "note"]  # note applies nothing


@pytest.mark.parametrize("kind", KINDS)
def test_each_kind_applies_exactly_its_preview(demo: DemoInfo, kind: str) -> None:
    pid = fresh_by_kind(demo)[kind]
    with Project.locate(demo.root) as p:
        shown = detail.load(p, pid, NOW)
    assert shown.stale is None and shown.plan is not None and shown.preview
    (result,) = accept(demo, pid)
    assert result.apply_state == "applied"
    conn = user_db(demo)
    for change in shown.plan.changes:  # what was shown is what the rows now hold
        assert row_of(conn, change.table, change.key) == change.after
    cs = conn.execute("SELECT * FROM changeset WHERE tag = ?", (f"brainview:{pid}",)).fetchall()
    assert [(c["actor_kind"], c["actor_id"], c["status"]) for c in cs] == [
        ("human", "alice", "committed")
    ]
    logged = conn.execute(
        "SELECT seq, op, target_kind, target_id, before_json, after_json, at FROM event "
        "WHERE changeset_id = ? ORDER BY seq",
        (cs[0]["id"],),
    ).fetchall()
    assert [(e["op"], e["target_id"]) for e in logged] == [
        (e.op, e.target_id) for e in shown.plan.events
    ]
    assert all(e["at"] == fsrs_math.format_ts(NOW) for e in logged)
    for e in logged:  # Spikuit's snapshot shapes
        fields = NEURON_FIELDS if e["target_kind"] == "neuron" else SYNAPSE_FIELDS
        for blob in (e["before_json"], e["after_json"]):
            if blob and not (e["op"] == "neuron.merge" and blob == e["after_json"]):
                assert tuple(json.loads(blob)) == fields
    conn.close()
    with agent_db(demo) as a:
        state = a.execute(
            "SELECT state FROM brainview_apply_intent WHERE decision_id = ?",
            (result.decision_id,),
        ).fetchone()[0]
    assert state == "done"


def test_merge_soft_retires_and_records_lineage(demo: DemoInfo) -> None:
    pid = fresh_by_kind(demo)["merge_neurons"]
    with agent_db(demo) as a:
        params = json.loads(
            a.execute("SELECT params_json FROM brainview_proposal WHERE id=?", (pid,)).fetchone()[0]
        )
    before = user_db(demo).execute("SELECT COUNT(*) FROM neuron").fetchone()[0]
    accept(demo, pid)
    conn = user_db(demo)
    assert conn.execute("SELECT COUNT(*) FROM neuron").fetchone()[0] == before  # nothing deleted
    (gone,) = params["merge"]
    assert conn.execute("SELECT retired_at FROM neuron WHERE id=?", (gone,)).fetchone()[0]
    assert (
        conn.execute(
            "SELECT COUNT(*) FROM synapse WHERE (pre=? OR post=?) AND retired_at IS NULL",
            (gone, gone),
        ).fetchone()[0]
        == 0
    )
    assert (
        conn.execute(
            "SELECT COUNT(*) FROM neuron_predecessor WHERE child_id=? AND parent_id=?",
            (params["keep"], gone),
        ).fetchone()[0]
        == 1
    )
    keep = conn.execute("SELECT content FROM neuron WHERE id=?", (params["keep"],)).fetchone()[0]
    assert "\n\n---\n\n" in keep
    conn.close()


def test_note_applies_nothing_and_is_marked_applied(demo: DemoInfo) -> None:
    pid = fresh_by_kind(demo)["note"]
    user_before, _ = brains(demo)
    (result,) = accept(demo, pid)
    assert result.apply_state == "applied"
    assert brains(demo)[0] == user_before
    assert (
        user_db(demo)
        .execute("SELECT COUNT(*) FROM changeset WHERE tag LIKE 'brainview:%'")
        .fetchone()[0]
        == 0
    )


# -- stale, dismiss --------------------------------------------------------------------------


def test_stale_proposal_cannot_be_accepted_and_nothing_is_written(demo: DemoInfo) -> None:
    pid = demo.stale_proposal_ids[0]
    snapshot = brains(demo)
    for applier in (True, False):
        with open_project(demo) as p, pytest.raises(ConflictError, match=r"is stale \(neuron"):
            review.decide(
                p,
                pid,
                "accept",
                decider="alice",
                now=NOW,
                applier=apply.applier_for(p.paths) if applier else None,
            )
    assert brains(demo) == snapshot
    with open_project(demo) as p:
        rejected = review.decide(p, pid, "reject", reason="stale", decider="alice", now=NOW)
    assert rejected.verdict == "reject"


def test_dismiss_records_no_grades_and_is_undoable(demo: DemoInfo) -> None:
    pid = demo.stale_proposal_ids[1]
    snapshot = brains(demo)
    with open_project(demo) as p:
        result = review.dismiss(p, pid, decider="alice", now=NOW)
    assert result.verdict == "dismiss" and result.grades == [] and result.stdp == []
    assert result.new_reflection_id is None
    conn = agent_db(demo)
    status = conn.execute("SELECT status FROM brainview_proposal WHERE id=?", (pid,)).fetchone()
    reason = conn.execute("SELECT reason FROM brainview_decision WHERE id=?", (result.decision_id,))
    assert status[0] == "dismissed" and reason.fetchone()[0].startswith("stale: neuron")
    assert conn.execute("SELECT COUNT(*) FROM brainview_grade").fetchone()[0] == 0
    conn.close()
    with open_project(demo) as p:
        review.undo(p, result.decision_id, now=NOW, actor="alice")
    user, agent = brains(demo)

    def without_version(d: dict[str, Any]) -> dict[str, Any]:
        return {k: [r[:-1] for r in v] if k == "brainview_proposal" else v for k, v in d.items()}

    assert user == snapshot[0] and without_version(agent) == without_version(snapshot[1])
    with open_project(demo) as p:
        again = review.dismiss(p, pid, "not worth it", decider="bob", now=NOW)
        with pytest.raises(ConflictError, match=r"already decided \(dismissed by bob"):
            review.dismiss(p, pid, decider="bob", now=NOW)
    assert again.verdict == "dismiss"


def test_proposal_that_no_longer_fits_is_shown_stale_with_the_planner_reason(
    demo: DemoInfo,
) -> None:
    pid = fresh_by_kind(demo)["add_synapse"]
    with agent_db(demo) as a:
        p = json.loads(
            a.execute("SELECT params_json FROM brainview_proposal WHERE id=?", (pid,)).fetchone()[0]
        )
    conn = user_db(demo)
    conn.execute(
        "INSERT INTO synapse (pre, post, type, weight, co_fires, created_at, updated_at) "
        "VALUES (?, ?, ?, 0.5, 0, ?, ?)",
        (p["pre"], p["post"], p["type"], "2026-01-01T00:00:00+00:00", "2026-01-01T00:00:00+00:00"),
    )
    conn.close()
    with Project.locate(demo.root) as proj:
        shown = detail.load(proj, pid, NOW)
    assert shown.stale and "already exists" in shown.stale and shown.preview == []
    with pytest.raises(ConflictError, match="already exists"):
        accept(demo, pid)


# -- modes, eras, access ----------------------------------------------------------------------


def test_record_only_mode_records_and_grades_only(demo: DemoInfo) -> None:
    paths = open_project(demo, user=False).paths
    assert apply.apply_mode(paths) == apply.MODE_APPLY
    paths.config_path.write_text("[review]\nrecord_only = true\n")
    assert apply.apply_mode(paths) == apply.MODE_RECORD_ONLY
    assert apply.applier_for(paths) is None
    pid = fresh_by_kind(demo)["retire_neuron"]
    user_before, _ = brains(demo)
    with open_project(demo, user=False) as p:
        result = review.decide(
            p, pid, "accept", decider="a", now=NOW, applier=apply.applier_for(p.paths)
        )
    assert result.apply_state == "recorded" and result.grades
    assert brains(demo)[0] == user_before


def test_pre_07_brain_refuses_apply_clearly(demo: DemoInfo) -> None:
    to_pre07(demo.root / ".spikuit" / "circuit.db")
    paths = open_project(demo, user=False).paths
    assert apply.apply_mode(paths) == apply.MODE_UNSUPPORTED
    pid = fresh_by_kind(demo)["note"]
    snapshot = brains(demo)
    with pytest.raises(ConflictError, match="predates Spikuit 0.7"):
        accept(demo, pid)
    assert brains(demo) == snapshot


def test_read_only_user_brain_is_refused_before_writing(demo: DemoInfo) -> None:
    pid = fresh_by_kind(demo)["retire_neuron"]
    snapshot = brains(demo)
    with open_project(demo, user=False) as p, pytest.raises(ReadOnlyError, match="record_only"):
        review.decide(p, pid, "accept", decider="a", now=NOW, applier=apply.UserBrainApplier())
    assert brains(demo) == snapshot


# -- batches and races ---------------------------------------------------------------------


def test_batch_plans_see_earlier_changes_and_apply_in_one_go(demo: DemoInfo) -> None:
    kinds = fresh_by_kind(demo)
    ids = [kinds["set_domain"], kinds["rename_domain"], kinds["retire_neuron"]]
    results = accept(demo, ids)
    assert [r.apply_state for r in results] == ["applied"] * 3
    conn = agent_db(demo)
    batches = {r[0] for r in conn.execute("SELECT batch_id FROM brainview_apply_intent").fetchall()}
    assert len(batches) == 1
    conn.close()


def test_batch_with_an_impossible_second_proposal_writes_nothing(demo: DemoInfo) -> None:
    pid = fresh_by_kind(demo)["retire_neuron"]
    with agent_db(demo) as a:
        row = a.execute("SELECT * FROM brainview_proposal WHERE id=?", (pid,)).fetchone()
        twin = dict(row) | {"id": "prop-twin", "version": 0}
        a.execute(
            f"INSERT INTO brainview_proposal ({', '.join(twin)}) VALUES "
            f"({', '.join('?' * len(twin))})",
            tuple(twin.values()),
        )
    snapshot = brains(demo)
    with pytest.raises(ConflictError, match="was retired"):
        accept(demo, [pid, "prop-twin"])
    assert brains(demo) == snapshot


def test_user_brain_changed_after_the_decision_rolls_the_decision_back(demo: DemoInfo) -> None:
    pid = fresh_by_kind(demo)["edit_content"]
    with agent_db(demo) as a:
        nid = json.loads(
            a.execute("SELECT params_json FROM brainview_proposal WHERE id=?", (pid,)).fetchone()[0]
        )["neuron"]
    _user, agent_before = brains(demo)

    def meddle(step: str) -> None:
        if step == "decision.committed":
            with user_db(demo) as u:
                u.execute("UPDATE neuron SET content = 'spkt edit' WHERE id = ?", (nid,))

    hooks.set_step_hook(meddle)
    try:
        with pytest.raises(ConflictError, match="rolled back"):
            accept(demo, pid)
    finally:
        hooks.set_step_hook(None)
    user_after, agent_after = brains(demo)
    proposals = lambda d: [r[:-1] for r in d["brainview_proposal"]]  # noqa: E731
    assert proposals(agent_after) == proposals(agent_before)
    assert {k: v for k, v in agent_after.items() if k != "brainview_proposal"} == {
        k: v for k, v in agent_before.items() if k != "brainview_proposal"
    }
    conn = agent_db(demo)
    state = conn.execute("SELECT state, note FROM brainview_apply_intent").fetchone()
    decision = conn.execute("SELECT apply_state, undone_by FROM brainview_decision").fetchone()
    conn.close()
    assert state[0] == intents.ROLLED_BACK and "changed" in state[1]
    assert tuple(decision) == ("rolled_back", "brainview (rollback)")
    assert (
        user_db(demo)
        .execute("SELECT COUNT(*) FROM changeset WHERE tag LIKE 'brainview:%'")
        .fetchone()[0]
        == 0
    )


def test_busy_user_brain_leaves_the_change_for_recover(
    demo: DemoInfo, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BRAINVIEW_BUSY_TIMEOUT", "0.2")
    pid = fresh_by_kind(demo)["retire_neuron"]
    nid = json.loads(
        agent_db(demo)
        .execute("SELECT params_json FROM brainview_proposal WHERE id=?", (pid,))
        .fetchone()[0]
    )["neuron"]
    held: list[sqlite3.Connection] = []

    def hold_the_user_brain(step: str) -> None:  # spkt is writing meanwhile
        if step == "decision.committed":
            held.append(user_db(demo))
            held[0].execute("BEGIN IMMEDIATE")

    hooks.set_step_hook(hold_the_user_brain)
    try:
        with pytest.raises(LockedError, match="finished on the next start"):
            accept(demo, pid)
    finally:
        hooks.set_step_hook(None)
        held[0].rollback()
        held[0].close()
    retired = "SELECT retired_at FROM neuron WHERE id = ?"
    assert user_db(demo).execute(retired, (nid,)).fetchone()[0] is None
    with open_project(demo) as p:
        assert apply.open_intents(p) == 1
        outcomes = apply.recover(p, now=NOW)
        assert [(o.proposal_id, o.state) for o in outcomes] == [(pid, "done")]
        assert apply.open_intents(p) == 0 and apply.recover(p, now=NOW) == []
    assert user_db(demo).execute(retired, (nid,)).fetchone()[0] == fsrs_math.format_ts(NOW)


def test_spikuit_09_brain_applies_too(demo: DemoInfo) -> None:
    to_09(demo.root / ".spikuit" / "circuit.db", overlay=True)
    pid = fresh_by_kind(demo)["merge_neurons"]
    (result,) = accept(demo, pid)
    assert result.apply_state == "applied"
    with Project.locate(demo.root) as p:
        assert p.user.era.name == "0.9"
        assert apply.apply_mode(p.paths) == apply.MODE_APPLY
