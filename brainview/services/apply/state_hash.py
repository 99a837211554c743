"""Spikuit's ``Circuit._graph_state_hash``, computed from the rows.

Spikuit 0.7.1 hashes its in-memory ``networkx.DiGraph``: nodes are the live neurons
(``list_neurons(limit=100_000)``: the newest 100,000 by ``created_at``) plus any edge
end; edges are the live synapse rows in table order, two types on one ordered pair
collapsing into one edge that keeps the weight of the row loaded last.  The hash is
``sha256("|".join(sorted nodes + [f"{u}->{v}:{w:.4f}" for sorted edges]))[:16]``.

``revert`` lays row changes brainview made back over the rows first (newest
first), giving the hash the brain would have without them: a consolidation plan's
items stay fresh while the only changes since the plan are its own accepted items.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from collections.abc import Sequence
from pathlib import Path

from brainview.services.apply.plan import RowChange
from brainview.store.apply_rows import live_synapse_edges, newest_live_neuron_ids, synapse_rowid
from brainview.store.era import Era

NODE_LIMIT = 100_000

Graph = tuple[list[str], dict[tuple[str, str, str], tuple[int, float]]]
"""(live neuron ids within Spikuit's load limit, live synapse key → (rowid, weight))."""

_cache: dict[object, Graph] = {}


def _file_key(path: Path) -> object:
    parts: list[object] = [str(path)]
    for p in (path, path.with_name(path.name + "-wal")):
        try:
            st = os.stat(p)
            parts += [st.st_mtime_ns, st.st_size]
        except OSError:
            parts.append(None)
    return tuple(parts)


def load_graph(raw: sqlite3.Connection, era: Era, path: Path | None = None) -> Graph:
    """The rows the hash depends on (cached per file state when ``path`` is given)."""
    key = _file_key(path) if path is not None else None
    if key is not None and key in _cache:
        return _cache[key]
    nodes = newest_live_neuron_ids(raw, era, NODE_LIMIT)
    edges = {
        (pre, post, typ): (rowid, float(w or 0.0))
        for rowid, pre, post, typ, w in live_synapse_edges(raw, era)
    }
    graph: Graph = (nodes, edges)
    if key is not None:
        _cache.clear()
        _cache[key] = graph
    return graph


def _reverted(raw: sqlite3.Connection, graph: Graph, revert: Sequence[RowChange]) -> Graph:
    nodes = set(graph[0])
    edges = dict(graph[1])
    for change in reversed(revert):
        if change.table == "neuron":
            nid = str(change.key[0])
            if change.before is not None and change.before.get("retired_at") is None:
                nodes.add(nid)
            else:
                nodes.discard(nid)
        elif change.table == "synapse":
            key = (str(change.key[0]), str(change.key[1]), str(change.key[2]))
            before = change.before
            if before is None or before.get("retired_at") is not None:
                edges.pop(key, None)
                continue
            found = synapse_rowid(raw, key)
            rowid = found if found is not None else (1 << 62)
            edges[key] = (rowid, float(before.get("weight") or 0.0))
    return sorted(nodes), edges


def graph_state_hash(
    raw: sqlite3.Connection,
    era: Era,
    *,
    revert: Sequence[RowChange] = (),
    path: Path | None = None,
) -> str:
    """The hash ``spkt consolidate`` would put in a plan made now (see module doc)."""
    graph = load_graph(raw, era, path)
    if revert:
        graph = _reverted(raw, graph, revert)
    nodes, rows = graph
    weights: dict[tuple[str, str], float] = {}
    for (pre, post, _typ), (_rowid, w) in sorted(rows.items(), key=lambda kv: kv[1][0]):
        weights[(pre, post)] = w  # the row loaded last wins, as DiGraph.add_edge does
    names = set(nodes) | {n for pair in weights for n in pair}
    parts = sorted(names)
    parts += [f"{u}->{v}:{w:.4f}" for (u, v), w in sorted(weights.items())]
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:16]
