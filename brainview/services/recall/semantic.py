"""Semantic recall: the query embedded by the project's own embedder, compared with every
live lesson's vector.

The vectors come from, in order: Spikuit's ``neuron_vec`` in the agent brain (read, never
written), brainview's cache of vectors it computed before (in the recall index file,
keyed by embedder and lesson signature), and the provider, asked for at most
:data:`MAX_EMBED` missing lessons a recall (then cached; the rest are counted as
``missing`` and embedded by later recalls).  They are held in memory by the recall
handle until the brain or the embedder changes, so a warm recall pays one matrix-vector
product.

Anything that stops it — no embedder configured, the provider unreachable or slow
(bounded timeout), a vector of another length than the config's ``dimension`` — turns
semantic recall off for this recall: ``status`` says why in one line and the ranking is
lexical, cited and spreading as without an embedder.  A provider that failed is not
asked again for :data:`RETRY_AFTER` seconds.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from brainview.core.embedding import EmbedConfig, document_text, with_prefix
from brainview.core.fusion import semantic_pool
from brainview.store import recall_embedder, recall_vectors
from brainview.store.recall_embedder import EmbedError
from brainview.store.recall_handle import Handle
from brainview.store.recall_lookup import stored_stamp

MAX_EMBED = 2_000
"""Lessons a recall may send to the provider (a cold cache of 100k lessons fills over
several recalls, or at once through ``spkt embed-all``)."""
BATCH = 64
MAX_EMBED_CHARS = 20_000
RETRY_AFTER = 60.0
QUERY_CACHE = 256


@dataclass
class Vectors:
    """Every embedded live lesson's unit vector, and what they were read for."""

    key: str
    stamp: tuple[Any, ...]
    ids: list[str]
    matrix: np.ndarray
    stored: int
    computed: int
    todo: list[tuple[int, str, str]] = field(default_factory=list)
    """Live lessons with no vector yet (rowid, id, signature), embedded a few a recall."""

    @property
    def missing(self) -> int:
        return len(self.todo)


@dataclass
class Semantic:
    """Cosines of the most similar lessons (empty when off) and what happened."""

    cosines: dict[str, float] = field(default_factory=dict)
    status: dict[str, Any] = field(default_factory=dict)


def off(reason: str, **more: Any) -> Semantic:
    return Semantic({}, {"on": False, "reason": reason} | more)


def semantic_scores(
    handle: Handle,
    conn: Any,
    agent_db: Path,
    project_root: Path | None,
    text: str,
    exclude: set[str] | frozenset[str],
    *,
    synced: bool,
) -> Semantic:
    """Semantic scores for ``text`` (module docstring); never raises for the embedder.

    ``synced``: the brain may have changed since the last recall (its files moved)."""
    config, where = recall_embedder.find_config(agent_db, project_root)
    if config is None:
        return off(where)
    down = handle.embed_down
    if down is not None and down[0] == config.key() and time.monotonic() < down[1]:
        return off(down[2], model=config.describe())
    try:
        vectors = _vectors(handle, conn, config, synced)
        if isinstance(vectors, str):
            return off(vectors, model=config.describe())
        started = time.perf_counter()
        query = _query(handle, config, text)
        query_ms = round((time.perf_counter() - started) * 1000, 1)
    except EmbedError as err:
        handle.embed_down = (config.key(), time.monotonic() + RETRY_AFTER, str(err))
        return off(str(err), model=config.describe())
    handle.embed_down = None
    started = time.perf_counter()
    sims = vectors.matrix @ query if vectors.ids else np.zeros(0, np.float32)
    cosines = semantic_pool(sims, vectors.ids, exclude)
    return Semantic(
        cosines,
        {
            "on": True,
            "reason": None,
            "model": config.describe(),
            "config": where,
            "lessons": len(vectors.ids),
            "stored": vectors.stored,
            "computed": vectors.computed,
            "missing": vectors.missing,
            "query_embed_ms": query_ms,
            "match_ms": round((time.perf_counter() - started) * 1000, 1),
        },
    )


def _query(handle: Handle, config: EmbedConfig, text: str) -> np.ndarray:
    """The query's unit vector (asked of the provider once per text)."""
    cache_key = (config.key(), text)
    found = handle.queries.get(cache_key)
    if found is not None:
        return found
    raw = recall_embedder.embed(
        config,
        [with_prefix(text, config.prefix_style, "query")],
        timeout=recall_embedder.QUERY_TIMEOUT,
    )[0]
    norm = float(np.linalg.norm(raw))
    vec = (raw / norm if norm > 0 else raw).astype(np.float32)
    if len(handle.queries) >= QUERY_CACHE:
        handle.queries.clear()
    handle.queries[cache_key] = vec
    return vec


