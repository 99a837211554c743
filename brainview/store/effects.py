"""The effect log of a decision: every agent-brain row it changed, so undo is exact.

An :class:`EffectLog` writes rows (or is told of rows already written) and remembers
each changed row once: its first before-image and its last after-image, in the order
rows were first touched.  :meth:`EffectLog.flush` stores them in ``brainview_effect``
(one row per run of the same table and operation; the shape, and the older one still
read, are in :mod:`brainview.store.effect_codec`).

:func:`revert_effects` (undo) and :func:`reapply_effects` (its exact inverse, used to
roll back an undo whose user-brain half could not be done) check every row first and
write nothing when one changed since.  Spikuit's change log (``changeset``, ``event``)
is append-only: its rows are recorded like any other, so an undo knows which rows the
decision logged, but neither function ever removes or rewrites them — the undo adds
its own inverse changeset (:mod:`brainview.services.audit.agent_log`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence

from sqlalchemy import Connection

from brainview.core.text_rules import row_problem
from brainview.errors import ConflictError, InvalidInputError
from brainview.store.effect_codec import (
    GROUPED_OPS,
    LEGACY_OPS,
    Effect,
    Entry,
    logged_effects,
    pack_runs,
    stored_effects,
)
from brainview.store.rows import (
    PRIMARY_KEYS,
    KeyTuple,
    Row,
    delete_row,
    dicts,
    driver,
    fetch_row,
    fetch_rows,
    insert_row,
    key_getter,
    restore_row,
    row_getter,
)

__all__ = [
    "CHANGE_LOG",
    "GROUPED_OPS",
    "LEGACY_OPS",
    "Effect",
    "EffectLog",
    "logged_effects",
    "reapply_effects",
    "revert_effects",
    "stored_effects",
]


CHANGE_LOG = frozenset({"changeset", "event"})
"""Spikuit's change log: recorded, never reverted (history only grows)."""


def refuse_unsafe_text(table: str, rows: Sequence[Row], cols: Sequence[str] | None = None) -> None:
    """The door's text rule: no row brainview writes carries ESC, OSC, C1, bidi or NUL
    in a string (:func:`brainview.core.text_rules.row_problem`), whichever path built it.
    Refused before the statement runs; the caller's transaction then rolls back whole."""
    for row in rows:
        why = row_problem(table, row, cols)
        if why is not None:
            raise InvalidInputError(f"refusing to write {why}; nothing was written")


