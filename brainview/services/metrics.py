"""Agent-brain metrics over time: acceptance per skill, time per decision (the
Maintenance Amortized Cost), policy emergence and reflections at risk.

Weeks start on Monday (UTC) and are named by that date. Only standing decisions count
(undone ones are ignored); ``dismiss`` is neither an acceptance nor a rejection. Missing
brainview tables (a fresh agent brain) mean no decisions yet, not an error.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from typing import Any

import numpy as np
from sqlalchemy import text

from brainview.core import fsrs_math
from brainview.services.curves import crossing_days, reflection_cards
from brainview.services.project import Project
from brainview.store.readmodel import table_exists


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
        decided = self.accepted + self.rejected
        return self.accepted / decided if decided else None


@dataclass(frozen=True)
class DecisionWeek:
    """How long decisions took in one week."""

    week: str
    decisions: int
    median_seconds: float | None
    """Median seconds on screen per decision (the MAC); ``None`` if none was timed."""


@dataclass(frozen=True)
class AtRisk:
    """Reflections already below the pruning threshold or falling below it soon."""

    threshold: float
    days: int
    below_now: int
    within_days: int
    never_reviewed: int


@dataclass
class AgentMetrics:
    """Everything the Overview plots and ``stats --json`` reports for the agent brain."""

    acceptance: list[SkillWeek] = field(default_factory=list)
    decision_time: list[DecisionWeek] = field(default_factory=list)
    policies_per_week: dict[str, int] = field(default_factory=dict)
    at_risk: AtRisk | None = None

    def to_json(self) -> dict[str, Any]:
        """Plain JSON-ready dict (rates included)."""
        return {
            "acceptance": [asdict(w) | {"rate": w.rate} for w in self.acceptance],
            "decision_time": [asdict(w) for w in self.decision_time],
            "policies_per_week": self.policies_per_week,
            "at_risk": asdict(self.at_risk) if self.at_risk else None,
        }


def agent_metrics(project: Project, now: datetime, *, threshold: float, days: int) -> AgentMetrics:
    """Compute the metrics (SQL aggregates plus one vectorised pass over cards)."""
    agent = project.require_agent()
    out = AgentMetrics()
    with agent.read() as conn:
        if table_exists(conn, "brainview_decision") and table_exists(conn, "brainview_proposal"):
            rows = conn.execute(
                text(
                    "SELECT d.decided_at, d.verdict, d.seconds_on_screen, p.skill "
                    "FROM brainview_decision d JOIN brainview_proposal p ON p.id = d.proposal_id "
                    "WHERE d.undone_at IS NULL ORDER BY d.decided_at"
                )
            ).all()
            out.acceptance = _acceptance(rows)
            out.decision_time = _decision_time(rows)
        live = agent.era.live("n")
        born: dict[str, int] = defaultdict(int)
        for (created,) in conn.execute(
            text(f"SELECT created_at FROM neuron n WHERE n.type = 'policy' AND {live}")
        ):
            born[week_of(created)] += 1
        out.policies_per_week = dict(sorted(born.items()))
        ids = [
            r[0]
            for r in conn.execute(
                text(f"SELECT n.id FROM neuron n WHERE n.type = 'reflection' AND {live}")
            )
        ]
        stab, last = reflection_cards(conn, agent.era, ids)
    cross = crossing_days(stab, last, now, threshold)
    reviewed = np.isfinite(cross)
    out.at_risk = AtRisk(
        threshold=threshold,
        days=days,
        below_now=int((reviewed & (cross <= 0)).sum()),
        within_days=int((reviewed & (cross > 0) & (cross <= days)).sum()),
        never_reviewed=int((~reviewed).sum()),
    )
    return out


def _acceptance(rows: list[Any]) -> list[SkillWeek]:
    counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for decided_at, verdict, _seconds, skill in rows:
        if verdict in ("accept", "reject"):
            counts[(week_of(decided_at), skill or "")][verdict == "reject"] += 1
    return [SkillWeek(w, s, a, r) for (w, s), (a, r) in sorted(counts.items())]


def _decision_time(rows: list[Any]) -> list[DecisionWeek]:
    seconds: dict[str, list[float]] = defaultdict(list)
    decisions: dict[str, int] = defaultdict(int)
    for decided_at, _verdict, secs, _skill in rows:
        week = week_of(decided_at)
        decisions[week] += 1
        if secs is not None:
            seconds[week].append(float(secs))
    return [
        DecisionWeek(w, n, statistics.median(seconds[w]) if seconds[w] else None)
        for w, n in sorted(decisions.items())
    ]
