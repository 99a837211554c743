"""Lesson vectors for semantic recall: the ones Spikuit stored in the agent brain, and
the ones brainview computed, kept in the recall cache (never in the brain).

**Spikuit's** (``spkt embed-all``, or every add/update with an embedder): a sqlite-vec
``vec0`` virtual table ``neuron_vec(embedding float[D])`` and ``neuron_vec_map(rowid,
neuron_id)``.  This Python's ``sqlite3`` may not load extensions, and a read needs none:
vec0 keeps its rows in plain shadow tables — ``neuron_vec_rowids(rowid, id, chunk_id,
chunk_offset)`` and ``neuron_vec_vector_chunks00(rowid = chunk_id, vectors)``, a chunk
being its vectors' little-endian float32s end to end, with ``neuron_vec_chunks.validity``
a bitmap of the slots in use.  Anything that is not that shape (another sqlite-vec
layout) reads as "no stored vectors", and the lessons are embedded through the provider
instead.

**brainview's**: table ``vec(rid, key, sig, v)`` in the recall index file: the lesson's
neuron rowid, the embedder it was made with (:meth:`EmbedConfig.key`), the lesson's
signature when embedded (content length and ``updated_at``, as the index sees them) and
the float32 vector.  A vector whose key or signature no longer matches is not used.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable
from typing import Any

import numpy as np

DDL = [
    """CREATE TABLE IF NOT EXISTS vec (rid INTEGER PRIMARY KEY, key TEXT NOT NULL,
        sig TEXT NOT NULL, v BLOB NOT NULL)"""
]
_DIM = re.compile(r"USING\s+vec0\s*\(\s*embedding\s+float\s*\[\s*(\d+)\s*\]\s*\)", re.I)
_SHADOW = ("neuron_vec_map", "neuron_vec_rowids", "neuron_vec_chunks", "neuron_vec_vector_chunks00")
CHUNK = 500


def live_lessons(idx: sqlite3.Connection) -> list[tuple[int, str, str]]:
    """``(rowid, id, signature)`` of every live reflection in the index, by rowid."""
    return [
        (int(rid), str(nid), f"{length}|{updated}")
        for rid, nid, length, updated in idx.execute(
            "SELECT rid, id, len, updated FROM doc WHERE type = 'reflection' AND retired = 0 "
            "ORDER BY rid"
        )
    ]


def stored_shape(agent: sqlite3.Connection) -> tuple[int, tuple[Any, ...]] | None:
    """``(dimension, state)`` of Spikuit's ``neuron_vec`` (``None``: the brain has none,
    or not in the shape this reads).  ``state`` moves whenever a vector is added or
    removed (counts and highest rowids of the map and the vec0 rows)."""
    rows = dict(
        agent.execute(
            "SELECT name, sql FROM sqlite_master WHERE name IN ('neuron_vec', "
            + ",".join(f"'{t}'" for t in _SHADOW)
            + ")"
        ).fetchall()
    )
    if set(rows) != {"neuron_vec", *_SHADOW}:
        return None
    found = _DIM.search(str(rows["neuron_vec"] or ""))
    if found is None:
        return None
    state = agent.execute(
        "SELECT (SELECT count(*) FROM neuron_vec_map), (SELECT max(rowid) FROM neuron_vec_map), "
        "(SELECT count(*) FROM neuron_vec_rowids), (SELECT max(rowid) FROM neuron_vec_rowids)"
    ).fetchone()
    return int(found.group(1)), tuple(state)


def stored(agent: sqlite3.Connection, ids: list[str], dim: int) -> dict[str, np.ndarray]:
    """Spikuit's vectors of ``ids`` (neuron ids) that are there and valid."""
    where: dict[str, tuple[int, int]] = {}
    for start in range(0, len(ids), CHUNK):
        part = ids[start : start + CHUNK]
        marks = ",".join("?" * len(part))
        for nid, chunk, offset in agent.execute(
            "SELECT m.neuron_id, r.chunk_id, r.chunk_offset FROM neuron_vec_map m "
            f"JOIN neuron_vec_rowids r ON r.rowid = m.rowid WHERE m.neuron_id IN ({marks})",
            part,
        ):
            if isinstance(chunk, int) and isinstance(offset, int) and offset >= 0:
                where[str(nid)] = (chunk, offset)
    out: dict[str, np.ndarray] = {}
    chunks = sorted({c for c, _o in where.values()})
    for start in range(0, len(chunks), CHUNK):
        some = chunks[start : start + CHUNK]
        marks = ",".join("?" * len(some))
        blobs = {
            int(cid): (bytes(vectors), bytes(valid))
            for cid, vectors, valid in agent.execute(
                "SELECT v.rowid, v.vectors, c.validity FROM neuron_vec_vector_chunks00 v "
                f"JOIN neuron_vec_chunks c ON c.chunk_id = v.rowid WHERE v.rowid IN ({marks})",
                some,
            )
            if isinstance(vectors, bytes) and isinstance(valid, bytes)
        }
        for nid, (chunk, offset) in where.items():
            got = blobs.get(chunk)
            if got is None:
                continue
            vectors, valid = got
            end = (offset + 1) * dim * 4
            byte, bit = divmod(offset, 8)
            if end > len(vectors) or byte >= len(valid) or not (valid[byte] >> bit) & 1:
                continue
            out[nid] = np.frombuffer(vectors, "<f4", count=dim, offset=offset * dim * 4)
    return out


