"""Recall's candidates: the synapses a walk follows (cached per handle) and the best
eligible lessons by score, reading cards and kinds only for as many as it takes."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from brainview.core import recall_rank
from brainview.core.recall_rank import Parts
from brainview.core.spread import Edge, Spread, overturned
from brainview.services.project import Project
from brainview.services.recall.finish import retrievability_now
from brainview.services.recall.result import RecallQuery
from brainview.store import recall_graph, recall_index
from brainview.store.recall_handle import Handle

EDGE_CACHE = 200_000
"""Nodes whose synapses a handle keeps between recalls (then it starts afresh)."""


def edges(
    handle: Handle, conn: Any, era: Any, ids: list[str], exclude: frozenset[str] | set[str]
) -> list[Edge]:
    """Outgoing synapses of ``ids`` (none into ``exclude``): from the handle's cache,
    the rest from the brain."""
    missing = [n for n in ids if n not in handle.edges]
    if missing:
        if len(handle.edges) > EDGE_CACHE:
            handle.edges.clear()
        found: dict[str, list[Edge]] = {n: [] for n in missing}
        for e in recall_graph.edges(conn, era, missing):
            found[e.pre].append(e)
        handle.edges.update(found)
    return [e for n in ids for e in handle.edges[n] if e.post not in exclude]


class Extra:
    """The two terms beside lexical and spreading, each lesson's in [0, 1]."""

    def __init__(self, semantic: dict[str, float], cited: dict[str, float]) -> None:
        self.semantic = semantic
        self.cited = cited


Scored = tuple[float, str, float, float, float | None, list[str], str]
"""(score, reflection, lexical scaled, spread scaled, R, overturned by, skill)."""


def top(
    handle: Handle,
    conn: Any,
    project: Project,
    query: RecallQuery,
    lexical: dict[str, float],
    spread: Spread,
    now: datetime,
    want: int,
    exclude: frozenset[str] | set[str],
    extra: Extra,
) -> list[Scored]:
    """The ``want`` best eligible candidates by score, reading cards and kinds only for
    as many as it takes: candidates go in order of relevance, and a score never exceeds
    its relevance (R's factor is at most 1), so once ``want`` scores beat the next
    relevance the rest cannot enter."""
    best_lex = recall_rank.best(lexical)
    best_act = recall_rank.best(spread.activation)
    act = spread.activation
    sem, cited = extra.semantic, extra.cited
    rel = {
        r: recall_rank.relevance(
            lexical.get(r, 0.0), act.get(r, 0.0), best_lex, best_act,
            sem.get(r, 0.0), cited.get(r, 0.0),
        )
        for r in {*act, *lexical, *sem, *cited}
    }  # fmt: skip
    order = sorted(rel, key=lambda r: (-rel[r], r))
    scored: list[Scored] = []
    step = max(50, 2 * want)
    for start in range(0, len(order), step):
        batch = order[start : start + step]
        meta = recall_index.docs(handle.idx, batch)
        ok = [
            r for r in batch
            if r in meta and meta[r][0] == "reflection" and meta[r][3] and r not in exclude
            and (query.skill is None or meta[r][1] == query.skill)
        ]  # fmt: skip
        r_now = retrievability_now(conn, project, ok, now)
        for r in ok:
            turned = overturned_by(handle, r, spread, meta[r][2])
            p = Parts(
                lexical.get(r, 0.0), act.get(r, 0.0), r_now.get(r), bool(turned),
                semantic=sem.get(r, 0.0), cited=cited.get(r, 0.0),
            )  # fmt: skip
            s, lex, spr = recall_rank.score(p, best_lex, best_act)
            scored.append((s, r, lex, spr, r_now.get(r), turned, meta[r][1]))
        scored.sort(key=lambda t: (-t[0], t[1]))
        nxt = start + step
        if len(scored) >= want and (nxt >= len(order) or scored[want - 1][0] >= rel[order[nxt]]):
            break
    return scored[:want]


def overturned_by(handle: Handle, r: str, spread: Spread, created: str) -> list[str]:
    """Newer live lessons that contrast ``r``."""
    others = [e.post for e in spread.seen.get(r, ()) if e.type == "contrasts"]
    if not others:
        return []
    meta = recall_index.docs(handle.idx, others)
    stamps = {k: v[2] for k, v in meta.items() if v[3]}
    stamps[r] = created
    return overturned(r, spread.seen, stamps)
