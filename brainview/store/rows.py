"""Raw row access for the write paths: JSON row images and single-row statements.

Everything here runs inside the caller's transaction (nothing opens one).  Spikuit's
tables are SQLite-only, so statements go straight to the driver connection behind the
SQLAlchemy :class:`~sqlalchemy.Connection` (same transaction, ``?`` placeholders, no
statement compilation or result wrapping): a decision issues a dozen statements and
reads a few hundred rows, and ``bench/bench_decide.py`` holds it to 2× hand-written
``sqlite3``.

Row images are JSON objects: floats keep full precision, text is ASCII-escaped so any
string round-trips, BLOBs are ``{"$bytes": "<hex>"}``.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from operator import itemgetter
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
    "neuron_predecessor": ("child_id", "parent_id"),
    "neuron_source": ("neuron_id", "source_id"),
    "changeset": ("id",),
    "event": ("id",),
    "source": ("id",),
    "retrieval_boost": ("neuron_id",),
    "quiz_item": ("id",),
    "quiz_item_neuron": ("quiz_item_id", "neuron_id"),
    "brainview_proposal": ("id",),
    "brainview_consult": ("proposal_id", "reflection_id", "role"),
    "brainview_decision": ("id",),
    "brainview_grade": ("decision_id", "reflection_id"),
    "brainview_apply_intent": ("id",),
    "brainview_plan_item": ("proposal_id",),
    "brainview_learning": ("neuron_id",),
    "brainview_learning_write": ("decision_id", "seq"),
}
"""Tables the write paths may touch (every Spikuit 0.7 table with a key, and
brainview's own), and the columns that identify one row.  A table missing here cannot
go through the effect log (:func:`key_getter` says so)."""

CHUNK = 400


# -- JSON images ----------------------------------------------------------------------


def _bytes_default(value: Any) -> Any:
    if isinstance(value, bytes | bytearray | memoryview):
        return {"$bytes": bytes(value).hex()}
    raise TypeError(f"cannot store {type(value).__name__} in a row image")


def _bytes_hook(obj: dict[str, Any]) -> Any:
    if len(obj) == 1 and "$bytes" in obj:
        return bytes.fromhex(obj["$bytes"])
    return obj


_ENCODER = json.JSONEncoder(separators=(",", ":"), default=_bytes_default)
_DECODER = json.JSONDecoder(object_hook=_bytes_hook)


def _fast_encoder() -> Callable[[Any], str]:
    """CPython's C encoder, built once: ``JSONEncoder.encode`` rebuilds it on every
    call, a third of the cost for a small row.  Falls back to the public encoder when
    the private hook is missing or its output differs."""
    try:
        # c_make_encoder: the private C hook, absent from typeshed's json.encoder.
        from json.encoder import c_make_encoder, encode_basestring_ascii  # type: ignore[attr-defined]

        make = c_make_encoder(
            None, _bytes_default, encode_basestring_ascii, None, ":", ",", False, False, True
        )

        def encode(obj: Any) -> str:
            return "".join(make(obj, 0))

        sample = {"s": 'é\u202e\x85"}', "f": 0.1 + 0.2, "i": -3, "n": None, "b": b"\x00"}
        if encode(sample) == _ENCODER.encode(sample):
            return encode
    except Exception:  # noqa: BLE001 - any surprise: use the public API
        pass
    return _ENCODER.encode


encode = _fast_encoder()
"""Compact JSON of a row image (or any JSON-able value)."""


def dump_row(row: Mapping[str, Any] | None) -> str | None:
    """A row as JSON (``None`` stays ``None``)."""
    return None if row is None else encode(row)


def load_row(text: str | None) -> Row | None:
    """Inverse of :func:`dump_row`."""
    return None if text is None else _DECODER.decode(text)


def load_json(text: str) -> Any:
    """Any value written with :data:`encode` (BLOB markers decoded)."""
    return _DECODER.decode(text)


def pack_rows(rows: Iterable[Mapping[str, Any] | None], cols: tuple[str, ...]) -> list[Any]:
    """Row images for a grouped JSON document: each row as the list of its values in
    ``cols`` order (a row with other columns stays an object, an absent row ``None``)."""
    return [None if r is None else list(r.values()) if tuple(r) == cols else dict(r) for r in rows]


def unpack_row(item: Any, cols: Sequence[str]) -> Row | None:
    """Inverse of :func:`pack_rows` for one item."""
    if item is None:
        return None
    if isinstance(item, list):
        return dict(zip(cols, item, strict=True))
    return dict(item)


# -- raw access ------------------------------------------------------------------------


def driver(conn: Connection) -> sqlite3.Connection:
    """The sqlite3 connection under ``conn`` (same transaction)."""
    raw = conn.connection.driver_connection
    assert isinstance(raw, sqlite3.Connection)
    return raw


def dicts(cur: sqlite3.Cursor) -> list[Row]:
    """All rows of a cursor as dicts."""
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]  # noqa: B905 - same width by SQL


def row_getter(cols: Sequence[str]) -> Callable[[Mapping[str, Any]], tuple[Any, ...]]:
    """``row → (row[c] for c in cols)`` as a tuple, in C (``cols`` not empty)."""
    get = itemgetter(*cols)
    if len(cols) == 1:
        return lambda row: (get(row),)
    return get


KEY_GETTERS = {table: row_getter(cols) for table, cols in PRIMARY_KEYS.items()}


def key_getter(table: str) -> Callable[[Mapping[str, Any]], KeyTuple]:
    """The function giving a row's primary-key values (built on first use for a table
    added to :data:`PRIMARY_KEYS` later); a clear error for a table whose key is not
    known."""
    get = KEY_GETTERS.get(table)
    if get is None:
        cols = PRIMARY_KEYS.get(table)
        if cols is None:
            raise ValueError(
                f"no primary key known for table {table!r}: add it to rows.PRIMARY_KEYS"
            )
        get = KEY_GETTERS[table] = row_getter(cols)
    return get


def key_of(table: str, row: Mapping[str, Any]) -> KeyTuple:
    """The primary-key values of ``row``."""
    return key_getter(table)(row)


def key_dict(table: str, key: KeyTuple) -> Row:
    """A key tuple as ``{column: value}``."""
    return dict(zip(PRIMARY_KEYS[table], key, strict=True))


def where(table: str) -> str:
    """``col = ? AND …`` over the table's primary key."""
    return " AND ".join(f"{c} = ?" for c in PRIMARY_KEYS[table])


