"""Recall: the lessons that matter for a draft, ranked, each with why.

1. **Lexical**: BM25 over every live reflection's text, ``[user:…]`` expanded to the
   neurons' titles (:mod:`brainview.store.recall_index`), against the draft's words,
   kind words and its neurons' titles (:mod:`brainview.core.recall_text`).
2. **Spreading**: reflections citing the draft's user neurons (1.0) or one of their
   strongest user-brain neighbours (half the synapse weight), together with the lexical
   matches, seed an APPNP walk over the agent brain's synapses
   (:mod:`brainview.core.spread`): sparse, bounded, a neighbourhood only.
3. **Cited neurons and semantic**: lessons citing the draft's own neurons score by the
   idf-weighted share they cite; when the project configures an embedder, the query's
   vector is compared with every live lesson's (:mod:`brainview.services.recall.semantic`,
   falling back to the rest, said once, when it cannot be used); the four terms are
   fused by weight (:mod:`brainview.core.fusion`).
4. **Retrievability**: each candidate's FSRS R now weighs its relevance
   (:mod:`brainview.core.recall_rank`); lessons a newer one contrasts are marked.
5. **Filter**: the lifecycle state of every hit is read from the brain last, so an
   invalidated, retired or quarantined lesson never appears, whatever the index says;
   a challenged one appears marked.  A quarantined lesson is also left out of the
   ranking itself (no seed, no edge into it), as if it were not in the brain; the
   result counts the ones that matched (``excluded``).  Each hit gets a suggested
   stance; the policies over the hits come with them.
6. **Log**: the recall is appended to ``brainview_recall`` (never graded) and its id
   returned, for ``propose`` to fill ``retrieved`` from.
"""

from __future__ import annotations

import os
import uuid
from datetime import datetime
from time import perf_counter
from typing import Any

from brainview.core import fsrs_math, fusion, recall_rank
from brainview.core.recall_text import draft_text, query_terms
from brainview.core.spread import appnp
from brainview.errors import NotFoundError, ReadOnlyError
from brainview.services.lifecycle import LIVE, QUARANTINED
from brainview.services.project import Project
from brainview.services.recall.candidates import Extra, edges
from brainview.services.recall.candidates import top as top_scored
from brainview.services.recall.finish import (
    TEXT_CHARS,
    final_filter,
    policies_of,
)
from brainview.services.recall.freshness import fresh as _fresh
from brainview.services.recall.result import Hit, RecallQuery, RecallResult
from brainview.services.recall.semantic import Semantic, semantic_scores
from brainview.store import recall_graph, recall_index, recall_log
from brainview.store.recall_handle import Handle, handle_for
from brainview.store.rows import driver

LEXICAL_POOL = 200
SEED_POOL = 50
NEIGHBOURS_PER_REF = 5
SEED_LEXICAL = 0.5
SEED_SEMANTIC = 0.0
"""Semantic matches seeding the walk: off, measured (docs/recall.md: seeds of 0.5 cost
the demo's nDCG@10 0.841 → 0.789 with WordLlama, 0.847 → 0.822 with all-MiniLM-L6-v2 —
the walk amplified weak neighbours)."""
SEED_SEMANTIC_MIN = 0.5


def recall(
    project: Project,
    query: RecallQuery,
    *,
    now: datetime,
    log: bool = True,
    runtime: str | None = None,
) -> RecallResult:
    """Rank the live lessons for ``query`` (module docstring); log it unless ``log=False``.

    Raises InvalidInputError (a malformed query), NotFoundError (no agent brain),
    ReadOnlyError (logging asked of an agent brain that cannot be written)."""
    query.check()
    agent = project.require_agent()
    if log and not _writable(agent.path):
        raise ReadOnlyError(f"cannot log the recall: {agent.path} is read-only (use --no-log)")
    started = perf_counter()
    draft = query.draft()
    hits, info, handle = ranked(project, query, now=now, writable=log)
    terms = info.pop("terms")
    how = info.pop("sync")
    logged = {
        "text": draft.text[:2000],
        "refs": list(draft.refs),
        "kind": draft.kind,
        "skill": query.skill,
        "limit": query.limit,
        "terms": terms,
    }
    recall_id = None
    if log:
        recall_id = f"rc-{uuid.uuid4().hex[:16]}"
        with handle.lock, handle.writing() as conn:
            recall_log.log_recall(
                conn, recall_id, logged, [h.reflection for h in hits],
                fsrs_math.format_ts(now), query.skill, runtime,
            )  # fmt: skip
    excluded = {QUARANTINED: info.pop("excluded")}
    sem = info.pop("semantic")
    info.update(sync=how, took_ms=round((perf_counter() - started) * 1000, 1))
    policies = policies_of(handle, project, hits)
    return RecallResult(recall_id, logged, hits, policies, info, excluded, sem)


