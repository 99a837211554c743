"""The effect log of a decision: every agent-brain row it changed, so undo is exact.

Each changed row is remembered once, as an :class:`Effect`, and
:meth:`EffectLog.flush` stores them as ``brainview_effect`` rows:

* ``tbl``: ``spike``, ``fsrs_state``, ``synapse``, ``neuron``, ``brainview_proposal``,
  ``brainview_grade`` or ``sqlite_sequence``;
* ``op``: ``insert`` (no row before; undo deletes it) or ``update`` (undo writes the
  before-image back);
* ``key_json``: the primary key as a JSON object (``{"pre": …, "post": …, "type": …}``);
* ``before_json``: every column of the row before, as a JSON object (``null`` for
  an insert);
* ``after_json``: for an insert, every column of the new row; for an update, only
  the columns whose value changed (the full after-image is ``{**before, **after}``;
  this halves what a decision writes, e.g. a synapse update stores 4 columns, not 11,
  and a long proposal rationale is not stored twice).

A row touched twice keeps one effect: the first before-image and the last after-image.

:func:`revert_effects` (undo) and :func:`reapply_effects` (its exact inverse, used to
roll back an undo whose user-brain half could not be done) check every row first and
write nothing when one changed since.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import Connection

from brainview.errors import ConflictError
from brainview.store.rows import (
    PRIMARY_KEYS,
    KeyTuple,
    Row,
    delete_row,
    dicts,
    driver,
    encode,
    fetch_row,
    fetch_rows,
    insert_row,
    key_of,
    load_row,
    restore_row,
)


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
        self.raw = driver(conn)
        self._effects: dict[tuple[str, KeyTuple], Effect] = {}

    def record(self, table: str, before: Row | None, after: Row | None) -> None:
        """Remember a change already made (first before-image, last after-image win)."""
        source = after if after is not None else before
        assert source is not None
        k = key_of(table, source)
        known = self._effects.get((table, k))
        if known is not None:
            known.after = after
            return
        key = dict(zip(PRIMARY_KEYS[table], k, strict=True))
        self._effects[(table, k)] = Effect(
            table, "insert" if before is None else "update", key, before, after
        )

    @property
    def effects(self) -> list[Effect]:
        """Effects in the order rows were first touched."""
        return list(self._effects.values())

    def insert(self, table: str, rows: Sequence[Row]) -> list[Row]:
        """Insert rows that carry their whole primary key (all naming the same columns);
        return the stored rows, read back so column defaults are in the after-image."""
        if not rows:
            return []
        cols = list(rows[0])
        sql = f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})"
        self.raw.executemany(sql, [tuple(r[c] for c in cols) for r in rows])
        keys = [key_of(table, r) for r in rows]
        stored = fetch_rows(self.conn, table, keys)
        out = [stored[k] for k in keys]
        for row in out:
            self.record(table, None, row)
        return out

    def insert_autoid(self, table: str, rows: Sequence[Row]) -> list[Row]:
        """Insert rows whose integer ``id`` the database assigns; return the stored rows
        in the given order.

        Inside our write transaction nobody else inserts, and SQLite gives new rows
        rowids above the current maximum, so the rows past the old maximum are ours.
        """
        if not rows:
            return []
        cols = list(rows[0])
        top = self.raw.execute(f"SELECT MAX(rowid) FROM {table}").fetchone()[0] or 0
        sql = f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})"
        self.raw.executemany(sql, [tuple(r[c] for c in cols) for r in rows])
        out = dicts(
            self.raw.execute(f"SELECT * FROM {table} WHERE rowid > ? ORDER BY rowid", (top,))
        )
        if len(out) != len(rows):
            raise RuntimeError(f"{table}: inserted {len(rows)} rows but found {len(out)}")
        for row in out:
            self.record(table, None, row)
        return out

    def update(self, table: str, changes: Sequence[tuple[Row, Row]]) -> None:
        """Apply ``(full current row, new values)`` pairs; pairs changing the same
        columns share one ``executemany``."""
        groups: dict[tuple[str, ...], list[tuple[Row, Row]]] = {}
        for before, new in changes:
            groups.setdefault(tuple(new), []).append((before, new))
        pk = PRIMARY_KEYS[table]
        cond = " AND ".join(f"{c} = ?" for c in pk)
        for cols, items in groups.items():
            sets = ", ".join(f"{c} = ?" for c in cols)
            self.raw.executemany(
                f"UPDATE {table} SET {sets} WHERE {cond}",
                [tuple(new[c] for c in cols) + tuple(b[c] for c in pk) for b, new in items],
            )
            for before, new in items:
                self.record(table, before, {**before, **new})

    def snapshot_sequence(self, name: str) -> Row | None:
        """The ``sqlite_sequence`` row of an AUTOINCREMENT table (``None`` if absent)."""
        try:
            cur = self.raw.execute("SELECT * FROM sqlite_sequence WHERE name = ?", (name,))
        except sqlite3.OperationalError:  # no AUTOINCREMENT table in this file yet
            return None
        found = dicts(cur)
        return found[0] if found else None

    def record_sequence(self, name: str, before: Row | None) -> None:
        """Remember how ``sqlite_sequence`` moved since :meth:`snapshot_sequence`."""
        after = self.snapshot_sequence(name)
        if before != after:
            self.record("sqlite_sequence", before, after)

    def flush(self, decision_id: str) -> int:
        """Store the effects as ``brainview_effect`` rows; return how many."""
        rows = [
            (
                decision_id,
                seq,
                e.tbl,
                e.op,
                encode(e.key),
                None if e.before is None else encode(e.before),
                None if e.after is None else encode(_delta(e.before, e.after)),
            )
            for seq, e in enumerate(self._effects.values())
        ]
        self.raw.executemany(
            "INSERT INTO brainview_effect (decision_id, seq, tbl, op, key_json, "
            "before_json, after_json) VALUES (?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
        return len(rows)


def _delta(before: Row | None, after: Row) -> Row:
    """``after`` as stored: whole for an insert, the changed columns for an update."""
    if before is None:
        return after
    return {
        c: v
        for c, v in after.items()
        if c not in before or type(before[c]) is not type(v) or before[c] != v
    }


def stored_effects(conn: Connection, decision_id: str) -> list[Effect]:
    """A decision's effects in the order they were recorded."""
    rows = driver(conn).execute(
        "SELECT tbl, op, key_json, before_json, after_json FROM brainview_effect "
        "WHERE decision_id = ? ORDER BY seq",
        (decision_id,),
    )
    out = []
    for tbl, op, key, before_json, after_json in rows:
        before, after = load_row(before_json), load_row(after_json)
        if before is not None and after is not None:
            after = {**before, **after}
        out.append(Effect(tbl, op, json.loads(key), before, after))
    return out


