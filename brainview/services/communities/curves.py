"""Stability history, forgetting-curve forecasts and the fading list of reflections.

History replays a reflection's spikes through py-fsrs (fuzz off; stability does not
depend on fuzzing). Forecasts and crossing days use the continuous curve
``R(t, S) = (1 + F·t/S)^(−d)``; "R now" is py-fsrs's own (elapsed days floored).
Rescue / let-go decisions on fading reflections are appended to
``brainview_fading_decision`` in one write transaction each.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

import numpy as np
from sqlalchemy import Connection

from brainview.core import fsrs_math
from brainview.core.refs import UserRef, name_refs, parse_refs
from brainview.core.safe_text import first_line
from brainview.errors import InvalidInputError, NotFoundError
from brainview.services import lifecycle, text_guard
from brainview.services.communities.labels import Placement, placement
from brainview.services.intake.refs import resolve
from brainview.services.project import Project
from brainview.store import bv_schema_communities as bvc
from brainview.store import community_reads as reads
from brainview.store.cards import CardInfo, card_of, tutor_cards
from brainview.store.era import Era
from brainview.store.readmodel import NeuronRow, neuron, neurons_by_ids, spikes_of

RETIRED_REF = lifecycle.MARK[lifecycle.RETIRED]
"""A retired user neuron inside ``⟦…⟧``: the lifecycle legend's glyph (``⊘ retired``)."""
FORECAST_DAYS = 90
FADING_LIMIT = 500
FEW = 50
"""Up to this many ids, cards are read one by one instead of in bulk."""