def ranked(
    project: Project,
    query: RecallQuery,
    *,
    now: datetime,
    writable: bool = False,
    spare: frozenset[str] = frozenset(),
    drop: frozenset[str] = frozenset(),
    terms: list[str] | None = None,
) -> tuple[list[Hit], dict[str, Any], Handle]:
    """The ranking of :func:`recall` without its log: hits, index info (with ``terms``,
    ``sync`` and ``excluded``, the quarantined lessons that matched) and the handle.

    ``spare``: quarantined lessons ranked anyway; ``drop``: lessons left out as if
    quarantined; ``terms``: the query terms to use (a logged recall's), instead of
    the draft's own.  Replay (:mod:`brainview.services.replay`) re-runs a past recall
    with and without one lesson through these."""
    agent = project.require_agent()
    agent._refuse_if_moved()
    draft = query.draft()
    with project.user.read() as uconn:
        raw = driver(uconn)
        near = recall_graph.neighbours(raw, project.user.era, list(draft.refs), NEIGHBOURS_PER_REF)
        named = recall_graph.titles(raw, [*draft.refs, *[n for v in near.values() for n, _ in v]])
    handle = handle_for(agent.path, agent.identity, writable=writable)
    with handle.lock:
        moved = not handle.current()
        how = _fresh(handle, project)
        with handle.reading() as conn:
            exclude = (recall_graph.in_state(conn, QUARANTINED) - spare) | drop
            text = draft_text(draft, named)
            sem = semantic_scores(
                handle, conn, agent.path, project.paths.project_root, text, exclude, synced=moved
            )
            found, info = _rank(
                handle, conn, project, query, draft, named, near, now, exclude, terms, sem
            )
    hits, late = final_filter(project, found, query.limit, spare=spare)
    info.update(sync=how, excluded=len(info.pop("hidden") | late), semantic=sem.status)
    return hits, info, handle


def _writable(path: Any) -> bool:
    return os.access(path, os.W_OK) and os.access(os.path.dirname(os.path.abspath(path)), os.W_OK)


def _rank(
    handle: Handle,
    conn: Any,
    project: Project,
    query: RecallQuery,
    draft: Any,
    named: dict[str, str],
    near: dict[str, list[tuple[str, float]]],
    now: datetime,
    exclude: frozenset[str] | set[str],
    terms: list[str] | None,
    sem: Semantic,
) -> tuple[list[Hit], dict[str, Any]]:
    assert project.agent is not None
    era = project.agent.era
    if terms is None:
        terms = query_terms(draft_text(draft, named))
    found, _stems = recall_index.lexical(handle.idx, terms, query.skill, LEXICAL_POOL)
    direct = recall_index.citing(handle.idx, list(draft.refs))
    weight_of = {n: w for v in near.values() for n, w in v}
    via = recall_index.citing(handle.idx, [n for n in weight_of if n not in draft.refs])
    hidden = {r for r, _s, _m in found if r in exclude} | (exclude & {*direct, *via})
    if hidden:  # as if not in the brain: no score, no seed, no edge into it
        found = [f for f in found if f[0] not in exclude]
        direct = {r: v for r, v in direct.items() if r not in exclude}
        via = {r: v for r, v in via.items() if r not in exclude}
    lexical = {rid: score for rid, score, _m in found}
    matched = {rid: words for rid, _s, words in found}
    best_lex = recall_rank.best(lexical)
    sem_scaled = fusion.scale_semantic(sem.cosines)
    cited = fusion.cited_scores(direct, draft.refs, recall_index.size(handle.idx))
    seeds: dict[str, float] = {}
    for rid, _score, _m in found[:SEED_POOL]:
        seeds[rid] = SEED_LEXICAL * lexical[rid] / best_lex
    for rid, value in list(sem_scaled.items())[:SEED_POOL]:
        if value >= SEED_SEMANTIC_MIN:  # a weak neighbour in meaning seeds no walk
            seeds[rid] = seeds.get(rid, 0.0) + SEED_SEMANTIC * value
    own = {r for r, v in seeds.items() if v > 0} | set(direct)
    for rid in direct:
        seeds[rid] = seeds.get(rid, 0.0) + 1.0
    for rid, users in via.items():
        seeds[rid] = seeds.get(rid, 0.0) + 0.5 * max(weight_of[u] for u in users)
    spread = appnp(seeds, lambda ids: edges(handle, conn, era, ids, exclude))
    extra = Extra(sem_scaled, cited)
    top = top_scored(
        handle, conn, project, query, lexical, spread, now, 3 * query.limit, exclude, extra
    )
    ids = [t[1] for t in top]
    texts = recall_graph.contents(conn, ids, TEXT_CHARS)
    prov = recall_graph.provenance(conn, era.tables, ids)
    typ = draft.params.get("type") if isinstance(draft.params.get("type"), str) else None
    hits = []
    for s, r, lex, spr, r_now, turned, skill in top:
        by = fusion.found_by(
            lexical=lexical.get(r, 0.0), semantic=sem_scaled.get(r, 0.0),
            cited=r in direct, spread=spr, seeded=r in own,
        )  # fmt: skip
        st, why = recall_rank.stance(
            texts.get(r, ""), draft.kind, typ, draft.refs, prov.get(r),
            cited=direct.get(r, []), words=recall_rank.overlap(terms, matched.get(r, [])),
        )  # fmt: skip
        hits.append(
            Hit(r, 0, round(s, 6), skill, LIVE, texts.get(r, ""), round(lex, 6),
                round(lexical.get(r, 0.0), 6), round(spr, 6), _round(r_now),
                matched.get(r, []), direct.get(r, []), via.get(r, []), turned, st, why,
                round(sem_scaled.get(r, 0.0), 6), _round(sem.cosines.get(r)),
                round(cited.get(r, 0.0), 6), by)
        )  # fmt: skip
    info = {"docs": recall_index.size(handle.idx), "expanded": spread.expanded, "terms": terms}
    return hits, info | {"hidden": hidden}


def _round(v: float | None) -> float | None:
    return None if v is None else round(v, 6)


def retrieved_of(project: Project, recall_id: str) -> list[str]:
    """The reflections a logged recall returned (NotFoundError for an unknown id)."""
    agent = project.require_agent()
    with agent.read() as conn:
        ids = recall_log.hit_ids(driver(conn), recall_id)
    if ids is None:
        raise NotFoundError(f"recall: no recall {recall_id!r} in this agent brain")
    return ids
