"""The unit one undo reverts: a decision and the rest of its bulk decision."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection

from brainview.errors import NotFoundError
from brainview.store import decision_reads
from brainview.store.bv_schema import ensure_decision_group
from brainview.store.readmodel import table_exists


def group_decisions(conn: Connection, decision_ids: Sequence[str]) -> str | None:
    """Tie the decisions of one bulk decision together, inside its transaction, so one
    undo reverts them all; returns the group id (``None`` for a single decision)."""
    if len(decision_ids) < 2:
        return None
    ensure_decision_group(conn)
    group_id = f"grp-{uuid.uuid4().hex[:12]}"
    decision_reads.set_group(conn, group_id, decision_ids)
    return group_id


def unit_of(conn: Connection, decision_id: str | None = None) -> list[dict[str, Any]]:
    """The decisions one undo reverts, newest first: ``decision_id`` (``None``: the most
    recent decision not undone) and the members of its bulk not undone yet."""
    decision = find_decision(conn, decision_id)
    group_id = decision.get("group_id")
    if not group_id or decision["undone_at"] is not None:
        return [decision]
    return decision_reads.live_group_members(conn, group_id) or [decision]


def find_decision(conn: Connection, decision_id: str | None) -> dict[str, Any]:
    """A decision by id (``None``: the most recent one not undone); NotFoundError
    when there is none."""
    if not table_exists(conn, "brainview_decision"):
        raise NotFoundError("no decisions recorded in this agent brain")
    if decision_id is None:
        row = decision_reads.newest_live_decision(conn)
        if row is None:
            raise NotFoundError("no decision left to undo")
    else:
        row = decision_reads.decision(conn, decision_id)
        if row is None:
            raise NotFoundError(f"no decision {decision_id!r}")
    return row