def reflection_cards(conn: Connection, era: Era, ids: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """``(stability, last review epoch s)`` aligned with ``ids``; NaN = never reviewed.

    Reads ``fsrs_state`` in bulk, else the tutor overlay, else replays the spike log.
    """
    pos = {rid: k for k, rid in enumerate(ids)}
    stab = np.full(len(ids), np.nan)
    last = np.full(len(ids), np.nan)
    if len(ids) <= FEW:
        for k, rid in enumerate(ids):
            info = card_of(conn, era, rid)
            if info is not None and info.stability and info.last_review is not None:
                stab[k], last[k] = info.stability, info.last_review.timestamp()
        return stab, last

    def put(rid: str, s: float | None, lr: datetime | None) -> None:
        k = pos.get(rid)
        if k is not None and s is not None and lr is not None:
            stab[k], last[k] = s, lr.timestamp()

    if era.card_source == "fsrs_state":
        for rid, s, lr, state in reads.fsrs_cards(conn, era):
            if s and lr and state != 0:
                put(rid, float(s), fsrs_math.parse_ts(str(lr)))
    elif era.card_source == "tutor" and era.tutor_db is not None:
        for rid, card_json in tutor_cards(era.tutor_db):
            put(rid, *fsrs_math.card_stability_lastreview(card_json))
    else:
        spikes: dict[str, list[tuple[int, str]]] = {}
        for rid, grade, fired_at in reads.all_spikes(conn):
            if rid in pos:
                spikes.setdefault(rid, []).append((int(grade), fired_at))
        for rid, events in spikes.items():
            card, _ = fsrs_math.replay_spikes(events)
            if card is not None:
                put(rid, card.stability, card.last_review)
    return stab, last


@dataclass(frozen=True)
class HistoryPoint:
    """The card right after one replayed spike."""

    fired_at: datetime
    days: float
    """When, in days relative to now (negative = in the past)."""
    grade: int
    stability: float
    difficulty: float
    state: int


def stability_history(
    spikes: Iterable[tuple[int, datetime | str]], now: datetime
) -> list[HistoryPoint]:
    """Replay ``(grade, fired_at)`` spikes with py-fsrs; stability after each review."""
    _card, steps = fsrs_math.replay_spikes(spikes)
    return [
        HistoryPoint(
            s.fired_at,
            (s.fired_at - fsrs_math.ensure_utc(now)).total_seconds() / 86_400,
            s.grade,
            s.stability,
            s.difficulty,
            int(s.state),
        )
        for s in steps
    ]


def crossing_days(
    stability: np.ndarray, last_review: np.ndarray, now: datetime, threshold: float
) -> np.ndarray:
    """Vectorised closed-form days from ``now`` until R falls to ``threshold``.

    ``t = S/F·(threshold^(−1/d) − 1) − elapsed``, clamped at 0; NaN without a card.
    """
    d, f = fsrs_math.decay_and_factor()
    elapsed = (fsrs_math.to_epoch_s(now) - np.asarray(last_review, dtype=np.float64)) / 86_400
    t_cross = np.asarray(stability, dtype=np.float64) / f * (threshold ** (-1 / d) - 1)
    return np.maximum(t_cross - elapsed, 0.0)


@dataclass(frozen=True)
class FadingRow:
    """A reflection that will fall below the pruning threshold soon."""

    id: str
    title: str
    skill: str
    r_now: float
    stability: float
    crossing_days: float
    decision: str | None
    """Standing decision: ``rescue``, ``let_go`` or ``None``."""
    decision_id: int | None
    state: str = "live"
    """Lifecycle state when read: ``live`` or ``challenged`` (retired ones are not listed)."""


@dataclass(frozen=True)
class FadingList:
    """The fading reflections, soonest first, and what was left out."""

    rows: list[FadingRow]
    total: int
    below_now: int
    """Reviewed reflections already below the threshold (not listed)."""
    threshold: float
    days: int


def fading(
    project: Project, now: datetime, *, threshold: float, days: int, limit: int = FADING_LIMIT
) -> FadingList:
    """Live reflections whose R crosses ``threshold`` within ``days``, soonest first."""
    agent = project.require_agent()
    with agent.read() as conn:
        rows = reads.live_reflection_skills(conn, agent.era)
        ids = [r[0] for r in rows]
        stab, last = reflection_cards(conn, agent.era, ids)
        cross = crossing_days(stab, last, now, threshold)
        reviewed = np.isfinite(cross)
        soon = reviewed & (cross > 0) & (cross <= days)
        order = [int(k) for k in np.flatnonzero(soon)[np.argsort(cross[soon], kind="stable")]]
        picked = [ids[k] for k in order[:limit]]
        names = titles(project, conn, picked)
        standing = bvc.standing_fading(conn, picked)
        states = lifecycle.statuses(conn, agent.era, picked)
    r_now = fsrs_math.retrievability(stab, last, now)
    out = []
    for k in order[:limit]:
        rid = ids[k]
        dec = standing.get(rid)
        out.append(
            FadingRow(
                rid,
                names.get(rid, ""),
                rows[k][1] or "",
                float(r_now[k]),
                float(stab[k]),
                float(cross[k]),
                dec.action if dec else None,
                dec.id if dec else None,
                states[rid].state if rid in states else lifecycle.MISSING,
            )
        )
    below = int((reviewed & (cross <= 0)).sum())
    return FadingList(out, int(soon.sum()), below, threshold, days)


def titles(project: Project, conn: Connection, ids: list[str]) -> dict[str, str]:
    """First lines of some reflections, each ``[user:…]`` replaced by the user neuron's
    title: ``⟦title⟧``, ``⟦title ⊘ retired⟧`` or ``⟦id ↛ dangling⟧`` (plain text).

    Content is cut in SQL, so huge texts stay cheap.
    """
    heads = {rid: first_line(head, 400) for rid, head in reads.heads(conn, ids, 400).items()}
    wanted = sorted({ref for head in heads.values() for ref in parse_refs(head)})
    with project.user.read() as uconn:
        users = neurons_by_ids(uconn, project.user.era, wanted) if wanted else {}

    known = {u.id: (first_line(u.content, 40) or u.id, u.live) for u in users.values()}
    return {rid: name_refs(head, known, retired=RETIRED_REF) for rid, head in heads.items()}


def decide_fading(
    project: Project,
    reflection_id: str,
    action: str,
    *,
    decider: str,
    now: datetime,
    threshold: float,
) -> int:
    """Record a rescue (keep: no pruning) or let-go decision; returns the decision id."""
    if action not in bvc.FADING_ACTIONS:
        raise InvalidInputError(f"action must be rescue or let_go, got {json.dumps(action)}")
    text_guard.name("decider", decider)
    agent = project.require_agent()
    with agent.write() as conn:
        if reads.live_type(conn, agent.era, reflection_id) != "reflection":
            raise NotFoundError(f"no live reflection {reflection_id}")
        stab, last = reflection_cards(conn, agent.era, [reflection_id])
        known = bool(np.isfinite(stab[0]))
        r_now = float(fsrs_math.retrievability(stab, last, now)[0]) if known else None
        cross = float(crossing_days(stab, last, now, threshold)[0]) if known else None
        return bvc.record_fading(
            conn,
            reflection_id,
            action,
            decider=decider,
            at=fsrs_math.format_ts(now),
            threshold=threshold,
            retrievability=r_now,
            crossing_days=cross,
        )


def undo_fading_decision(project: Project, decision_id: int, *, actor: str, now: datetime) -> None:
    """Withdraw a standing rescue / let-go decision (the row stays, marked undone)."""
    text_guard.name("actor", actor)
    agent = project.require_agent()
    with agent.write() as conn:
        if not bvc.undo_fading(conn, decision_id, at=fsrs_math.format_ts(now), by=actor):
            raise NotFoundError(f"no standing fading decision {decision_id}")


@dataclass(frozen=True)
class ReflectionDetail:
    """Everything the reflection view shows about one reflection."""

    neuron: NeuronRow
    refs: list[UserRef]
    card: CardInfo | None
    r_now: float
    history: list[HistoryPoint]
    forecast: np.ndarray
    """R at day offsets ``0..FORECAST_DAYS`` from now (empty without a card)."""
    threshold: float
    crossing: float | None
    """Days from now until R falls to the threshold (0 = already below)."""
    community: Placement | None
    """Its community in the cached partition (memory or the user's cache dir), numbered
    as the communities list numbers it (``None``: not clustered yet)."""
    decision: bvc.FadingDecision | None
    status: lifecycle.Status | None = None
    """Its lifecycle state (live, challenged, invalidated, retired)."""


def reflection_detail(
    project: Project, reflection_id: str, now: datetime, *, threshold: float
) -> ReflectionDetail:
    """Read one reflection, its card, replayed history, forecast and references."""
    agent = project.require_agent()
    with agent.read() as conn:
        row = neuron(conn, agent.era, reflection_id)
        if row is None:
            raise NotFoundError(f"no reflection {reflection_id}")
        card = card_of(conn, agent.era, reflection_id)
        spikes = [(s.grade, s.fired_at) for s in spikes_of(conn, reflection_id)]
        decision = bvc.standing_fading(conn, [reflection_id]).get(reflection_id)
        status = lifecycle.statuses(conn, agent.era, [reflection_id]).get(reflection_id)
    refs = resolve(project, row.content)
    has_curve = card is not None and card.stability and card.last_review is not None
    if has_curve:
        assert card is not None and card.stability is not None and card.last_review is not None
        curve = fsrs_math.forecast(card.stability, card.last_review, now, FORECAST_DAYS)
        cross = fsrs_math.crossing_day(card.stability, card.last_review, now, threshold)
    else:
        curve, cross = np.zeros(0), None
    return ReflectionDetail(
        neuron=row,
        refs=refs,
        card=card,
        r_now=card.retrievability(now) if card is not None else 0.0,
        history=stability_history(spikes, now),
        forecast=curve,
        threshold=threshold,
        crossing=cross,
        community=placement(project, reflection_id),
        decision=decision,
        status=status,
    )