def cached(
    idx: sqlite3.Connection, key: str, want: dict[int, str], dim: int
) -> dict[int, np.ndarray]:
    """The cache's vectors of the lessons in ``want`` (rowid → signature) made with
    ``key`` for that signature."""
    out: dict[int, np.ndarray] = {}
    for rid, k, sig, blob in idx.execute("SELECT rid, key, sig, v FROM vec"):
        if k == key and want.get(rid) == sig and isinstance(blob, bytes) and len(blob) == 4 * dim:
            out[int(rid)] = np.frombuffer(blob, "<f4")
    return out


def save(idx: sqlite3.Connection, key: str, rows: Iterable[tuple[int, str, np.ndarray]]) -> None:
    """Keep computed vectors (rowid, signature, vector) in the cache, one transaction."""
    data = [(rid, key, sig, np.asarray(v, "<f4").tobytes()) for rid, sig, v in rows]
    if not data:
        return
    idx.execute("BEGIN IMMEDIATE")
    try:
        idx.executemany("INSERT OR REPLACE INTO vec VALUES (?,?,?,?)", data)
        idx.execute("COMMIT")
    except BaseException:
        idx.execute("ROLLBACK")
        raise


def prune(idx: sqlite3.Connection, live: set[int]) -> int:
    """Drop the cached vectors of lessons no longer live; how many went."""
    gone = [r for (r,) in idx.execute("SELECT rid FROM vec") if r not in live]
    if not gone:
        return 0
    idx.execute("BEGIN IMMEDIATE")
    try:
        for start in range(0, len(gone), CHUNK):
            part = gone[start : start + CHUNK]
            idx.execute(f"DELETE FROM vec WHERE rid IN ({','.join('?' * len(part))})", part)
        idx.execute("COMMIT")
    except BaseException:
        idx.execute("ROLLBACK")
        raise
    return len(gone)


def contents(agent: sqlite3.Connection, rids: list[int], chars: int) -> dict[int, str]:
    """The first ``chars`` characters of the neurons at ``rids``."""
    out: dict[int, str] = {}
    for start in range(0, len(rids), CHUNK):
        part = rids[start : start + CHUNK]
        marks = ",".join("?" * len(part))
        for rid, text in agent.execute(
            f"SELECT rowid, substr(content, 1, ?) FROM neuron WHERE rowid IN ({marks})",
            [chars, *part],
        ):
            out[int(rid)] = str(text or "")
    return out
