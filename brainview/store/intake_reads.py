"""Set-based reads for intake's checks: what a batch of proposals names, read for the
whole batch at once through the driver connection (``?`` placeholders, no statement
compilation, no row objects) — only the columns a check needs, never content."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator
from typing import Any

from sqlalchemy import Connection

from brainview.store.era import Era
from brainview.store.readmodel import SynapseKey
from brainview.store.rows import driver

_IDS = 500
_KEYS = 300


_SCAN_SHARE = 3
"""Ids × this ≥ the table's largest rowid: one scan beats a probe per id."""
_SCAN_FROM = 2_000
"""Fewer ids than this are always probed."""


def _neurons(raw: sqlite3.Connection, columns: str, unique: list[str]) -> Iterator[tuple[Any, ...]]:
    """``(id, …columns)`` of the neurons among ``unique`` (ids, no repeats).

    Probed by primary key, 500 ids a statement — or, when the ids are a good part of
    the table (a consolidation names most reflections), one scan in storage order
    filtered here: probing 100k ids costs twice reading every row."""
    if len(unique) >= _SCAN_FROM:
        (top,) = raw.execute("SELECT max(rowid) FROM neuron").fetchone()
        if len(unique) * _SCAN_SHARE >= (top or 0):
            want = set(unique)
            sql = f"SELECT id, {columns} FROM neuron NOT INDEXED"
            yield from (row for row in raw.execute(sql) if row[0] in want)
            return
    for start in range(0, len(unique), _IDS):
        chunk = unique[start : start + _IDS]
        marks = ",".join("?" * len(chunk))
        yield from raw.execute(f"SELECT id, {columns} FROM neuron WHERE id IN ({marks})", chunk)


def liveness(conn: Connection, era: Era, ids: Iterable[str]) -> dict[str, bool]:
    """Existing ids of ``ids`` → whether the neuron is live (not soft-retired)."""
    live = "+retired_at IS NULL" if era.has_retire else "1"
    rows = _neurons(driver(conn), live, list(dict.fromkeys(ids)))
    return {str(i): bool(v) for i, v in rows}


def live_synapses(conn: Connection, era: Era, keys: Iterable[SynapseKey]) -> set[SynapseKey]:
    """Which ``(pre, post, type)`` keys name a live synapse row: one primary-key probe
    per key (a ``VALUES`` list joined to the table, 300 keys a statement)."""
    wanted = sorted(set(keys))
    live = era.live_synapse("s")
    raw = driver(conn)
    found: set[SynapseKey] = set()
    for start in range(0, len(wanted), _KEYS):
        chunk = wanted[start : start + _KEYS]
        values = ",".join("(?, ?, ?)" for _ in chunk)
        sql = (
            f"SELECT s.pre, s.post, s.type FROM (VALUES {values}) AS k CROSS JOIN synapse s "
            f"ON s.pre = k.column1 AND s.post = k.column2 AND s.type = k.column3 WHERE {live}"
        )
        flat = [v for key in chunk for v in key]
        found.update((str(a), str(b), str(t)) for a, b, t in raw.execute(sql, flat))
    return found


def kinds_and_retired(
    conn: Connection, era: Era, ids: Iterable[str]
) -> dict[str, tuple[str | None, str | None]]:
    """Existing ids of ``ids`` → ``(type, retired_at)``."""
    retired = "retired_at" if era.has_retire else "NULL"
    rows = _neurons(driver(conn), f"type, {retired}", list(dict.fromkeys(ids)))
    return {str(i): (t, r) for i, t, r in rows}


def latest_lifecycle(
    conn: Connection, ids: Iterable[str]
) -> dict[str, tuple[str, str, str, str, str | None]]:
    """id → its latest ``brainview_lifecycle`` row ``(state, reason, actor, at,
    batch_id)`` (the table must exist; ids without a row are absent)."""
    unique = list(dict.fromkeys(ids))
    raw = driver(conn)
    out: dict[str, tuple[str, str, str, str, str | None]] = {}
    for start in range(0, len(unique), 400):
        chunk = unique[start : start + 400]
        sql = (
            "SELECT reflection_id, state, reason, actor, at, batch_id FROM brainview_lifecycle "
            f"WHERE reflection_id IN ({','.join('?' * len(chunk))}) ORDER BY id"
        )
        for rid, state, reason, actor, at, batch in raw.execute(sql, chunk):
            out[rid] = (state, reason, actor, at, batch)
    return out
