"""Set-based reads for intake's checks: what a batch of proposals names, read for the
whole batch at once through the driver connection (``?`` placeholders, no statement
compilation, no row objects) — only the columns a check needs, never content."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import Connection

from brainview.store.era import Era
from brainview.store.readmodel import SynapseKey
from brainview.store.rows import driver

_IDS = 500
_KEYS = 300


def liveness(conn: Connection, era: Era, ids: Iterable[str]) -> dict[str, bool]:
    """Existing ids of ``ids`` → whether the neuron is live (not soft-retired)."""
    unique = list(dict.fromkeys(ids))
    live = "+retired_at IS NULL" if era.has_retire else "1"
    raw = driver(conn)
    out: dict[str, bool] = {}
    for start in range(0, len(unique), _IDS):
        chunk = unique[start : start + _IDS]
        sql = f"SELECT id, {live} FROM neuron WHERE id IN ({','.join('?' * len(chunk))})"
        out.update((str(i), bool(v)) for i, v in raw.execute(sql, chunk))
    return out


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
    unique = list(dict.fromkeys(ids))
    retired = "retired_at" if era.has_retire else "NULL"
    raw = driver(conn)
    out: dict[str, tuple[str | None, str | None]] = {}
    for start in range(0, len(unique), _IDS):
        chunk = unique[start : start + _IDS]
        sql = f"SELECT id, type, {retired} FROM neuron WHERE id IN ({','.join('?' * len(chunk))})"
        out.update((str(i), (t, r)) for i, t, r in raw.execute(sql, chunk))
    return out


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
