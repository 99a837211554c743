"""Agent-brain rows of a streamed apply (``brainview_apply_chunk``): the neuron ids of
each chunk, the move of the plan they belong to, and the digest of their before-images.

Written in the decision's transaction, next to the intent (the caller made the table
with :func:`~brainview.store.bv_schema.ensure_apply_schema`); read back one chunk at a
time by the undo.  Everything runs inside the caller's transaction.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import Connection, text

from brainview.store.readmodel import table_exists


@dataclass(frozen=True)
class Chunk:
    """One stored chunk."""

    seq: int
    move: int
    ids: list[str]
    digest: str


def insert_chunk(
    conn: Connection, changeset_id: str, seq: int, move: int, ids: Sequence[str], digest: str
) -> None:
    """Store one chunk of a streamed plan."""
    conn.execute(
        text(
            "INSERT INTO brainview_apply_chunk (changeset_id, seq, move, ids_json, digest) "
            "VALUES (:cs, :seq, :move, :ids, :digest)"
        ),
        {
            "cs": changeset_id,
            "seq": seq,
            "move": move,
            "ids": json.dumps(list(ids), separators=(",", ":")),
            "digest": digest,
        },
    )


def chunk_count(conn: Connection, changeset_id: str) -> int:
    """How many chunks are stored for this changeset (0 without the table)."""
    if not table_exists(conn, "brainview_apply_chunk"):
        return 0
    found = conn.execute(
        text("SELECT COUNT(*) FROM brainview_apply_chunk WHERE changeset_id = :cs"),
        {"cs": changeset_id},
    ).scalar_one()
    return int(found)


def chunk(conn: Connection, changeset_id: str, seq: int) -> Chunk | None:
    """One stored chunk (``None``: there is no such chunk)."""
    row = conn.execute(
        text(
            "SELECT seq, move, ids_json, digest FROM brainview_apply_chunk "
            "WHERE changeset_id = :cs AND seq = :seq"
        ),
        {"cs": changeset_id, "seq": seq},
    ).first()
    if row is None:
        return None
    return Chunk(int(row[0]), int(row[1]), list(json.loads(row[2])), str(row[3]))