# -- undo and its inverse ---------------------------------------------------------------


def _describe(effect: Effect) -> str:
    return f"{effect.tbl} {', '.join(str(v) for v in effect.key.values())}"


def _same(effect: Effect, current: Row | None, image: Row | None) -> bool:
    if effect.tbl == "brainview_proposal" and current is not None and image is not None:
        # The proposal's version only ever goes up (undo and redo bump it).
        return {**current, "version": 0} == {**image, "version": 0}
    return current == image


def revert_effects(conn: Connection, decision_id: str, *, what: str = "undo") -> int:
    """Write every before-image back (newest first) after checking every row still
    holds its after-image; return how many rows were restored.

    ``brainview_proposal`` gets ``version`` = after-version + 1 instead of going back;
    ``sqlite_sequence`` is restored only if nobody inserted a spike since.
    """
    effects = stored_effects(conn, decision_id)
    for effect in effects:
        if effect.tbl == "sqlite_sequence":
            continue
        current = fetch_row(conn, effect.tbl, tuple(effect.key.values()))
        if current != effect.after:
            moved = "was removed" if current is None else "changed"
            raise ConflictError(
                f"cannot {what} decision {decision_id}: {_describe(effect)} {moved} since "
                "(by another decision, the curator or an edit); undo those first"
            )
    for effect in reversed(effects):
        _write(conn, effect, effect.before, effect.after)
    return len(effects)


def reapply_effects(conn: Connection, decision_id: str) -> int:
    """The inverse of :func:`revert_effects`: write every after-image again (oldest
    first) after checking every row holds its before-image."""
    effects = stored_effects(conn, decision_id)
    for effect in effects:
        if effect.tbl == "sqlite_sequence":
            continue
        current = fetch_row(conn, effect.tbl, tuple(effect.key.values()))
        if not _same(effect, current, effect.before):
            raise ConflictError(
                f"cannot restore decision {decision_id}: {_describe(effect)} changed since"
            )
    for effect in effects:
        _write(conn, effect, effect.after, effect.before)
    return len(effects)


def _write(conn: Connection, effect: Effect, image: Row | None, expected: Row | None) -> None:
    """Make the row equal ``image`` (``None``: absent); ``expected`` is what it holds."""
    key = tuple(effect.key.values())
    current = fetch_row(conn, effect.tbl, key)
    if effect.tbl == "sqlite_sequence" and current != expected:
        return  # spikes were inserted since: leave the counter where it is
    if image is None:
        if current is not None:
            delete_row(conn, effect.tbl, effect.key)
        return
    row = dict(image)
    if effect.tbl == "brainview_proposal" and current is not None:
        row["version"] = int(current["version"]) + 1
    if current is None:
        insert_row(conn, effect.tbl, row)
    else:
        restore_row(conn, effect.tbl, row)
