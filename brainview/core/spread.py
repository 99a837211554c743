"""Spreading activation over the agent brain: APPNP, sparse and bounded.

APPNP (Klicpera et al., 2019) propagates a seed vector ``H`` through the row-normalised
graph with teleport ``alpha``: ``Z ← (1 − alpha)·ÂᵀZ + alpha·H``, ``rounds`` times; in the
limit it is personalised PageRank with ``H`` as the personalisation.  Here the graph is
never materialised: each round asks for the edges of the nodes that hold mass (one batched
lookup), nodes holding less than ``eps`` of the total are not expanded, and at most
``max_nodes`` are, so a recall touches a neighbourhood, never the brain (Spikuit's own
propagation is a dense O(N³) solve).

Only ``relates_to`` spreads fully; ``extends`` and ``requires`` spread at a discount;
``contrasts`` does not spread at all (it marks a lesson a later one overturned, see
:func:`overturned`), nor does ``summarizes`` (a policy is surfaced, not ranked).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

import numpy as np

SPREAD_FACTOR: dict[str, float] = {"relates_to": 1.0, "extends": 0.6, "requires": 0.6}


@dataclass(frozen=True)
class Edge:
    """One stored synapse row (bidirectional types are stored as two rows)."""

    pre: str
    post: str
    type: str
    weight: float


Neighbours = Callable[[list[str]], Iterable[Edge]]
"""Outgoing edges of the given nodes (any types; the caller bounds the batch)."""


@dataclass
class Spread:
    """Activation after propagation, and the ``contrasts`` edges seen on the way."""

    activation: dict[str, float]
    seen: dict[str, list[Edge]]
    expanded: int


def appnp(
    seeds: Mapping[str, float],
    neighbours: Neighbours,
    *,
    alpha: float = 0.25,
    rounds: int = 5,
    eps: float = 2e-3,
    max_nodes: int = 2_000,
) -> Spread:
    """Propagate ``seeds`` (any non-negative weights; normalised here) ``rounds`` times.

    A node holding less than ``eps`` of the mass keeps it but is not expanded; a node
    with no spreading edge keeps its mass too (a sink)."""
    total = sum(v for v in seeds.values() if v > 0)
    if total <= 0:
        return Spread({}, {}, 0)
    index: dict[str, int] = {}
    names: list[str] = []

    def ix(name: str) -> int:
        if name not in index:
            index[name] = len(names)
            names.append(name)
        return index[name]

    h_pairs = [(ix(k), v / total) for k, v in seeds.items() if v > 0]
    src: list[int] = []
    dst: list[int] = []
    wts: list[float] = []
    contrasts: dict[str, list[Edge]] = {}
    expanded: set[int] = set()
    z = np.zeros(len(names))
    for i, v in h_pairs:
        z[i] = v
    for _ in range(rounds):
        active = np.flatnonzero(z >= eps)
        active = active[np.argsort(-z[active], kind="stable")][:max_nodes]
        fresh = [names[i] for i in active.tolist() if i not in expanded]
        expanded.update(index[n] for n in fresh)
        for e in neighbours(fresh) if fresh else ():
            factor = SPREAD_FACTOR.get(e.type, 0.0)
            if e.type == "contrasts":
                contrasts.setdefault(e.pre, []).append(e)
            elif factor > 0 and e.weight > 0 and e.pre in index:
                src.append(index[e.pre])
                dst.append(ix(e.post))
                wts.append(e.weight * factor)
        n = len(names)
        z = np.concatenate([z, np.zeros(n - z.size)])
        s, d, w = np.array(src, np.int64), np.array(dst, np.int64), np.array(wts)
        live = np.zeros(n, bool)
        live[active] = True
        keep = live[s] if s.size else np.zeros(0, bool)
        s, d, w = s[keep], d[keep], w[keep]
        out = np.bincount(s, weights=w, minlength=n)
        nxt = np.zeros(n)
        for i, v in h_pairs:
            nxt[i] += alpha * v
        if s.size:
            nxt += (1 - alpha) * np.bincount(d, weights=z[s] * w / out[s], minlength=n)
        nxt[out <= 0] += (1 - alpha) * z[out <= 0]  # sinks and unexpanded nodes keep theirs
        z = nxt
    return Spread({names[i]: float(v) for i, v in enumerate(z) if v > 0}, contrasts, len(expanded))


def overturned(node: str, seen: Mapping[str, list[Edge]], created: Mapping[str, str]) -> list[str]:
    """Lessons linked to ``node`` by ``contrasts`` that were written after it."""
    mine = created.get(node)
    if mine is None:
        return []
    out = []
    for e in seen.get(node, ()):
        later = created.get(e.post)
        if e.type == "contrasts" and later is not None and later > mine:
            out.append(e.post)
    return list(dict.fromkeys(out))