def fetch_rows(conn: Connection, table: str, keys: Iterable[KeyTuple]) -> dict[KeyTuple, Row]:
    """Full rows by primary key, in few statements (absent keys are simply missing)."""
    return fetch_rows_raw(driver(conn), table, keys)


def fetch_rows_raw(
    raw: sqlite3.Connection, table: str, keys: Iterable[KeyTuple]
) -> dict[KeyTuple, Row]:
    """:func:`fetch_rows` on a driver connection."""
    cols, get = PRIMARY_KEYS[table], key_getter(table)
    unique = list(dict.fromkeys(tuple(k) for k in keys))
    out: dict[KeyTuple, Row] = {}
    for start in range(0, len(unique), CHUNK):
        chunk = unique[start : start + CHUNK]
        # By the first key column (indexed everywhere), then exact keys in Python.
        firsts = list(dict.fromkeys(k[0] for k in chunk))
        wanted = set(chunk)
        sql = f"SELECT * FROM {table} WHERE {cols[0]} IN ({','.join('?' * len(firsts))})"
        for row in dicts(raw.execute(sql, firsts)):
            k = get(row)
            if k in wanted:
                out[k] = row
    return out


def select_in(
    raw: sqlite3.Connection, sql: str, values: Sequence[Any], *, args: Sequence[Any] = ()
) -> Iterator[tuple[Any, ...]]:
    """Rows of ``sql`` — whose ``{marks}`` stands for an ``IN (…)`` list — for ``values``
    in chunks under SQLite's variable limit; ``args`` are bound before each chunk."""
    values = list(values)
    for start in range(0, len(values), CHUNK):
        chunk = values[start : start + CHUNK]
        yield from raw.execute(sql.format(marks=",".join("?" * len(chunk))), [*args, *chunk])


def fetch_row(conn: Connection, table: str, key: KeyTuple) -> Row | None:
    """One full row by primary key."""
    return fetch_rows(conn, table, [key]).get(tuple(key))


def delete_row(conn: Connection | sqlite3.Connection, table: str, key: Mapping[str, Any]) -> None:
    """Delete one row by primary key."""
    _raw(conn).execute(
        f"DELETE FROM {table} WHERE {where(table)}",
        tuple(key[c] for c in PRIMARY_KEYS[table]),
    )


def restore_row(conn: Connection | sqlite3.Connection, table: str, row: Mapping[str, Any]) -> None:
    """Write every column of ``row`` back (the row exists; keys do not change)."""
    pk = PRIMARY_KEYS[table]
    cols = [c for c in row if c not in pk]
    if not cols:
        return
    _raw(conn).execute(
        f"UPDATE {table} SET {', '.join(f'{c} = ?' for c in cols)} WHERE {where(table)}",
        tuple(row[c] for c in cols) + tuple(row[c] for c in pk),
    )


def insert_row(conn: Connection | sqlite3.Connection, table: str, row: Mapping[str, Any]) -> None:
    """Insert one full row as recorded."""
    cols = list(row)
    _raw(conn).execute(
        f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
        tuple(row[c] for c in cols),
    )


def _raw(conn: Connection | sqlite3.Connection) -> sqlite3.Connection:
    return conn if isinstance(conn, sqlite3.Connection) else driver(conn)
