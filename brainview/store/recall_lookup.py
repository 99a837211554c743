"""Lookups over a synced recall index (:mod:`brainview.store.recall_index`): BM25 over
live lessons, ids by rowid, reflections citing user neurons, doc metadata, and the
per-lesson arrays (cached per connection until a sync changes them)."""

from __future__ import annotations

import sqlite3

from brainview.store import recall_postings


def stored_stamp(idx: sqlite3.Connection) -> str | None:
    """The brain fingerprint the index was last synced to (``None``: never synced)."""
    row = idx.execute("SELECT value FROM meta WHERE key = 'fingerprint'").fetchone()
    return None if row is None else str(row[0])


def lexical(
    idx: sqlite3.Connection, words: list[str], skill: str | None, limit: int
) -> tuple[list[tuple[str, float, list[str]]], dict[str, str]]:
    """``(reflection id, BM25, matched words)`` of the best ``limit`` live lessons, and the
    index term each query word became."""
    if not words:
        return [], {}
    stem = recall_postings.stems(idx, words)
    arrays = arrays_of(idx)
    ranked = recall_postings.bm25(idx, list(stem.values()), arrays, skill, limit)
    if not ranked:
        return [], stem
    by_term: dict[str, list[str]] = {}
    for w, t in stem.items():
        by_term.setdefault(t, []).append(w)
    ids = _ids(idx, [rid for rid, _s, _m in ranked])
    out = [
        (ids[rid], score, [w for t in matched for w in by_term.get(t, [])])
        for rid, score, matched in ranked
        if rid in ids
    ]
    return out, stem


def _ids(idx: sqlite3.Connection, rids: list[int]) -> dict[int, str]:
    out: dict[int, str] = {}
    for start in range(0, len(rids), 500):
        chunk = rids[start : start + 500]
        marks = ",".join("?" * len(chunk))
        for rid, nid in idx.execute(f"SELECT rid, id FROM doc WHERE rid IN ({marks})", chunk):
            out[int(rid)] = str(nid)
    return out


def citing(idx: sqlite3.Connection, user_ids: list[str]) -> dict[str, list[str]]:
    """Live reflections that reference each of ``user_ids`` (reflection id → those ids)."""
    out: dict[str, list[str]] = {}
    for start in range(0, len(user_ids), 500):
        chunk = user_ids[start : start + 500]
        marks = ",".join("?" * len(chunk))
        for uid, rid in idx.execute(
            f"SELECT ref.user_id, doc.id FROM ref JOIN doc ON doc.rid = ref.rid "
            f"WHERE ref.user_id IN ({marks}) AND doc.retired = 0",
            chunk,
        ):
            out.setdefault(str(rid), []).append(str(uid))
    return out


def docs(idx: sqlite3.Connection, ids: list[str]) -> dict[str, tuple[str, str, str, bool]]:
    """id → (type, skill, created, live) for the indexed neurons among ``ids``."""
    out: dict[str, tuple[str, str, str, bool]] = {}
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        marks = ",".join("?" * len(chunk))
        for nid, typ, skill, created, retired in idx.execute(
            f"SELECT id, type, skill, created, retired FROM doc WHERE id IN ({marks})", chunk
        ):
            out[str(nid)] = (str(typ), str(skill or ""), str(created or ""), not retired)
    return out


def size(idx: sqlite3.Connection) -> int:
    """Live reflections indexed."""
    return arrays_of(idx).live


_ARRAYS: dict[int, tuple[str | None, recall_postings.Arrays]] = {}


def arrays_of(idx: sqlite3.Connection) -> recall_postings.Arrays:
    """The per-lesson arrays, read again only after a sync changed them."""
    stamp = stored_stamp(idx)
    cached = _ARRAYS.get(id(idx))
    if cached is None or cached[0] != stamp:
        cached = (stamp, recall_postings.load_arrays(idx))
        _ARRAYS[id(idx)] = cached
        while len(_ARRAYS) > 8:
            _ARRAYS.pop(next(iter(_ARRAYS)))
    return cached[1]
