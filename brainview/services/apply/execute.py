"""Executing a plan in the user brain, inside the caller's ``BEGIN IMMEDIATE``.

Every row is checked first — it must still hold the plan's before-image (absent for
an insert) — then written: insert, full-row update, or (only when undoing a row the
apply itself inserted) delete.  The plan's ``changeset`` (status ``committed``) and
its ``event`` rows go in the same transaction, so the change and its log commit
together or not at all.  A plan whose changeset id is already in the user brain was
executed before: that is how a retried or recovered apply stays idempotent.
"""

from __future__ import annotations

import sqlite3

from brainview.errors import ConflictError
from brainview.services.apply import hooks
from brainview.services.apply.plan import Plan, RowChange
from brainview.store.apply_rows import changeset_exists, insert_events
from brainview.store.rows import delete_row, fetch_rows_raw, insert_row, key_dict, restore_row

__all__ = ["changeset_exists", "check", "describe_row", "execute"]


def describe_row(change: RowChange) -> str:
    """``neuron n-1`` / ``synapse a|b|relates_to`` for messages."""
    return f"{change.table} {'|'.join(str(k) for k in change.key)}"


def check(raw: sqlite3.Connection, plan: Plan) -> None:
    """Refuse (ConflictError) unless every row still holds its before-image."""
    by_table: dict[str, list[RowChange]] = {}
    for change in plan.changes:
        by_table.setdefault(change.table, []).append(change)
    for table, changes in by_table.items():
        current = fetch_rows_raw(raw, table, [c.key for c in changes])
        for change in changes:
            now = current.get(tuple(change.key))
            if now != change.before:
                moved = "is gone" if now is None else "changed"
                if change.before is None:
                    moved = "exists"
                raise ConflictError(f"{describe_row(change)} {moved} since it was planned")


def execute(raw: sqlite3.Connection, plan: Plan, *, mid_step: str | None = None) -> bool:
    """Check and write ``plan``; return ``False`` when it was already executed.

    ``mid_step`` names the :mod:`~brainview.services.apply.hooks` step announced
    between the row writes and the change log (inside the transaction).
    """
    if plan.empty:
        return False
    if changeset_exists(raw, plan.changeset.id):
        return False
    check(raw, plan)
    for change in plan.changes:
        if change.before is None:
            assert change.after is not None
            insert_row(raw, change.table, change.after)
        elif change.after is None:
            delete_row(raw, change.table, key_dict(change.table, tuple(change.key)))
        else:
            restore_row(raw, change.table, change.after)
    if mid_step is not None:
        hooks.step(mid_step)
    changeset, events = plan.log_rows()
    insert_row(raw, "changeset", changeset)
    insert_events(raw, events)
    return True
