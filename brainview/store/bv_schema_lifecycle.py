"""The lifecycle's own tables (batches, their before-images, tombstones) and its row
writes: soft-retire and restore the Spikuit way.

Created from the services inside a write transaction (:func:`ensure_lifecycle_schema`);
readers treat missing tables as empty.  Portable SQL, like :mod:`brainview.store.bv_schema`.

:class:`BatchLog` writes rows for one lifecycle batch and remembers, for each change, the
columns it changed before and after, so :func:`revert` undoes the whole batch exactly
(or refuses, when a row changed since) — except Spikuit's change log, which only
grows.  The Spikuit-way row writes (retire, restore, their changeset) are in
:mod:`brainview.store.lifecycle_rows`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, text

from brainview.errors import ConflictError
from brainview.store.bv_schema import ensure_schema
from brainview.store.writers import dump_row, load_row

LIFECYCLE_DDL = [
    """CREATE TABLE IF NOT EXISTS brainview_lifecycle_batch (
        id TEXT PRIMARY KEY, action TEXT NOT NULL, actor TEXT NOT NULL, at TEXT NOT NULL,
        reason TEXT NOT NULL DEFAULT '', n_reflections INTEGER NOT NULL DEFAULT 0,
        n_proposals INTEGER NOT NULL DEFAULT 0, undoes TEXT, undone_at TEXT, undone_by TEXT)""",
    """CREATE TABLE IF NOT EXISTS brainview_lifecycle_effect (
        batch_id TEXT NOT NULL, seq INTEGER NOT NULL, tbl TEXT NOT NULL, op TEXT NOT NULL,
        key_json TEXT NOT NULL, before_json TEXT, after_json TEXT,
        PRIMARY KEY (batch_id, seq))""",
    "CREATE INDEX IF NOT EXISTS ix_bv_lc_effect_key ON brainview_lifecycle_effect(tbl, key_json)",
    """CREATE TABLE IF NOT EXISTS brainview_tombstone (
        reflection_id TEXT PRIMARY KEY, content TEXT NOT NULL, skill TEXT,
        reason TEXT NOT NULL DEFAULT '', batch_id TEXT, created_at TEXT NOT NULL,
        lifted_at TEXT)""",
    """CREATE TABLE IF NOT EXISTS brainview_tombstone_band (
        reflection_id TEXT NOT NULL, band INTEGER NOT NULL, bucket TEXT NOT NULL,
        PRIMARY KEY (reflection_id, band))""",
    "CREATE INDEX IF NOT EXISTS ix_bv_tomb_bucket ON brainview_tombstone_band(band, bucket)",
]

KEYS: dict[str, tuple[str, ...]] = {
    "neuron": ("id",),
    "synapse": ("pre", "post", "type"),
    "brainview_proposal": ("id",),
    "brainview_tombstone": ("reflection_id",),
    "brainview_tombstone_band": ("reflection_id", "band"),
    "changeset": ("id",),
    "event": ("id",),
}
"""Tables a lifecycle batch may change, and the columns that identify a row."""

_IDENT = re.compile(r"^[a-z_][a-z0-9_]*$")


def ensure_lifecycle_schema(conn: Connection) -> None:
    """brainview's queue tables plus the lifecycle's own (in the caller's transaction)."""
    ensure_schema(conn)
    for ddl in LIFECYCLE_DDL:
        conn.exec_driver_sql(ddl)


def _cols(names: Any) -> list[str]:
    cols = list(names)
    if not all(isinstance(c, str) and _IDENT.match(c) for c in cols):
        raise ConflictError("lifecycle effect log names an unexpected column; refusing")
    return cols


def _where(table: str) -> str:
    return " AND ".join(f"{c} = :k_{c}" for c in KEYS[table])


def _key_params(table: str, key: dict[str, Any]) -> dict[str, Any]:
    return {f"k_{c}": key[c] for c in KEYS[table]}


def _insert_sql(table: str, cols: list[str]) -> str:
    return f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join(':' + c for c in cols)})"


def read_row(conn: Connection, table: str, key: dict[str, Any]) -> dict[str, Any] | None:
    """One full row by key (``None`` when absent)."""
    row = (
        conn.execute(text(f"SELECT * FROM {table} WHERE {_where(table)}"), _key_params(table, key))
        .mappings()
        .first()
    )
    return dict(row) if row else None


@dataclass
class Change:
    """One recorded row change (only the columns that changed, for updates)."""

    tbl: str
    op: str
    key: dict[str, Any]
    before: dict[str, Any] | None
    after: dict[str, Any] | None


