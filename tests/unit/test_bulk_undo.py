"""A bulk decision is one unit: ``review.undo_unit`` and ``brainview proposals undo``
revert every decision of it at once (one transaction), a brain made before
``group_id`` existed gains the column on its next bulk decision, and ``review.undo``
still reverts a single decision."""

from __future__ import annotations

import sqlite3

from test_cli import AUDIT, agent_db, dump, fresh, ok_json, sql, user_db

from brainview.demo.generator import DEMO_NOW
from brainview.services import review
from brainview.services.project import Project

SKIP = AUDIT | {
    "brainview_decision", "brainview_effect", "brainview_grade", "brainview_proposal",
    "changeset", "event",
}  # fmt: skip
"""The audit trail and the append-only change log grow; proposals are compared apart
(their ``version`` goes up on undo)."""


def _statuses(root) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    return sql(agent_db(root), "SELECT id, status FROM brainview_proposal ORDER BY id")


def _bulk(root, ids, verdict="accept"):  # type: ignore[no-untyped-def]
    with Project.locate(root, write_agent=True, write_user=True) as p:
        return review.decide_many(p, ids, verdict, decider="ann", now=DEMO_NOW)


def test_bulk_shares_a_group_and_undo_unit_reverts_it_all(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    before, statuses = dump(agent_db(root), SKIP), _statuses(root)
    ids = fresh(info)[:3]
    results = _bulk(root, ids, "reject")
    groups = {g for (g,) in sql(agent_db(root), "SELECT group_id FROM brainview_decision")}
    assert len(groups) == 1 and None not in groups
    with Project.locate(root, write_agent=True) as p:
        undone = review.undo_unit(p, None, now=DEMO_NOW, actor="ann")
    assert [u.decision_id for u in undone] == [r.decision_id for r in reversed(results)]
    assert dump(agent_db(root), SKIP) == before and _statuses(root) == statuses
    left = sql(agent_db(root), "SELECT COUNT(*) FROM brainview_decision WHERE undone_at IS NULL")
    assert left == [(0,)]


def test_cli_undo_last_reverts_the_whole_applied_bulk(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    before_user = dump(user_db(root), AUDIT | {"changeset", "event"})
    ids = fresh(info)[:3]
    ok_json("proposals", "accept", *ids, "-C", str(root))
    out = ok_json("proposals", "undo", "--last", "-C", str(root))
    assert sorted(d["proposal_id"] for d in out["decisions"]) == sorted(ids)
    assert out["group_id"] and out["proposal_id"] == ids[-1]
    statuses = sql(agent_db(root), "SELECT DISTINCT status FROM brainview_proposal WHERE id IN "
                   f"({','.join('?' * len(ids))})", *ids)  # fmt: skip
    assert statuses == [("pending",)]
    assert dump(user_db(root), AUDIT | {"changeset", "event"}) == before_user
    # Naming any member (by proposal id) after a new bulk also undoes all of it.
    ok_json("proposals", "reject", *ids[:2], "-C", str(root))
    out = ok_json("proposals", "undo", ids[0], "-C", str(root))
    assert len(out["decisions"]) == 2


def test_single_undo_and_an_old_brain_without_group_id(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    ids = fresh(info)[:2]
    conn = sqlite3.connect(agent_db(root))
    conn.execute("DROP INDEX IF EXISTS ix_bv_decision_group")  # as made before schema 4
    conn.execute("ALTER TABLE brainview_decision DROP COLUMN group_id")
    conn.commit()
    conn.close()
    one = _bulk(root, ids[:1])  # a single decision: no group, no migration needed
    with Project.locate(root, write_agent=True, write_user=True) as p:
        assert [u.decision_id for u in review.undo_unit(p, None, now=DEMO_NOW, actor="a")] == [
            one[0].decision_id
        ]
    results = _bulk(root, ids)  # the bulk adds the column
    with Project.locate(root, write_agent=True, write_user=True) as p:
        alone = review.undo(p, None, now=DEMO_NOW, actor="a")  # one decision only
    assert alone.decision_id == results[-1].decision_id
    pending = sql(agent_db(root), "SELECT status FROM brainview_proposal WHERE id = ?", ids[0])
    assert pending == [("accepted",)]
