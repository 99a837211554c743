"""Undoing a decision: replay its effect log backwards, in one transaction.

Exactness over convenience: every row the decision touched must still look the way
the decision left it (its after-image); if anything changed it since — another
decision, the curator firing a reflection, an edit — the undo is refused with a
:class:`~brainview.errors.ConflictError` and nothing is written.

Two deliberate exceptions to "restore the before-image":

* ``brainview_proposal``: the row is restored, but ``version`` goes *up* by one
  (to after-version + 1) instead of back, so anyone caching the proposal by version
  sees that something happened.  ``status`` is ``pending`` again.
* ``sqlite_sequence``: the AUTOINCREMENT counter is restored only if nobody inserted
  a spike since (it still holds the decision's value); otherwise it is left alone —
  it is a counter, not data, and SQLite never reuses an id below it anyway.

The ``brainview_decision`` row stays (with ``undone_at`` / ``undone_by``), as do its
``brainview_effect`` rows; its ``brainview_grade`` rows are deleted with the spikes
they point to.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, text

from brainview.core import fsrs_math
from brainview.errors import ConflictError, NotFoundError
from brainview.services.project import Project
from brainview.store.brain_check import translate_sqlite
from brainview.store.readmodel import table_exists
from brainview.store.writers import (
    Effect,
    delete_row,
    fetch_row,
    insert_row,
    restore_row,
    stored_effects,
)

UNDOABLE_APPLY_STATES = frozenset({"recorded"})
"""Decisions whose user-brain side is nothing brainview must revert."""


@dataclass(frozen=True)
class UndoResult:
    """What an undo reverted."""

    decision_id: str
    proposal_id: str
    verdict: str
    rows_restored: int
    undone_at: str


def undo(
    project: Project, decision_id: str | None = None, *, now: datetime, actor: str
) -> UndoResult:
    """Revert a decision exactly (``None``: the most recent one not undone yet)."""
    agent = project.require_agent()
    with agent.write() as conn:
        decision = _find(conn, decision_id)
        did = str(decision["id"])
        if decision["undone_at"] is not None:
            raise ConflictError(
                f"decision {did} was already undone at {decision['undone_at']} "
                f"by {decision['undone_by']}"
            )
        if decision["apply_state"] not in UNDOABLE_APPLY_STATES:
            raise ConflictError(
                f"decision {did} was applied to the user brain "
                f"(apply_state={decision['apply_state']}); it cannot be undone here"
            )
        try:
            effects = stored_effects(conn, did)
            for effect in effects:
                _check(conn, did, effect)
            for effect in reversed(effects):
                _revert(conn, effect)
        except sqlite3.Error as err:  # raw driver statements: translate, then roll back
            raise translate_sqlite(err, agent.path) from None
        undone_at = fsrs_math.format_ts(now)
        conn.execute(
            text("UPDATE brainview_decision SET undone_at = :at, undone_by = :by WHERE id = :id"),
            {"at": undone_at, "by": actor, "id": did},
        )
    return UndoResult(
        did, str(decision["proposal_id"]), str(decision["verdict"]), len(effects), undone_at
    )


def _find(conn: Connection, decision_id: str | None) -> dict[str, Any]:
    if not table_exists(conn, "brainview_decision"):
        raise NotFoundError("no decisions recorded in this agent brain")
    if decision_id is None:
        row = (
            conn.execute(
                text(
                    "SELECT * FROM brainview_decision WHERE undone_at IS NULL "
                    "ORDER BY decided_at DESC, rowid DESC LIMIT 1"
                )
            )
            .mappings()
            .first()
        )
        if row is None:
            raise NotFoundError("no decision left to undo")
    else:
        row = (
            conn.execute(
                text("SELECT * FROM brainview_decision WHERE id = :id"), {"id": decision_id}
            )
            .mappings()
            .first()
        )
        if row is None:
            raise NotFoundError(f"no decision {decision_id!r}")
    return dict(row)


def _describe(effect: Effect) -> str:
    return f"{effect.tbl} {', '.join(str(v) for v in effect.key.values())}"


def _check(conn: Connection, decision_id: str, effect: Effect) -> None:
    if effect.tbl == "sqlite_sequence":
        return
    current = fetch_row(conn, effect.tbl, tuple(effect.key.values()))
    if current != effect.after:
        what = "was removed" if current is None else "changed"
        raise ConflictError(
            f"cannot undo decision {decision_id}: {_describe(effect)} {what} since "
            "(by another decision, the curator or an edit); undo those first"
        )


def _revert(conn: Connection, effect: Effect) -> None:
    key = tuple(effect.key.values())
    if effect.tbl == "sqlite_sequence":
        current = fetch_row(conn, effect.tbl, key)
        if current != effect.after:
            return  # spikes were inserted since: leave the counter where it is
        if effect.before is None:
            delete_row(conn, effect.tbl, effect.key)
        elif current is None:
            insert_row(conn, effect.tbl, effect.before)
        else:
            restore_row(conn, effect.tbl, effect.before)
        return
    if effect.before is None:
        delete_row(conn, effect.tbl, effect.key)
        return
    before = dict(effect.before)
    if effect.tbl == "brainview_proposal" and effect.after is not None:
        before["version"] = int(effect.after["version"]) + 1
    restore_row(conn, effect.tbl, before)
