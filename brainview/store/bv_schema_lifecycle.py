"""The lifecycle's own tables (batches, their before-images, tombstones) and its row
writes: soft-retire and restore the Spikuit way.

Created from the services inside a write transaction (:func:`ensure_lifecycle_schema`);
readers treat missing tables as empty.  Portable SQL, like :mod:`brainview.store.bv_schema`.

:class:`BatchLog` writes rows for one lifecycle batch and remembers, for each change, the
columns it changed before and after, so :func:`revert` undoes the whole batch exactly
(or refuses, when a row changed since).  :func:`retire_neuron` does what Spikuit's
``Circuit.remove_neuron`` does (same stamp on the neuron and its live synapses, a
``changeset`` with ``neuron.retire`` / ``synapse.retire`` events); the ``unretire_*``
helpers restore only rows a lifecycle batch retired.
"""

from __future__ import annotations

import json
import re
import uuid
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, text

from brainview.errors import ConflictError
from brainview.store.bv_schema import ensure_schema
from brainview.store.era import Era
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


def revert(conn: Connection, batch_id: str) -> int:
    """Undo a batch's changes (newest first) after checking none changed since."""
    changes = stored_changes(conn, batch_id)
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
    return len(changes)


# -- soft-retire the Spikuit way -------------------------------------------------------

_NEURON_SNAPSHOT = ("id", "content", "type", "domain", "source", "created_at", "updated_at")
_SYNAPSE_SNAPSHOT = (
    "pre", "post", "type", "weight", "co_fires", "last_co_fire",
    "confidence", "confidence_score", "created_at", "updated_at",
)  # fmt: skip


def _snapshot(row: dict[str, Any], cols: tuple[str, ...]) -> str:
    return json.dumps({c: row[c] for c in cols if c in row}, ensure_ascii=False)


class Changeset:
    """One Spikuit ``changeset`` with its ``event`` rows (written only if events exist)."""

    def __init__(self, log: BatchLog, era: Era, tag: str, actor: str, at: str) -> None:
        self.log, self.tag, self.actor, self.at = log, tag, actor, at
        self.enabled = era.has_changelog
        self.events: list[tuple[str, str, str, str | None, str | None]] = []

    def neuron(self, op: str, row: dict[str, Any], *, before: bool) -> None:
        """A neuron event; the snapshot goes to ``before_json`` or ``after_json``."""
        snap = _snapshot(row, _NEURON_SNAPSHOT)
        self.events.append(
            (op, "neuron", str(row["id"]), snap if before else None, None if before else snap)
        )

    def synapse(self, op: str, row: dict[str, Any], *, snapshot: bool = False) -> None:
        """A synapse event (Spikuit's ``synapse.retire`` carries no snapshot)."""
        target = f"{row['pre']}|{row['post']}|{row['type']}"
        after = _snapshot(row, _SYNAPSE_SNAPSHOT) if snapshot else None
        self.events.append((op, "synapse", target, None, after))

    def close(self) -> None:
        """Write the changeset and its events (through the batch log, so undo removes them)."""
        if not self.enabled or not self.events:
            return
        cs_id = f"cs_{uuid.uuid4().hex[:12]}"
        self.log.insert(
            "changeset",
            {
                "id": cs_id, "tag": self.tag, "actor_id": self.actor, "actor_kind": "human",
                "started_at": self.at, "committed_at": self.at, "status": "committed",
            },
        )  # fmt: skip
        for seq, (op, kind, target, before, after) in enumerate(self.events):
            self.log.insert(
                "event",
                {
                    "id": f"ev_{uuid.uuid4().hex[:12]}", "changeset_id": cs_id, "seq": seq,
                    "op": op, "target_kind": kind, "target_id": target,
                    "before_json": before, "after_json": after, "at": self.at,
                },
            )  # fmt: skip


def retire_neuron(log: BatchLog, era: Era, cs: Changeset, rid: str, at: str) -> int:
    """As ``Circuit.remove_neuron``: ``retired_at`` on the neuron and on every live synapse
    touching it (same stamp), with ``neuron.retire`` + ``synapse.retire`` events.
    Returns the synapse rows retired."""
    row = read_row(log.conn, "neuron", {"id": rid})
    if row is not None and row.get("retired_at") is None:
        log.update("neuron", {"id": rid}, {"retired_at": at})
        cs.neuron("neuron.retire", row, before=True)
    if "retired_at" not in era.synapse_cols:
        return 0
    live = log.conn.execute(
        text(
            "SELECT * FROM synapse WHERE (pre = :r OR post = :r) AND retired_at IS NULL "
            "ORDER BY pre, post, type"
        ),
        {"r": rid},
    ).mappings()
    synapses = [dict(s) for s in live]
    for s in synapses:
        log.update(
            "synapse", {"pre": s["pre"], "post": s["post"], "type": s["type"]}, {"retired_at": at}
        )
        cs.synapse("synapse.retire", s)
    return len(synapses)


def retired_by_lifecycle(conn: Connection, tbl: str, key: dict[str, Any], stamp: str) -> bool:
    """Whether a not-undone lifecycle batch set this row's ``retired_at`` to ``stamp``."""
    rows = conn.execute(
        text(
            "SELECT e.after_json FROM brainview_lifecycle_effect e "
            "JOIN brainview_lifecycle_batch b ON b.id = e.batch_id "
            "WHERE e.tbl = :t AND e.key_json = :k AND e.op = 'update' AND b.undone_at IS NULL"
        ),
        {"t": tbl, "k": dump_row(key)},
    )
    return any((load_row(a) or {}).get("retired_at") == stamp for (a,) in rows)


def unretire_neuron(log: BatchLog, cs: Changeset, rid: str) -> bool:
    """Clear ``retired_at`` if (and only if) a lifecycle batch set it."""
    row = read_row(log.conn, "neuron", {"id": rid})
    stamp = None if row is None else row.get("retired_at")
    if stamp is None or not retired_by_lifecycle(log.conn, "neuron", {"id": rid}, stamp):
        return False
    log.update("neuron", {"id": rid}, {"retired_at": None})
    cs.neuron("neuron.add", {**row, "retired_at": None}, before=False)
    return True


def unretire_synapses(log: BatchLog, era: Era, cs: Changeset, rids: list[str]) -> int:
    """Restore synapse rows a lifecycle batch retired, where both ends are live now."""
    if "retired_at" not in era.synapse_cols:
        return 0
    restored = 0
    seen: set[tuple[str, str, str]] = set()
    for rid in rids:
        rows = log.conn.execute(
            text(
                "SELECT s.* FROM synapse s JOIN neuron a ON a.id = s.pre JOIN neuron b "
                "ON b.id = s.post WHERE (s.pre = :r OR s.post = :r) AND s.retired_at IS NOT NULL "
                "AND a.retired_at IS NULL AND b.retired_at IS NULL ORDER BY s.pre, s.post, s.type"
            ),
            {"r": rid},
        ).mappings()
        for s in [dict(r) for r in rows]:
            key = {"pre": s["pre"], "post": s["post"], "type": s["type"]}
            k = (s["pre"], s["post"], s["type"])
            if k in seen or not retired_by_lifecycle(log.conn, "synapse", key, s["retired_at"]):
                continue
            seen.add(k)
            log.update("synapse", key, {"retired_at": None})
            cs.synapse("synapse.add", {**s, "retired_at": None}, snapshot=True)
            restored += 1
    return restored