def _vectors(handle: Handle, conn: Any, config: EmbedConfig, synced: bool) -> Vectors | str:
    """The handle's vectors, read again when the brain, the index or the embedder moved;
    lessons still without one are embedded, :data:`MAX_EMBED` a recall.  A string says
    why semantic is off."""
    held = handle.vectors
    mine = isinstance(held, Vectors) and held.key == config.key()
    if isinstance(held, Vectors) and mine and not synced and not held.todo:
        return held
    shape = recall_vectors.stored_shape(conn)
    stamp = (stored_stamp(handle.idx), shape)
    if isinstance(held, Vectors) and mine and held.stamp == stamp:
        _fill(handle, conn, config, held)
        return held
    if shape is not None and shape[0] != config.dimension:
        return (
            f"dimension mismatch: the agent brain's vectors have {shape[0]} dimensions, "
            f"the embedder config says {config.dimension}"
        )
    lessons = recall_vectors.live_lessons(handle.idx)
    ids = [nid for _r, nid, _s in lessons]
    spikuit = recall_vectors.stored(conn, ids, config.dimension) if shape is not None else {}
    want = {rid: sig for rid, nid, sig in lessons if nid not in spikuit}
    cached = recall_vectors.cached(handle.idx, config.key(), want, config.dimension)
    keep_ids, rows, todo = [], [], []
    for rid, nid, sig in lessons:
        vec = spikuit.get(nid)
        if vec is None:
            vec = cached.get(rid)
        if vec is None:
            todo.append((rid, nid, sig))
        else:
            keep_ids.append(nid)
            rows.append(vec)
    if recall_vectors.prune(handle.idx, {rid for rid, _n, _s in lessons}):
        handle.mark_current(handle.seen)  # our own write to the index file
    done = Vectors(
        config.key(), stamp, keep_ids, _unit(rows, config.dimension),
        stored=sum(1 for n in ids if n in spikuit), computed=len(cached), todo=todo,
    )  # fmt: skip
    handle.vectors = done
    _fill(handle, conn, config, done)
    return done


def _fill(handle: Handle, conn: Any, config: EmbedConfig, held: Vectors) -> None:
    """Embed the next :data:`MAX_EMBED` lessons without a vector; cache and add them."""
    if not held.todo:
        return
    part = held.todo[:MAX_EMBED]
    fresh = _embed_missing(conn, config, [(rid, sig) for rid, _n, sig in part])
    recall_vectors.save(
        handle.idx, config.key(), [(r, s, fresh[r]) for r, _n, s in part if r in fresh]
    )
    handle.mark_current(handle.seen)  # our own write to the index file, not the brain's
    got = [(nid, fresh[rid]) for rid, nid, _s in part if rid in fresh]
    if got:
        held.matrix = np.vstack([held.matrix, _unit([v for _n, v in got], config.dimension)])
        held.ids = held.ids + [nid for nid, _v in got]
        held.computed += len(got)
    held.todo = held.todo[len(part) :]


def _unit(rows: list[np.ndarray], dim: int) -> np.ndarray:
    """``rows`` as one contiguous float32 matrix of unit rows (zero rows stay zero)."""
    if not rows:
        return np.zeros((0, dim), np.float32)
    matrix = np.vstack(rows).astype(np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    out = np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)
    return np.ascontiguousarray(out, np.float32)


def _embed_missing(
    conn: Any, config: EmbedConfig, todo: list[tuple[int, str]]
) -> dict[int, np.ndarray]:
    """Vectors for the lessons at ``todo``'s rowids, asked in batches of :data:`BATCH`."""
    if not todo:
        return {}
    texts = recall_vectors.contents(conn, [rid for rid, _s in todo], MAX_EMBED_CHARS)
    out: dict[int, np.ndarray] = {}
    rids = [rid for rid, _s in todo if rid in texts]
    for start in range(0, len(rids), BATCH):
        part = rids[start : start + BATCH]
        docs = [with_prefix(document_text(texts[r]), config.prefix_style, "document") for r in part]
        got = recall_embedder.embed(config, docs, timeout=recall_embedder.BATCH_TIMEOUT)
        out.update(zip(part, got, strict=True))
    return out
