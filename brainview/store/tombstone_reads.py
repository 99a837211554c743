"""Reads of the tombstones an invalidation leaves (``brainview_tombstone``, with its
MinHash bands in ``brainview_tombstone_band``) and of the live reflections compared
with them.  The hashing itself is :mod:`brainview.services.lifecycle.tombstones`."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from sqlalchemy import Connection, text

from brainview.store.era import Era
from brainview.store.readmodel import table_exists

CHUNK = 400
"""Bands (pairs) or ids per statement: well under SQLite's variable limit."""


def any_band(conn: Connection) -> bool:
    """Whether any tombstone band is stored (the usual answer is no)."""
    if not table_exists(conn, "brainview_tombstone_band"):
        return False
    return conn.execute(text("SELECT 1 FROM brainview_tombstone_band LIMIT 1")).first() is not None


def band_hits(conn: Connection, pairs: Sequence[tuple[int, str]]) -> Iterator[tuple[str, int, str]]:
    """``(tombstone id, band, bucket)`` for every stored band equal to one of
    ``pairs`` (``(band, bucket)``)."""
    for start in range(0, len(pairs), CHUNK):
        chunk = pairs[start : start + CHUNK]
        clause = " OR ".join(f"(band = :b{i} AND bucket = :k{i})" for i in range(len(chunk)))
        params: dict[str, Any] = {f"b{i}": b for i, (b, _k) in enumerate(chunk)}
        params |= {f"k{i}": k for i, (_b, k) in enumerate(chunk)}
        for tid, band, bucket in conn.execute(
            text(
                f"SELECT reflection_id, band, bucket FROM brainview_tombstone_band WHERE {clause}"
            ),
            params,
        ):
            yield str(tid), int(band), str(bucket)


def buried_contents(conn: Connection, ids: Iterable[str]) -> dict[str, str]:
    """Tombstone id → its buried text, for the ``ids`` not lifted."""
    unique = sorted(set(ids))
    out: dict[str, str] = {}
    for start in range(0, len(unique), CHUNK):
        chunk = unique[start : start + CHUNK]
        marks = ",".join(f":t{i}" for i in range(len(chunk)))
        rows = conn.execute(
            text(
                "SELECT reflection_id, content FROM brainview_tombstone "
                f"WHERE lifted_at IS NULL AND reflection_id IN ({marks})"
            ),
            {f"t{i}": t for i, t in enumerate(chunk)},
        )
        out.update((str(r), str(c)) for r, c in rows)
    return out


def tombstone_rows(conn: Connection, *, include_lifted: bool = False) -> list[tuple[Any, ...]]:
    """``(reflection_id, content, skill, reason, batch_id, created_at, lifted_at)`` of
    every tombstone (lifted ones only when asked), newest first."""
    if not table_exists(conn, "brainview_tombstone"):
        return []
    where = "" if include_lifted else " WHERE lifted_at IS NULL"
    rows = conn.execute(
        text(
            "SELECT reflection_id, content, skill, reason, batch_id, created_at, lifted_at "
            f"FROM brainview_tombstone{where} ORDER BY created_at DESC, reflection_id"
        )
    )
    return [tuple(r) for r in rows]


def live_reflection_texts(conn: Connection, era: Era, limit: int) -> dict[str, str]:
    """Id → content of the newest ``limit`` live reflections."""
    rows = conn.execute(
        text(
            "SELECT id, content FROM neuron WHERE type = 'reflection' AND "
            f"{era.live('neuron')} ORDER BY created_at DESC, id LIMIT :n"
        ),
        {"n": limit},
    )
    return {str(r): str(c or "") for r, c in rows}
