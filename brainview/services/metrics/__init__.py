"""Agent-brain metrics over time: acceptance per skill, time per decision (the
Maintenance Amortized Cost, MAC) by week, by agent-brain age and by runtime, acceptance
over successive consolidations, policy emergence and reflections at risk; and, apart,
the success rate of tutor hints and QABot answers per skill (outcomes,
:mod:`brainview.services.outcome`), which count in no maintainer metric.

Weeks start on Monday (UTC) and are named by that date. Only standing decisions count
(undone ones are ignored); ``dismiss`` is neither an acceptance nor a rejection but
counts as maintainer time. Missing brainview tables (a fresh agent brain) mean no
decisions yet, not an error. What each number means: ``docs/metrics.md``.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from typing import Any

import numpy as np
from sqlalchemy import Connection

import brainview.services.metrics.seed as seed
from brainview.core import fsrs_math
from brainview.services.metrics.consolidation import (
    ConsolidationAcceptance,
    consolidation_acceptance,
)
from brainview.services.metrics.deciders import DeciderStats, by_decider
from brainview.services.project import Project
from brainview.store.era import Era
from brainview.store.metrics_reads import live_policy_created, live_reflection_ids
from brainview.store.readmodel import table_exists
from brainview.store.reflection_cards import count_live_reflections, reviewed_cards


def week_of(ts: str | datetime) -> str:
    """The Monday (``YYYY-MM-DD``, UTC) of the week a brain timestamp falls in."""
    at = fsrs_math.ensure_utc(ts) if isinstance(ts, datetime) else fsrs_math.parse_ts(ts)
    day = at.date()
    return (day - timedelta(days=day.weekday())).isoformat()


@dataclass(frozen=True)
class SkillWeek:
    """Verdicts of one skill's proposals in one week."""

    week: str
    skill: str
    accepted: int
    rejected: int

    @property
    def rate(self) -> float | None:
        """Accepted share of accept + reject (``None`` without verdicts)."""
        return seed.rate(self.accepted, self.rejected)


@dataclass(frozen=True)
class OutcomeWeek:
    """Tutor / QABot outcomes of one skill in one week (success = accept)."""

    week: str
    skill: str
    success: int
    failure: int

    @property
    def rate(self) -> float | None:
        """Success share (``None`` without outcomes)."""
        return seed.rate(self.success, self.failure)


@dataclass(frozen=True)
class DecisionWeek:
    """How long decisions took in one week."""

    week: str
    decisions: int
    median_seconds: float | None
    """Median seconds on screen per decision (the MAC); ``None`` if none was timed."""
    seconds_per_accepted: float | None = None
    """Maintainer seconds per accepted change (all timed decision time / accepts)."""


@dataclass(frozen=True)
class AgeWeek:
    """Decisions taken while the agent brain was ``age_week`` whole weeks old."""

    age_week: int
    decisions: int
    median_seconds: float | None
    seconds_per_accepted: float | None = None


@dataclass(frozen=True)
class RuntimeStats:
    """MAC and verdicts of one runtime's proposals (``week`` empty: all weeks)."""

    runtime: str
    decisions: int
    median_seconds: float | None
    accepted: int
    rejected: int
    dismissed: int
    week: str = ""
    seconds_per_accepted: float | None = None

    @property
    def rate(self) -> float | None:
        """Accepted share of accept + reject (``None`` without either)."""
        return seed.rate(self.accepted, self.rejected)


@dataclass(frozen=True)
class AtRisk:
    """Reflections already below the pruning threshold or falling below it soon."""

    threshold: float
    days: int
    below_now: int
    within_days: int
    never_reviewed: int


def _with_rate(rows: list[Any]) -> list[dict[str, Any]]:
    return [asdict(r) | {"rate": r.rate} for r in rows]


@dataclass
class AgentMetrics:
    """Everything the Overview plots and ``stats --json`` reports for the agent brain."""

    acceptance: list[SkillWeek] = field(default_factory=list)
    decision_time: list[DecisionWeek] = field(default_factory=list)
    policies_per_week: dict[str, int] = field(default_factory=dict)
    """Live policy neurons by the week they were created."""
    at_risk: AtRisk | None = None
    agent_born_at: str | None = None
    """``created_at`` of the agent brain's first neuron (ISO, UTC)."""
    decision_time_by_age: list[AgeWeek] = field(default_factory=list)
    policies_accepted_per_week: dict[str, int] = field(default_factory=dict)
    """Standing accepts of ``summarize_community`` proposals by decision week."""
    by_runtime: list[RuntimeStats] = field(default_factory=list)
    by_runtime_week: list[RuntimeStats] = field(default_factory=list)
    consolidations: list[ConsolidationAcceptance] = field(default_factory=list)
    outcomes: list[OutcomeWeek] = field(default_factory=list)
    """Tutor / QABot success per week and skill (outcomes count nowhere else)."""
    by_decider: list[DeciderStats] = field(default_factory=list)
    """Proposal decisions per decider (:mod:`brainview.services.metrics.deciders`)."""

    def to_json(self) -> dict[str, Any]:
        """Plain JSON-ready dict (rates included)."""

        def runtime_rows(rows: list[RuntimeStats], weekly: bool) -> list[dict[str, Any]]:
            out = _with_rate(rows)
            for row in out:
                if not weekly:
                    del row["week"]
            return out

        return {
            "acceptance": _with_rate(self.acceptance),
            "decision_time": [asdict(w) for w in self.decision_time],
            "policies_per_week": self.policies_per_week,
            "at_risk": asdict(self.at_risk) if self.at_risk else None,
            "agent_born_at": self.agent_born_at,
            "decision_time_by_age": [asdict(a) for a in self.decision_time_by_age],
            "policies_accepted_per_week": self.policies_accepted_per_week,
            "by_runtime": runtime_rows(self.by_runtime, weekly=False),
            "by_runtime_week": runtime_rows(self.by_runtime_week, weekly=True),
            "consolidations": [c.to_json() for c in self.consolidations],
            "outcomes": _with_rate(self.outcomes),
            "by_decider": [r.to_json() for r in self.by_decider],
        }


