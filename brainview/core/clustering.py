"""Community detection over reflections: pure functions on arrays (no database, no UI).

The graph is undirected: every live synapse row between two live reflections adds its
weight to the pair, a bidirectional type (``relates_to``/``contrasts``, stored as two
rows) at half weight per row, so each relation counts once at its mean strength.
Detection is igraph's Leiden (modularity objective, C core) with a seeded Python RNG,
on nodes in id order and edges sorted by pair, so a given brain always yields the same
partition. Communities are renumbered canonically: largest first, ties broken by the
smallest member id; isolated reflections end up as singletons.
"""

from __future__ import annotations

import math
import random
import re
import threading
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

SEED = 20_261_130
"""Fixed RNG seed: same brain, same partition."""
RESOLUTION = 1.0
ALGORITHM = "leiden-modularity-v1"
"""Recorded with cached results; bump when the method changes so caches recompute."""

_RNG_LOCK = threading.Lock()  # igraph's RNG is process-global


@dataclass(frozen=True)
class Edges:
    """Undirected weighted edges, one per node pair, sorted by ``(a, b)`` with ``a < b``."""

    a: np.ndarray
    b: np.ndarray
    w: np.ndarray

    def __len__(self) -> int:
        return int(self.a.shape[0])


@dataclass(frozen=True)
class Partition:
    """A detected (or cached) community structure over live reflections."""

    fingerprint: str
    """Fingerprint of the graph it was computed from (the cache key)."""
    ids: list[str]
    """Reflection ids, sorted."""
    membership: np.ndarray
    """Community number per id (canonical: 0 is the biggest)."""
    policies: dict[str, int]
    """Policy neuron → the community it summarises."""
    modularity: float
    n_edges: int
    algorithm: str = ALGORITHM
    computed_at: str = ""
    seconds: float = 0.0

    @property
    def n_communities(self) -> int:
        """How many communities (singletons included)."""
        return int(self.membership.max()) + 1 if self.membership.size else 0

    def sizes(self) -> np.ndarray:
        """Members per community."""
        return np.bincount(self.membership, minlength=self.n_communities)