class EffectLog:
    """Writes rows and remembers each one's before- and after-image.

    It is the door every agent-brain row change of a decision, an outcome, a lifecycle
    batch or an import goes through: new and changed string values pass the text rule
    (:func:`refuse_unsafe_text`) before any statement runs."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.raw = driver(conn)
        self._entries: dict[tuple[str, KeyTuple], Entry] = {}

    def record(self, table: str, before: Row | None, after: Row | None) -> None:
        """Remember a change already made (first before-image, last after-image win)."""
        self._record_all(table, [(before, after)], None)

    def _record_all(
        self,
        table: str,
        pairs: Iterable[tuple[Row | None, Row | None]],
        columns: tuple[str, ...] | None,
    ) -> None:
        """Remember ``(before, after)`` pairs; ``columns``: the only ones that may have
        changed (``None``: unknown)."""
        get, entries = key_getter(table), self._entries
        for before, after in pairs:
            source = after if after is not None else before
            assert source is not None
            slot = (table, get(source))
            known = entries.get(slot)
            if known is None:
                entries[slot] = [table, before, after, columns]
            else:
                known[2] = after
                known[3] = None  # touched twice: compare every column when stored

    @property
    def effects(self) -> list[Effect]:
        """Effects in the order rows were first touched."""
        out = []
        for (table, key), (_t, before, after, _c) in self._entries.items():
            op = "insert" if before is None else "update"
            out.append(Effect(table, op, dict(zip(PRIMARY_KEYS[table], key)), before, after))  # noqa: B905
        return out

    def insert(self, table: str, rows: Sequence[Row]) -> list[Row]:
        """Insert rows that carry their whole primary key (all naming the same columns);
        return the stored rows, read back so column defaults are in the after-image."""
        if not rows:
            return []
        refuse_unsafe_text(table, rows)
        cols = tuple(rows[0])
        get = key_getter(table)
        sql = f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})"
        self.raw.executemany(sql, list(map(row_getter(cols), rows)))
        keys = [get(r) for r in rows]
        stored = fetch_rows(self.conn, table, keys)
        out = [stored[k] for k in keys]
        self._record_all(table, [(None, row) for row in out], None)
        return out

    def insert_autoid(self, table: str, rows: Sequence[Row]) -> list[Row]:
        """Insert rows whose integer ``id`` the database assigns; return the stored rows
        in the given order.

        Inside our write transaction nobody else inserts, and SQLite gives new rows
        rowids above the current maximum, so the rows past the old maximum are ours.
        """
        if not rows:
            return []
        refuse_unsafe_text(table, rows)
        cols = tuple(rows[0])
        top = self.raw.execute(f"SELECT MAX(rowid) FROM {table}").fetchone()[0] or 0
        sql = f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})"
        self.raw.executemany(sql, list(map(row_getter(cols), rows)))
        out = dicts(
            self.raw.execute(f"SELECT * FROM {table} WHERE rowid > ? ORDER BY rowid", (top,))
        )
        if len(out) != len(rows):
            raise RuntimeError(f"{table}: inserted {len(rows)} rows but found {len(out)}")
        self._record_all(table, [(None, row) for row in out], None)
        return out

    def update(self, table: str, changes: Sequence[tuple[Row, Row]]) -> None:
        """Apply ``(full current row, new values)`` pairs; pairs changing the same
        columns share one ``executemany`` (pairs with no new values change nothing).

        The after-image is ``{**row, **new}``, not read back: pass values the columns
        store as given (e.g. no ``"1"`` for an INTEGER column), or undo sees a change.
        """
        groups: dict[tuple[str, ...], list[tuple[Row, Row]]] = {}
        for before, new in changes:
            if new:
                groups.setdefault(tuple(new), []).append((before, new))
        for cols, items in groups.items():  # the text door, before any statement runs
            if any(isinstance(v, str) for _b, new in items for v in new.values()):
                refuse_unsafe_text(table, [new for _b, new in items], cols)
        pk = PRIMARY_KEYS[table]
        cond = " AND ".join(f"{c} = ?" for c in pk)
        key = row_getter(pk)
        for cols, items in groups.items():
            sets = ", ".join(f"{c} = ?" for c in cols)
            values = row_getter(cols)
            self.raw.executemany(
                f"UPDATE {table} SET {sets} WHERE {cond}",
                [values(new) + key(b) for b, new in items],
            )
            self._record_all(table, [(b, {**b, **new}) for b, new in items], cols)

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
        """Store the effects in ``brainview_effect`` (a few rows: one per run of the same
        table and operation); return how many table rows they describe."""
        # A row inserted and deleted again by this decision changed nothing.
        entries = [e for e in self._entries.values() if e[1] is not None or e[2] is not None]
        self.raw.executemany(
            "INSERT INTO brainview_effect (decision_id, seq, tbl, op, key_json, "
            "before_json, after_json) VALUES (?, ?, ?, ?, ?, ?, ?)",
            pack_runs(decision_id, entries),
        )
        return len(entries)


# -- undo and its inverse ---------------------------------------------------------------


def _describe(effect: Effect) -> str:
    return f"{effect.tbl} {', '.join(str(v) for v in effect.key.values())}"


def _same(effect: Effect, current: Row | None, image: Row | None) -> bool:
    if effect.tbl == "brainview_proposal" and current is not None and image is not None:
        # The proposal's version only ever goes up (undo and redo bump it).
        return {**current, "version": 0} == {**image, "version": 0}
    return current == image


def _current(conn: Connection, effects: list[Effect]) -> list[Row | None]:
    """Each effect's row as it is now (one query per table, not one per row)."""
    wanted: dict[str, list[KeyTuple]] = {}
    for e in effects:
        wanted.setdefault(e.tbl, []).append(tuple(e.key.values()))
    found = {tbl: fetch_rows(conn, tbl, keys) for tbl, keys in wanted.items()}
    return [found[e.tbl].get(tuple(e.key.values())) for e in effects]


def _rows_only(effects: list[Effect]) -> list[Effect]:
    """The effects an undo or redo writes back: all but the change log's."""
    return [e for e in effects if e.tbl not in CHANGE_LOG]


def revert_effects(conn: Connection, decision_id: str, *, what: str = "undo") -> int:
    """Write every before-image back (newest first) after checking every row still
    holds its after-image; return how many rows were restored (``changeset`` and
    ``event`` rows stay: the change log is append-only).

    ``brainview_proposal`` gets ``version`` = after-version + 1 instead of going back;
    ``sqlite_sequence`` is restored only if nobody inserted a spike since.
    """
    effects = _rows_only(stored_effects(conn, decision_id))
    for effect, current in zip(effects, _current(conn, effects), strict=True):
        if effect.tbl != "sqlite_sequence" and current != effect.after:
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
    effects = _rows_only(stored_effects(conn, decision_id))
    for effect, current in zip(effects, _current(conn, effects), strict=True):
        if effect.tbl != "sqlite_sequence" and not _same(effect, current, effect.before):
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
