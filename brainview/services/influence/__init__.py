"""Influence per lesson and the suspicion signals on it (issue 29, parts 2 and 3).

The store aggregates (``GROUP BY`` reflection) over the consulted lists, the recall
log, the held-back drafts and the grades of standing decisions; :mod:`brainview.core`
turns them into an :class:`~brainview.core.influence.Influence` and
:class:`~brainview.core.signals.Signal` s.  One lesson's figures read only its own rows
(and, for the gaming signal, the lessons written within its window); listings sort in
SQL (:func:`page_by_influence`); the suspicious ranking is :mod:`.suspects`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import replace
from datetime import timedelta

from brainview.config import SignalsConfig
from brainview.core import fsrs_math
from brainview.core.influence import Influence, merge
from brainview.core.signals import (
    Settings,
    Signal,
    gaming,
    lesson_signals,
    rank,
    similar,
    suspicion,
)
from brainview.services.influence.lessons import lessons_of
from brainview.services.project import Project
from brainview.store import influence_reads as reads
from brainview.store import lesson_scan
from brainview.store.era import Era
from brainview.store.rows import driver

__all__ = ["influence_many", "page_by_influence", "reflection_signals", "settings_of"]


def settings_of(cfg: SignalsConfig | None) -> Settings:
    """The core's thresholds from the ``[signals]`` config (defaults without one)."""
    if cfg is None:
        return Settings()
    return Settings(
        rejected_min=cfg.rejected_min, high_influence=cfg.high_influence,
        low_corroboration=cfg.low_corroboration, window_days=float(cfg.window_days),
        min_identities=cfg.min_identities, similarity=cfg.similarity, held_min=cfg.held_min,
        reach_min=cfg.reach_min,
    )  # fmt: skip


def influence_many(raw: sqlite3.Connection, ids: Sequence[str] | None) -> dict[str, Influence]:
    """Reflection id → its influence (``ids``: only these, all of them present; ``None``:
    every reflection with any row)."""
    parts = [
        reads.consult_counts(raw, ids),
        reads.recall_counts(raw, ids),
        reads.suppressed_counts(raw, ids),
        reads.corroboration_counts(raw, ids),
        reads.held_verdict_counts(raw, ids),
        reads.written_by_decision(raw, ids),
    ]
    keys = list(ids) if ids is not None else sorted({k for p in parts for k in p})
    out = {}
    for rid in keys:
        inf = Influence(rid)
        for p in parts:
            if rid in p:
                inf = merge(inf, **p[rid])
        out[rid] = inf
    return out


def reflection_signals(
    project: Project, reflection_id: str, settings: Settings | None = None
) -> dict[str, object]:
    """One lesson's influence, its signals (each with its reason) and its rank."""
    s = settings or Settings()
    agent = project.require_agent()
    with agent.read() as conn:
        raw = driver(conn)
        s = replace(s, project_deciders=reads.project_deciders(raw))
        inf = influence_many(raw, [reflection_id])[reflection_id]
        content, created = reads.content_and_created(raw, reflection_id)
        extra = _gaming_near(raw, agent.era, reflection_id, created, s)
    signals = lesson_signals(inf, content, s, extra)
    return _entry(inf, signals)


def _gaming_near(
    raw: sqlite3.Connection, era: Era, rid: str, created: object, s: Settings
) -> list[Signal]:
    """The gaming signal of one lesson: compared with the lessons of its window only."""
    if not created:
        return []
    at = fsrs_math.parse_ts(str(created))
    span = timedelta(days=s.window_days)
    rows = lesson_scan.lessons_between(
        raw, era, fsrs_math.format_ts(at - span), fsrs_math.format_ts(at + span)
    )
    if len(rows) < s.min_identities:
        return []
    lessons = lessons_of(raw, rows)
    me = next((x for x in lessons if x.id == rid), None)
    if me is None:
        return []
    # only its own near-duplicates can share a campaign with it
    near = [x for x in lessons if x.id == rid or similar(me, x, s)]
    found = gaming(near, s) if len(near) >= s.min_identities else {}
    return [found[rid]] if rid in found else []


def _entry(inf: Influence, signals: list[Signal]) -> dict[str, object]:
    return {
        "influence": inf.to_json(),
        "signals": [x.to_json() for x in signals],
        "suspicion": suspicion(signals),
        "rank": rank(inf, signals),
    }


def page_by_influence(
    project: Project,
    *,
    skill: str | None,
    status: str,
    after: str | None,
    limit: int,
) -> tuple[list[str], dict[str, Influence], str | None]:
    """A page of reflection ids by influence (highest first), their influence, and the
    next page's cursor (``"<score>:<id>"``)."""
    key = None
    if after:
        score, _, last = after.partition(":")
        key = (int(score), last) if score.lstrip("-").isdigit() else None
    agent = project.require_agent()
    with agent.read() as conn:
        raw = driver(conn)
        rows = lesson_scan.influence_page(
            raw, agent.era, skill=skill, status=status, after=key, limit=limit + 1
        )
        more, rows = len(rows) > limit, rows[:limit]
        ids = [r for r, _ in rows]
        infl = influence_many(raw, ids)
    cursor = f"{rows[-1][1]}:{rows[-1][0]}" if more and rows else None
    return ids, infl, cursor
