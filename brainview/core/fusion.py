"""The two score terms recall adds to lexical and spreading, and which parts found a hit.

**Cited neurons.**  A lesson citing the draft's own user neurons is about the draft's
case.  Its term is the share of the draft's neurons it cites, each weighted by how rare
citing it is (``idf = ln(1 + N / n)``, ``n`` live lessons cite it out of ``N``): citing
both neurons of a merge beats citing one; citing a neuron every lesson cites counts
little.  This is BM25's weighting of the ids as terms without the length and frequency
parts (a lesson cites a neuron or not), in [0, 1].

**Semantic.**  Cosine similarity of the query's and the lessons' vectors, kept for the
best :data:`SEMANTIC_POOL` lessons and scaled to [0, 1] between the last of them (0) and
the best (1) — the way BM25 is scaled by the best candidate, with a floor so that "the
200th most similar lesson" does not count as evidence.  A query that is close to no
lesson still has a best one: that is why the semantic term has a weight below spreading
and the cited neurons (see :mod:`brainview.core.recall_rank`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

import numpy as np

SEMANTIC_POOL = 200

LEXICAL = "lexical"
SEMANTIC = "semantic"
SPREADING = "spreading"
CITED = "cited"
PARTS = (CITED, LEXICAL, SEMANTIC, SPREADING)


def cited_scores(
    citing: Mapping[str, list[str]], refs: Iterable[str], total: int
) -> dict[str, float]:
    """Lesson → idf-weighted share of the draft's neurons ``refs`` it cites.

    ``citing``: lesson → the draft neurons it cites; ``total``: live lessons."""
    draft = list(dict.fromkeys(refs))
    if not draft or not citing:
        return {}
    counts: dict[str, int] = {}
    for users in citing.values():
        for u in set(users):
            counts[u] = counts.get(u, 0) + 1
    n = max(total, 1)
    idf = {u: math.log(1 + n / counts[u]) if counts.get(u) else math.log(1 + n) for u in draft}
    whole = sum(idf.values())
    return {
        lesson: sum(idf[u] for u in set(users) if u in idf) / whole
        for lesson, users in citing.items()
    }


def semantic_pool(
    sims: np.ndarray, ids: list[str], skip: set[str] | frozenset[str], pool: int = SEMANTIC_POOL
) -> dict[str, float]:
    """The best ``pool`` lessons by cosine ``sims`` (aligned with ``ids``), those in
    ``skip`` left out: lesson → cosine."""
    if sims.size == 0:
        return {}
    want = min(sims.size, pool + len(skip))
    top = np.argpartition(-sims, want - 1)[:want] if want < sims.size else np.arange(sims.size)
    top = top[np.argsort(-sims[top], kind="stable")]
    out: dict[str, float] = {}
    for i in top.tolist():
        if ids[i] in skip:
            continue
        out[ids[i]] = float(sims[i])
        if len(out) >= pool:
            break
    return out


def scale_semantic(cosines: Mapping[str, float]) -> dict[str, float]:
    """Cosines of a pool scaled to [0, 1]: its best 1, its worst (the floor) 0."""
    if not cosines:
        return {}
    best = max(cosines.values())
    floor = min(cosines.values()) if len(cosines) > 1 else 0.0
    span = best - floor
    if span <= 1e-9 or best <= 0:
        return {r: (1.0 if c >= best and best > 0 else 0.0) for r, c in cosines.items()}
    return {r: max(0.0, (c - floor) / span) for r, c in cosines.items()}


def found_by(
    *, lexical: float, semantic: float, cited: bool, spread: float, seeded: bool
) -> list[str]:
    """The parts that found a hit: ``cited`` (cites a draft neuron), ``lexical`` (its
    words matched), ``semantic`` (among the most similar by vector), ``spreading``
    (reached by the walk without being a seed of its own, or seeded only through a
    draft neuron's user-brain neighbour)."""
    out = []
    if cited:
        out.append(CITED)
    if lexical > 0:
        out.append(LEXICAL)
    if semantic > 0:
        out.append(SEMANTIC)
    if spread > 0 and not seeded:
        out.append(SPREADING)
    return out