def collapse_edges(pre: np.ndarray, post: np.ndarray, weight: np.ndarray) -> Edges:
    """Fold directed rows (node indices, ``-1`` = not a node) into undirected pair weights.

    Rows touching a non-node and self-loops are dropped; negative weights count as 0.
    """
    pre = np.asarray(pre, dtype=np.int64)
    post = np.asarray(post, dtype=np.int64)
    weight = np.maximum(np.asarray(weight, dtype=np.float64), 0.0)
    keep = (pre >= 0) & (post >= 0) & (pre != post)
    lo = np.minimum(pre[keep], post[keep])
    hi = np.maximum(pre[keep], post[keep])
    if lo.size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return Edges(empty, empty.copy(), np.zeros(0, dtype=np.float64))
    base = int(hi.max()) + 1
    uniq, inverse = np.unique(lo * base + hi, return_inverse=True)
    sums = np.bincount(inverse, weights=weight[keep], minlength=uniq.size)
    return Edges(uniq // base, uniq % base, sums)


def canonical(membership: np.ndarray) -> np.ndarray:
    """Renumber communities: biggest first, ties by smallest member index (= smallest id)."""
    membership = np.asarray(membership, dtype=np.int64)
    if membership.size == 0:
        return membership
    labels, inverse, sizes = np.unique(membership, return_inverse=True, return_counts=True)
    first = np.full(labels.size, membership.size, dtype=np.int64)
    np.minimum.at(first, inverse, np.arange(membership.size))
    order = np.lexsort((first, -sizes))
    rank = np.empty(labels.size, dtype=np.int64)
    rank[order] = np.arange(labels.size)
    return rank[inverse]


def detect(
    n: int, edges: Edges, *, seed: int = SEED, resolution: float = RESOLUTION
) -> tuple[np.ndarray, float]:
    """Partition ``n`` nodes; returns ``(canonical membership, modularity)``."""
    if n == 0:
        return np.zeros(0, dtype=np.int64), 0.0
    if len(edges) == 0:
        return np.arange(n, dtype=np.int64), 0.0
    import igraph

    graph = igraph.Graph(n=n, edges=np.column_stack((edges.a, edges.b)), directed=False)
    weights = edges.w.tolist()
    with _RNG_LOCK:
        igraph.set_random_number_generator(random.Random(seed))
        try:
            found = graph.community_leiden(
                objective_function="modularity",
                weights=weights,
                resolution=resolution,
                n_iterations=2,
            )
        finally:
            igraph.set_random_number_generator(random)
    membership = canonical(np.asarray(found.membership, dtype=np.int64))
    quality = graph.modularity(membership.tolist(), weights=weights, resolution=resolution)
    return membership, float(quality)


def attach_policies(
    policy_members: Mapping[str, Sequence[int]], membership: np.ndarray
) -> dict[str, int]:
    """Each policy → the community most of its summarised members fall in (ties: lowest)."""
    out: dict[str, int] = {}
    for pid in sorted(policy_members):
        idx = [i for i in policy_members[pid] if 0 <= i < membership.size]
        if idx:
            counts = np.bincount(membership[idx])
            out[pid] = int(np.argmax(counts))  # argmax returns the lowest on ties
    return out


def nmi(a: Sequence[int] | np.ndarray, b: Sequence[int] | np.ndarray) -> float:
    """Normalised mutual information (arithmetic mean of entropies) of two partitions."""
    x = np.unique(np.asarray(a), return_inverse=True)[1]
    y = np.unique(np.asarray(b), return_inverse=True)[1]
    if x.size != y.size:
        raise ValueError("partitions cover different numbers of nodes")
    if x.size == 0:
        return 1.0
    joint = np.bincount(x * (y.max() + 1) + y).astype(np.float64)
    joint = joint[joint > 0] / x.size
    px = np.bincount(x) / x.size
    py = np.bincount(y) / y.size
    hx = -float(np.sum(px * np.log(px)))
    hy = -float(np.sum(py * np.log(py)))
    if hx == 0.0 and hy == 0.0:
        return 1.0
    hxy = -float(np.sum(joint * np.log(joint)))
    return max(0.0, (hx + hy - hxy) / ((hx + hy) / 2))


# -- labels: the most distinctive terms of a community ------------------------------------

_REF = re.compile(r"\[user:[^\]]{0,130}\]")
_WORD = re.compile(r"[^\W\d_][^\W_]{2,}")
LABEL_CHARS = 2_000
"""Only the start of a reflection feeds its label (huge texts stay cheap)."""
_STOPWORDS = """
    about above after again against all also and any are because been before being below
    between both but can could did does doing down during each even ever few for from
    further had has have having her here hers him his how into its itself just more most
    much must not now off once only other our out over own same she should some such than
    that the their them then there these they this those through too under until very was
    were what when where which while who whom why will with would you your yours user way
    like one two instead
"""
STOPWORDS = frozenset(_STOPWORDS.split())


def terms(text: str) -> frozenset[str]:
    """Lower-cased words of a reflection, ``[user:…]`` references and stopwords removed."""
    head = _REF.sub(" ", (text or "")[:LABEL_CHARS]).lower()
    return frozenset(w for w in _WORD.findall(head) if w not in STOPWORDS)


def document_frequency(docs: Iterable[frozenset[str]]) -> tuple[Counter[str], int]:
    """How many documents hold each term, and how many documents there were."""
    df: Counter[str] = Counter()
    n = 0
    for doc in docs:
        df.update(doc)
        n += 1
    return df, n


def distinctive_terms(
    members: Sequence[frozenset[str]], df: Mapping[str, int], n_docs: int, k: int = 3
) -> list[str]:
    """Top ``k`` terms by share of members holding them × inverse document frequency."""
    if not members:
        return []
    held: Counter[str] = Counter()
    for doc in members:
        held.update(doc)
    size = len(members)

    def score(term: str) -> float:
        return held[term] / size * math.log((1 + n_docs) / (1 + df.get(term, 0)))

    ranked = sorted(held, key=lambda t: (-score(t), t))
    return ranked[:k]
