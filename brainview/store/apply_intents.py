"""Agent-brain rows of the crash-safe apply: ``brainview_apply_intent`` and the
decision columns the apply moves (``apply_state``, ``undone_at``/``undone_by``).

An intent is written *before* its user-brain change is made and closed after it
(:mod:`brainview.services.apply.intent` says what the states mean).  Everything here
runs inside the caller's transaction (nothing opens or commits one); rows come back
as plain tuples in :data:`INTENT_COLUMNS` order, ``owner`` last.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Connection, text

from brainview.store.bv_schema import ensure_intent_owner, intent_has_owner
from brainview.store.readmodel import table_exists

INTENT_COLUMNS = (
    "id",
    "decision_id",
    "proposal_id",
    "action",
    "changeset_id",
    "tag",
    "actor",
    "planned_at",
    "plan_json",
    "state",
    "created_at",
    "finished_at",
    "note",
    "batch_id",
    "owner",
)
"""The columns of an intent row as the functions here read and write them."""

_COLS = (
    "id, decision_id, proposal_id, action, changeset_id, tag, actor, planned_at, "
    "plan_json, state, created_at, finished_at, note, batch_id"
)
_OWNER = ", owner"
"""Schema 5 (read as ``NULL`` from tables without it)."""


def insert_intent(conn: Connection, values: Mapping[str, Any]) -> None:
    """Insert one intent row (``values`` keyed by :data:`INTENT_COLUMNS`), adding the
    ``owner`` column first where an older brainview made the table without it."""
    ensure_intent_owner(conn)
    conn.execute(
        text(
            f"INSERT INTO brainview_apply_intent ({_COLS}{_OWNER}) VALUES (:id, :decision_id, "
            ":proposal_id, :action, :changeset_id, :tag, :actor, :planned_at, :plan_json, "
            ":state, :created_at, :finished_at, :note, :batch_id, :owner)"
        ),
        dict(values),
    )


def _select(conn: Connection, where: str, args: dict[str, object]) -> list[Sequence[Any]]:
    if not table_exists(conn, "brainview_apply_intent"):
        return []
    own = _OWNER if intent_has_owner(conn) else ", NULL"
    rows = conn.execute(
        text(
            f"SELECT {_COLS}{own} FROM brainview_apply_intent WHERE {where} "
            "ORDER BY created_at, rowid"
        ),
        args,
    )
    return [tuple(r) for r in rows]


def pending_intent_rows(conn: Connection) -> list[Sequence[Any]]:
    """Every intent still ``pending``, oldest first (none without the table)."""
    return _select(conn, "state = 'pending'", {})


def decision_intent_rows(conn: Connection, decision_id: str, action: str) -> list[Sequence[Any]]:
    """Every intent of one action (``apply``/``revert``) for a decision, oldest first."""
    return _select(conn, "decision_id = :d AND action = :a", {"d": decision_id, "a": action})


def pending_batch_rows(conn: Connection, batch_id: str) -> list[Sequence[Any]]:
    """The ``pending`` intents of one batch, oldest first."""
    return _select(conn, "batch_id = :b AND state = 'pending'", {"b": batch_id})


def intent_state(conn: Connection, intent_id: str) -> str | None:
    """One intent's ``state`` (``None``: no such intent)."""
    row = conn.execute(
        text("SELECT state FROM brainview_apply_intent WHERE id = :id"), {"id": intent_id}
    ).first()
    return str(row[0]) if row else None


def close_intent(
    conn: Connection, intent_id: str, state: str, at: str, note: str | None = None
) -> None:
    """Move a ``pending`` intent to ``state`` (an intent already closed stays as it is)."""
    conn.execute(
        text(
            "UPDATE brainview_apply_intent SET state = :s, finished_at = :at, note = :n "
            "WHERE id = :id AND state = 'pending'"
        ),
        {"s": state, "at": at, "n": note, "id": intent_id},
    )


def set_decision_apply_state(conn: Connection, decision_id: str, state: str) -> None:
    """Set ``brainview_decision.apply_state``."""
    conn.execute(
        text("UPDATE brainview_decision SET apply_state = :s WHERE id = :id"),
        {"s": state, "id": decision_id},
    )


def mark_decision_undone(conn: Connection, decision_id: str, at: str, by: str) -> None:
    """Set a decision's ``undone_at``/``undone_by`` (its agent-brain half reverted)."""
    conn.execute(
        text("UPDATE brainview_decision SET undone_at = :at, undone_by = :by WHERE id = :id"),
        {"at": at, "by": by, "id": decision_id},
    )


def clear_decision_undone(conn: Connection, decision_id: str) -> None:
    """Clear a decision's ``undone_at``/``undone_by`` (its agent-brain half re-done)."""
    conn.execute(
        text("UPDATE brainview_decision SET undone_at = NULL, undone_by = NULL WHERE id = :id"),
        {"id": decision_id},
    )
