"""Reads and writes of the reflection lifecycle log (``brainview_lifecycle``, one row
per reflection moved, and ``brainview_lifecycle_batch``, one row per bulk action).

Called by :mod:`brainview.services.lifecycle` inside the transaction it opened; the
schema itself is :mod:`brainview.store.bv_schema_lifecycle`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, text

from brainview.store.readmodel import table_exists
from brainview.store.rows import driver, select_in

LatestState = tuple[str, str, str, str, str | None]
"""``(state, reason, actor, at, batch_id)`` of a reflection's last lifecycle row."""


def latest_states(conn: Connection, ids: Sequence[str]) -> dict[str, LatestState]:
    """Each of ``ids`` that has a lifecycle row → its last one (chunked ``IN`` lists,
    so any number of ids costs a constant number of queries per 400)."""
    if not ids or not table_exists(conn, "brainview_lifecycle"):
        return {}
    sql = (
        "SELECT reflection_id, state, reason, actor, at, batch_id FROM brainview_lifecycle "
        "WHERE reflection_id IN ({marks}) ORDER BY id"
    )
    out: dict[str, LatestState] = {}
    for rid, state, reason, actor, at, batch in select_in(driver(conn), sql, ids):
        out[rid] = (state, reason, actor, at, batch)
    return out


def neuron_text(conn: Connection, neuron_id: str) -> tuple[str, str | None]:
    """``(content, domain)`` of one neuron that exists (content ``""`` when null)."""
    row = conn.execute(
        text("SELECT content, domain FROM neuron WHERE id = :r"), {"r": neuron_id}
    ).one()
    return str(row[0] or ""), row[1]


def record_moves(
    conn: Connection,
    batch_id: str,
    moves: Sequence[tuple[str, str]],
    *,
    why: str,
    actor: str,
    at: str,
) -> None:
    """One ``brainview_lifecycle`` row per ``(reflection_id, new state)``."""
    if not moves:
        return
    conn.execute(
        text(
            "INSERT INTO brainview_lifecycle (reflection_id, state, reason, actor, at, "
            "batch_id) VALUES (:r, :s, :why, :actor, :at, :b)"
        ),
        [{"r": r, "s": s, "why": why, "actor": actor, "at": at, "b": batch_id} for r, s in moves],
    )


def insert_batch(
    conn: Connection,
    batch_id: str,
    action: str,
    *,
    actor: str,
    at: str,
    why: str,
    n_reflections: int,
    n_proposals: int,
    undoes: str | None = None,
) -> None:
    """The ``brainview_lifecycle_batch`` row of one bulk action (or of its undo)."""
    conn.execute(
        text(
            "INSERT INTO brainview_lifecycle_batch (id, action, actor, at, reason, "
            "n_reflections, n_proposals, undoes) VALUES (:id, :a, :actor, :at, :why, :nr, :np, :u)"
        ),
        {"id": batch_id, "a": action, "actor": actor, "at": at, "why": why}
        | {"nr": n_reflections, "np": n_proposals, "u": undoes},
    )


def mark_batch_undone(conn: Connection, batch_id: str, *, at: str, by: str) -> None:
    """Stamp a batch undone."""
    conn.execute(
        text("UPDATE brainview_lifecycle_batch SET undone_at = :at, undone_by = :by WHERE id = :i"),
        {"at": at, "by": by, "i": batch_id},
    )


def newest_undoable_batch(conn: Connection) -> dict[str, Any] | None:
    """The most recent batch that is neither undone nor itself an undo."""
    row = (
        conn.execute(
            text(
                "SELECT * FROM brainview_lifecycle_batch WHERE undone_at IS NULL "
                "AND action != 'undo' ORDER BY at DESC, rowid DESC LIMIT 1"
            )
        )
        .mappings()
        .first()
    )
    return None if row is None else dict(row)


def batch(conn: Connection, batch_id: str) -> dict[str, Any] | None:
    """One batch row by id."""
    row = (
        conn.execute(
            text("SELECT * FROM brainview_lifecycle_batch WHERE id = :id"), {"id": batch_id}
        )
        .mappings()
        .first()
    )
    return None if row is None else dict(row)


def batch_moves(conn: Connection, batch_id: str) -> list[tuple[int, str]]:
    """``(row id, reflection_id)`` of every move a batch recorded, in order."""
    rows = conn.execute(
        text("SELECT id, reflection_id FROM brainview_lifecycle WHERE batch_id = :b ORDER BY id"),
        {"b": batch_id},
    ).fetchall()
    return [(int(i), str(r)) for i, r in rows]


def moved_after(conn: Connection, reflection_id: str, row_id: int) -> str | None:
    """The batch of the first move of ``reflection_id`` after log row ``row_id``."""
    row = conn.execute(
        text(
            "SELECT batch_id FROM brainview_lifecycle WHERE reflection_id = :r AND id > :i "
            "ORDER BY id LIMIT 1"
        ),
        {"r": reflection_id, "i": row_id},
    ).first()
    return None if row is None else str(row[0])


def state_before(conn: Connection, reflection_id: str, row_id: int) -> str | None:
    """The state ``reflection_id`` was moved to last before log row ``row_id``."""
    row = conn.execute(
        text(
            "SELECT state FROM brainview_lifecycle WHERE reflection_id = :r AND id < :i "
            "ORDER BY id DESC LIMIT 1"
        ),
        {"r": reflection_id, "i": row_id},
    ).first()
    return None if row is None else str(row[0])
