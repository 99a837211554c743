"""Row writers that record every change they make, so a decision can be undone exactly.

Everything here runs inside the caller's transaction (nothing opens one).  Each
changed row is remembered once, as an :class:`Effect` — table, operation, primary
key, and the *full* row before and after — and :meth:`EffectLog.flush` stores the
effects as ``brainview_effect`` rows:

* ``tbl``: the table name (``spike``, ``fsrs_state``, ``synapse``, ``neuron``,
  ``brainview_proposal``, ``brainview_grade`` or ``sqlite_sequence``);
* ``op``: ``insert`` (no row before; undo deletes it) or ``update`` (undo restores
  the before-image);
* ``key_json``: the primary key as a JSON object, e.g. ``{"pre": …, "post": …,
  "type": …}``;
* ``before_json`` / ``after_json``: every column of the row as a JSON object
  (``null`` for "no row"); BLOBs are written as ``{"$bytes": "<hex>"}``.

A row touched twice keeps one effect: the first before-image and the last
after-image.  Spikuit tables are SQLite-only, so statements on them use the
driver's ``?`` placeholders directly (no ORM, no statement compilation).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection

Row = dict[str, Any]
KeyTuple = tuple[Any, ...]

PRIMARY_KEYS: dict[str, tuple[str, ...]] = {
    "neuron": ("id",),
    "synapse": ("pre", "post", "type"),
    "spike": ("id",),
    "fsrs_state": ("neuron_id",),
    "sqlite_sequence": ("name",),
    "brainview_proposal": ("id",),
    "brainview_grade": ("decision_id", "reflection_id"),
}
"""Tables the decision path writes, and the columns that identify one row."""

_CHUNK = 400


def _encode(value: Any) -> Any:
    if isinstance(value, bytes | bytearray | memoryview):
        return {"$bytes": bytes(value).hex()}
    return value


def _decode(value: Any) -> Any:
    if isinstance(value, dict) and set(value) == {"$bytes"}:
        return bytes.fromhex(value["$bytes"])
    return value


def dump_row(row: Mapping[str, Any] | None) -> str | None:
    """A row as JSON (ASCII, so any text round-trips exactly; floats keep full precision)."""
    if row is None:
        return None
    return json.dumps({k: _encode(v) for k, v in row.items()}, separators=(",", ":"))


def load_row(text: str | None) -> Row | None:
    """Inverse of :func:`dump_row`."""
    if text is None:
        return None
    return {k: _decode(v) for k, v in json.loads(text).items()}


def key_of(table: str, row: Mapping[str, Any]) -> KeyTuple:
    """The primary-key values of ``row``."""
    return tuple(row[c] for c in PRIMARY_KEYS[table])


def _where(table: str) -> str:
    return " AND ".join(f"{c} = ?" for c in PRIMARY_KEYS[table])


def fetch_rows(conn: Connection, table: str, keys: Iterable[KeyTuple]) -> dict[KeyTuple, Row]:
    """Full rows by primary key, in few statements (absent keys are simply missing)."""
    cols = PRIMARY_KEYS[table]
    unique = list(dict.fromkeys(keys))
    out: dict[KeyTuple, Row] = {}
    for start in range(0, len(unique), _CHUNK):
        chunk = unique[start : start + _CHUNK]
        if len(cols) == 1:
            sql = f"SELECT * FROM {table} WHERE {cols[0]} IN ({','.join('?' * len(chunk))})"
            params: list[Any] = [k[0] for k in chunk]
        else:
            one = "(" + _where(table) + ")"
            sql = f"SELECT * FROM {table} WHERE " + " OR ".join([one] * len(chunk))
            params = [v for k in chunk for v in k]
        for row in conn.exec_driver_sql(sql, tuple(params)).mappings():
            d = dict(row)
            out[key_of(table, d)] = d
    return out


def fetch_row(conn: Connection, table: str, key: KeyTuple) -> Row | None:
    """One full row by primary key."""
    return fetch_rows(conn, table, [key]).get(tuple(key))


@dataclass
class Effect:
    """One changed row."""

    tbl: str
    op: str
    key: Row
    before: Row | None
    after: Row | None


class EffectLog:
    """Writes rows and remembers each one's before- and after-image."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self._effects: dict[tuple[str, KeyTuple], Effect] = {}

    # -- recording -------------------------------------------------------------

    def record(self, table: str, before: Row | None, after: Row | None) -> None:
        """Remember a change already made (first before-image, last after-image win)."""
        source = after if after is not None else before
        assert source is not None
        k = key_of(table, source)
        slot = (table, k)
        known = self._effects.get(slot)
        if known is not None:
            known.after = after
            return
        key = dict(zip(PRIMARY_KEYS[table], k, strict=True))
        op = "insert" if before is None else "update"
        self._effects[slot] = Effect(table, op, key, before, after)

    @property
    def effects(self) -> list[Effect]:
        """Effects in the order rows were first touched."""
        return list(self._effects.values())

    # -- writing ---------------------------------------------------------------

    def insert(self, table: str, rows: Sequence[Row]) -> list[Row]:
        """Insert rows that carry their whole primary key; return the stored rows.

        All rows must name the same columns.  Stored rows are read back so column
        defaults are part of the after-image.
        """
        if not rows:
            return []
        cols = list(rows[0])
        sql = f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})"
        self.conn.exec_driver_sql(sql, [tuple(r[c] for c in cols) for r in rows])
        keys = [key_of(table, r) for r in rows]
        stored = fetch_rows(self.conn, table, keys)
        out = [stored[k] for k in keys]
        for row in out:
            self.record(table, None, row)
        return out

    def insert_autoid(self, table: str, rows: Sequence[Row]) -> list[Row]:
        """Insert rows whose integer ``id`` the database assigns; return the stored rows."""
        if not rows:
            return []
        cols = list(rows[0])
        sql = f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})"
        ids: list[KeyTuple] = []
        for r in rows:
            result = self.conn.exec_driver_sql(sql, tuple(r[c] for c in cols))
            ids.append((result.lastrowid,))
        stored = fetch_rows(self.conn, table, ids)
        out = [stored[k] for k in ids]
        for row in out:
            self.record(table, None, row)
        return out

    def update(self, table: str, changes: Sequence[tuple[Row, Row]]) -> None:
        """Apply ``(before_row, new_values)`` pairs; rows with the same columns share one
        ``executemany``.  ``before_row`` must be the full current row."""
        groups: dict[tuple[str, ...], list[tuple[Row, Row]]] = {}
        for before, new in changes:
            groups.setdefault(tuple(new), []).append((before, new))
        pk = PRIMARY_KEYS[table]
        for cols, items in groups.items():
            sets = ", ".join(f"{c} = ?" for c in cols)
            sql = f"UPDATE {table} SET {sets} WHERE {_where(table)}"
            self.conn.exec_driver_sql(
                sql, [tuple(new[c] for c in cols) + tuple(b[c] for c in pk) for b, new in items]
            )
            for before, new in items:
                self.record(table, before, {**before, **new})

    def snapshot_sequence(self, name: str) -> Row | None:
        """The ``sqlite_sequence`` row of an AUTOINCREMENT table (``None`` if absent)."""
        if not self._has_sequence_table():
            return None
        return fetch_row(self.conn, "sqlite_sequence", (name,))

    def record_sequence(self, name: str, before: Row | None) -> None:
        """Remember how ``sqlite_sequence`` moved since :meth:`snapshot_sequence`."""
        after = self.snapshot_sequence(name)
        if before != after:
            self.record("sqlite_sequence", before, after)

    def _has_sequence_table(self) -> bool:
        row = self.conn.exec_driver_sql(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sqlite_sequence'"
        ).first()
        return row is not None

    def flush(self, decision_id: str) -> int:
        """Store the effects as ``brainview_effect`` rows; return how many."""
        rows = [
            (
                decision_id,
                seq,
                e.tbl,
                e.op,
                json.dumps(e.key, separators=(",", ":")),
                dump_row(e.before),
                dump_row(e.after),
            )
            for seq, e in enumerate(self._effects.values())
        ]
        if rows:
            self.conn.exec_driver_sql(
                "INSERT INTO brainview_effect (decision_id, seq, tbl, op, key_json, "
                "before_json, after_json) VALUES (?, ?, ?, ?, ?, ?, ?)",
                rows,
            )
        return len(rows)