class BatchLog:
    """Writes one batch's rows and records their before/after images."""

    def __init__(self, conn: Connection, batch_id: str) -> None:
        self.conn = conn
        self.batch_id = batch_id
        self.changes: list[Change] = []

    def update(self, table: str, key: dict[str, Any], values: dict[str, Any]) -> bool:
        """Set ``values`` on one existing row; returns whether anything changed."""
        current = read_row(self.conn, table, key)
        if current is None:
            return False
        changed = {c: v for c, v in values.items() if current.get(c) != v}
        if not changed:
            return False
        sets = ", ".join(f"{c} = :v_{c}" for c in _cols(changed))
        params = {**_key_params(table, key), **{f"v_{c}": v for c, v in changed.items()}}
        self.conn.execute(text(f"UPDATE {table} SET {sets} WHERE {_where(table)}"), params)
        before = {c: current.get(c) for c in changed}
        self.changes.append(Change(table, "update", dict(key), before, changed))
        return True

    def insert(self, table: str, row: dict[str, Any]) -> None:
        """Insert one row carrying its whole key."""
        cols = _cols(row)
        self.conn.execute(text(_insert_sql(table, cols)), row)
        key = {c: row[c] for c in KEYS[table]}
        self.changes.append(Change(table, "insert", key, None, dict(row)))

    def delete(self, table: str, key: dict[str, Any]) -> None:
        """Delete one row (its full before-image is kept)."""
        current = read_row(self.conn, table, key)
        if current is None:
            return
        self.conn.execute(
            text(f"DELETE FROM {table} WHERE {_where(table)}"), _key_params(table, key)
        )
        self.changes.append(Change(table, "delete", dict(key), current, None))

    def flush(self) -> int:
        """Store the changes as ``brainview_lifecycle_effect`` rows."""
        rows = [
            {
                "b": self.batch_id,
                "s": seq,
                "t": c.tbl,
                "o": c.op,
                "k": dump_row(c.key),
                "bj": dump_row(c.before),
                "aj": dump_row(c.after),
            }
            for seq, c in enumerate(self.changes)
        ]
        if rows:
            self.conn.execute(
                text(
                    "INSERT INTO brainview_lifecycle_effect (batch_id, seq, tbl, op, key_json, "
                    "before_json, after_json) VALUES (:b, :s, :t, :o, :k, :bj, :aj)"
                ),
                rows,
            )
        return len(rows)


def stored_changes(conn: Connection, batch_id: str) -> list[Change]:
    """A batch's changes in the order they were made."""
    rows = conn.execute(
        text(
            "SELECT tbl, op, key_json, before_json, after_json FROM brainview_lifecycle_effect "
            "WHERE batch_id = :b ORDER BY seq"
        ),
        {"b": batch_id},
    ).fetchall()
    out = []
    for tbl, op, key, before, after in rows:
        if tbl not in KEYS or op not in ("insert", "update", "delete"):
            raise ConflictError(f"lifecycle batch {batch_id} logs an unexpected change; refusing")
        out.append(Change(tbl, op, json.loads(key), load_row(before), load_row(after)))
    return out


CHANGE_LOG = frozenset({"changeset", "event"})
"""Spikuit's change log: a batch's rows there are kept when it is undone (append-only)."""


def revert(conn: Connection, batch_id: str) -> list[Change]:
    """Undo a batch's changes (newest first) after checking none changed since; return
    the changes reverted.  The batch's ``changeset`` / ``event`` rows stay: the change
    log only grows, and the caller logs the undo as a changeset of its own."""
    changes = [c for c in stored_changes(conn, batch_id) if c.tbl not in CHANGE_LOG]
    for c in changes:
        current = read_row(conn, c.tbl, c.key)
        if c.op == "delete":
            ok = current is None
        else:
            assert c.after is not None
            ok = current is not None and all(current.get(k) == v for k, v in c.after.items())
        if not ok:
            label = ", ".join(str(v) for v in c.key.values())
            raise ConflictError(
                f"cannot undo {batch_id}: {c.tbl} {label} changed since; "
                "undo the later change first"
            )
    for c in reversed(changes):
        if c.op == "insert":
            conn.execute(
                text(f"DELETE FROM {c.tbl} WHERE {_where(c.tbl)}"), _key_params(c.tbl, c.key)
            )
        elif c.op == "delete":
            assert c.before is not None
            conn.execute(text(_insert_sql(c.tbl, _cols(c.before))), c.before)
        else:
            assert c.before is not None
            sets = ", ".join(f"{x} = :v_{x}" for x in _cols(c.before))
            params = {**_key_params(c.tbl, c.key), **{f"v_{x}": v for x, v in c.before.items()}}
            conn.execute(text(f"UPDATE {c.tbl} SET {sets} WHERE {_where(c.tbl)}"), params)
    return changes
