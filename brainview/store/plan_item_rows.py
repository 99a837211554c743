"""Rows of imported Spikuit consolidation plans (``brainview_plan_item``) and the apply
intents of their items, in the caller's transaction."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, text

from brainview.store.rows import driver


def insert_plan_items(conn: Connection, rows: list[dict[str, Any]]) -> None:
    """Insert items (keys ``p`` proposal id, ``d`` plan digest, ``h`` state hash, ``q``
    seq, ``a`` action, ``j`` item JSON)."""
    conn.execute(
        text(
            "INSERT INTO brainview_plan_item (proposal_id, plan_digest, state_hash, "
            "seq, action, item_json) VALUES (:p, :d, :h, :q, :a, :j)"
        ),
        rows,
    )


def plan_items_of(conn: Connection, ids: Sequence[str]) -> list[tuple[str, str, str]]:
    """``(proposal_id, plan_digest, state_hash)`` of the plan items among ``ids``."""
    raw = driver(conn)
    out: list[tuple[str, str, str]] = []
    for start in range(0, len(ids), 500):
        chunk = list(ids[start : start + 500])
        marks = ",".join("?" * len(chunk))
        out += raw.execute(
            "SELECT proposal_id, plan_digest, state_hash FROM brainview_plan_item "
            f"WHERE proposal_id IN ({marks})",
            chunk,
        ).fetchall()
    return out


def intents_of_plan(conn: Connection, plan_digest: str) -> list[tuple[str, str, str, str]]:
    """``(decision_id, action, changeset_id, plan_json)`` of the apply intents of one
    plan's items, oldest first."""
    rows = conn.execute(
        text(
            "SELECT i.decision_id, i.action, i.changeset_id, i.plan_json "
            "FROM brainview_apply_intent i JOIN brainview_plan_item p "
            "ON p.proposal_id = i.proposal_id WHERE p.plan_digest = :d "
            "ORDER BY i.created_at, i.rowid"
        ),
        {"d": plan_digest},
    ).fetchall()
    return [tuple(r) for r in rows]