def stored_effects(conn: Connection, decision_id: str) -> list[Effect]:
    """A decision's effects in the order they were recorded."""
    rows = conn.exec_driver_sql(
        "SELECT tbl, op, key_json, before_json, after_json FROM brainview_effect "
        "WHERE decision_id = ? ORDER BY seq",
        (decision_id,),
    ).fetchall()
    return [Effect(t, op, json.loads(k), load_row(b), load_row(a)) for t, op, k, b, a in rows]


def delete_row(conn: Connection, table: str, key: Mapping[str, Any]) -> None:
    """Delete one row by primary key."""
    cols = PRIMARY_KEYS[table]
    conn.exec_driver_sql(f"DELETE FROM {table} WHERE {_where(table)}", tuple(key[c] for c in cols))


def restore_row(conn: Connection, table: str, row: Mapping[str, Any]) -> None:
    """Write every column of ``row`` back (the row must exist; keys do not change)."""
    cols = [c for c in row if c not in PRIMARY_KEYS[table]]
    pk = PRIMARY_KEYS[table]
    sets = ", ".join(f"{c} = ?" for c in cols)
    conn.exec_driver_sql(
        f"UPDATE {table} SET {sets} WHERE {_where(table)}",
        tuple(row[c] for c in cols) + tuple(row[c] for c in pk),
    )


def insert_row(conn: Connection, table: str, row: Mapping[str, Any]) -> None:
    """Insert one full row as recorded."""
    cols = list(row)
    conn.exec_driver_sql(
        f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
        tuple(row[c] for c in cols),
    )
