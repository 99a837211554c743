"""Undoing a lifecycle batch exactly: every row it changed gets its before-image back,
and the undo is recorded as a batch of its own."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection

import brainview.services.audit.agent_log as agent_log
from brainview.core import fsrs_math
from brainview.errors import ConflictError, NotFoundError
from brainview.services import text_guard
from brainview.services.lifecycle.states import LIVE
from brainview.services.project import Project
from brainview.store import lifecycle_log
from brainview.store.bv_schema_lifecycle import BatchLog, ensure_lifecycle_schema, revert


@dataclass(frozen=True)
class UndoBatchResult:
    """What undoing a batch reverted."""

    batch_id: str
    undo_batch_id: str
    action: str
    reflections: list[str]
    rows_restored: int
    at: str


def undo_batch(
    project: Project, batch_id: str | None = None, *, actor: str, now: datetime
) -> UndoBatchResult:
    """Revert a whole batch exactly (``None``: the most recent one not undone yet)."""
    text_guard.name("actor", actor)
    agent = project.require_agent()
    at = fsrs_math.format_ts(now)
    undo_id = f"lcb-{uuid.uuid4().hex[:12]}"
    with agent.write() as conn:
        ensure_lifecycle_schema(conn)
        batch = _find_batch(conn, batch_id)
        bid = str(batch["id"])
        if batch["action"] == "undo":
            raise ConflictError(f"{bid} is itself an undo; do the action again instead")
        if batch["undone_at"] is not None:
            raise ConflictError(
                f"{bid} was already undone at {batch['undone_at']} by {batch['undone_by']}"
            )
        previous = _previous_states(conn, bid)
        reverted = revert(conn, bid)
        log = BatchLog(conn, undo_id)
        agent_log.log_lifecycle_undo(log, agent.era, bid, reverted, actor=actor, at=at)
        log.flush()
        why = f"undo of {bid}"
        moves = list(previous.items())
        lifecycle_log.record_moves(conn, undo_id, moves, why=why, actor=actor, at=at)
        lifecycle_log.insert_batch(
            conn, undo_id, "undo", actor=actor, at=at, why=why,
            n_reflections=len(previous), n_proposals=0, undoes=bid,
        )  # fmt: skip
        lifecycle_log.mark_batch_undone(conn, bid, at=at, by=actor)
    return UndoBatchResult(bid, undo_id, str(batch["action"]), list(previous), len(reverted), at)


def _find_batch(conn: Connection, batch_id: str | None) -> dict[str, Any]:
    if batch_id is None:
        row = lifecycle_log.newest_undoable_batch(conn)
        if row is None:
            raise NotFoundError("no lifecycle action left to undo")
        return row
    row = lifecycle_log.batch(conn, batch_id)
    if row is None:
        raise NotFoundError(f"no lifecycle batch {batch_id!r}")
    return row


def _previous_states(conn: Connection, batch_id: str) -> dict[str, str]:
    """Each reflection's state before the batch; refuses if a later batch moved one."""
    out: dict[str, str] = {}
    for row_id, rid in lifecycle_log.batch_moves(conn, batch_id):
        later = lifecycle_log.moved_after(conn, rid, row_id)
        if later is not None:
            raise ConflictError(
                f"cannot undo {batch_id}: {rid} was changed since by {later}; undo that first"
            )
        out[rid] = lifecycle_log.state_before(conn, rid, row_id) or LIVE
    return out