def agent_metrics(project: Project, now: datetime, *, threshold: float, days: int) -> AgentMetrics:
    """Compute the metrics: one columnar read of the standing decisions (grouped with
    numpy), SQL aggregates for consolidations and the agent brain's birth, one vectorised
    pass over the reflection cards."""
    agent = project.require_agent()
    out = AgentMetrics()
    with agent.read() as conn:
        born = seed.agent_born(conn)
        out.agent_born_at = fsrs_math.format_ts(born) if born else None
        if table_exists(conn, "brainview_decision") and table_exists(conn, "brainview_proposal"):
            _decisions(out, seed.read_decisions(conn), born)
        out.consolidations = consolidation_acceptance(conn)
        born_weeks: dict[str, int] = defaultdict(int)
        for created in live_policy_created(conn, agent.era):
            born_weeks[week_of(created)] += 1
        out.policies_per_week = dict(sorted(born_weeks.items()))
        stab, last, never = _cards(conn, agent.era)
    cross = _crossing_days(stab, last, now, threshold)
    reviewed = np.isfinite(cross)
    out.at_risk = AtRisk(
        threshold=threshold,
        days=days,
        below_now=int((reviewed & (cross <= 0)).sum()),
        within_days=int((reviewed & (cross > 0) & (cross <= days)).sum()),
        never_reviewed=int((~reviewed).sum()) + never,
    )
    return out


def _cards(conn: Connection, era: Era) -> tuple[np.ndarray, np.ndarray, int]:
    """The live reflections' ``(stability, last review)`` columns and how many live
    reflections are left out of them as never reviewed.  Many cards in ``fsrs_state``:
    the reviewed ones only, in one statement (:mod:`brainview.store.reflection_cards`);
    otherwise every live reflection, never-reviewed ones as NaN (the curves' reader)."""
    if era.card_source == "fsrs_state":
        total = count_live_reflections(conn, era)
        if total > FEW_CARDS:
            stab, last = reviewed_cards(conn, era)
            return stab, last, total - len(stab)
    from brainview.services.communities.curves import reflection_cards

    ids = live_reflection_ids(conn, era)
    stab, last = reflection_cards(conn, era, ids)
    return stab, last, 0


FEW_CARDS = 50
"""Up to this many reflections the curves' reader (one card at a time) is used."""


def _crossing_days(
    stability: np.ndarray, last_review: np.ndarray, now: datetime, threshold: float
) -> np.ndarray:
    """Days from ``now`` until R falls to ``threshold`` (clamped at 0; NaN without a
    card): the same expression as
    :func:`brainview.services.communities.curves.crossing_days`, kept here so the
    metrics do not import the communities package."""
    d, f = fsrs_math.decay_and_factor()
    elapsed = (fsrs_math.to_epoch_s(now) - np.asarray(last_review, dtype=np.float64)) / 86_400
    t_cross = np.asarray(stability, dtype=np.float64) / f * (threshold ** (-1 / d) - 1)
    return np.maximum(t_cross - elapsed, 0.0)


def _decisions(out: AgentMetrics, every: seed.Decisions, born: datetime | None) -> None:
    """Fill the decision-based metrics from the standing decisions' columns: the
    maintainer's decisions on proposals, and tutor / QABot outcomes apart."""
    name = seed.week_name
    outcomes = every.where(every.outcome)
    n_out = max(1, len(outcomes.skills))
    out.outcomes = sorted(
        (
            OutcomeWeek(
                name(g.key // n_out), outcomes.skills[g.key % n_out], g.accepted, g.rejected
            )
            for g in seed.group(outcomes.week * n_out + outcomes.skill, outcomes)
        ),
        key=lambda w: (w.week, w.skill),
    )
    d = every.where(~every.outcome)
    out.decision_time = [
        DecisionWeek(name(g.key), g.decisions, g.median_seconds, g.seconds_per_accepted)
        for g in seed.group(d.week, d)
    ]
    n_skills = max(1, len(d.skills))
    acceptance = [
        SkillWeek(name(g.key // n_skills), d.skills[g.key % n_skills], g.accepted, g.rejected)
        for g in seed.group(d.week * n_skills + d.skill, d)
        if g.accepted or g.rejected
    ]
    out.acceptance = sorted(acceptance, key=lambda w: (w.week, w.skill))
    out.decision_time_by_age = [
        AgeWeek(g.key, g.decisions, g.median_seconds, g.seconds_per_accepted)
        for g in seed.group(seed.age_weeks(d, born), d)
    ]
    out.policies_accepted_per_week = seed.policies_accepted(d)
    out.by_runtime = sorted(
        (_runtime(d.runtimes[g.key], g) for g in seed.group(d.runtime, d)),
        key=lambda r: r.runtime,
    )
    n_rt = max(1, len(d.runtimes))
    weekly = [
        _runtime(d.runtimes[g.key % n_rt], g, name(g.key // n_rt))
        for g in seed.group(d.week * n_rt + d.runtime, d)
    ]
    out.by_runtime_week = sorted(weekly, key=lambda r: (r.week, r.runtime))
    out.by_decider = by_decider(d)


def _runtime(runtime: str, g: seed.Group, week: str = "") -> RuntimeStats:
    return RuntimeStats(
        runtime, g.decisions, g.median_seconds, g.accepted, g.rejected, g.dismissed, week,
        g.seconds_per_accepted,
    )  # fmt: skip
