"""Acceptance over successive consolidations: for each plan queued by
``brainview reflect consolidate`` (oldest first), how many of its items were accepted,
rejected, dismissed or are still pending, in total and per phase.

An item counts by its proposal's *standing* decision (an undone decision makes it
pending again). ``n_items`` is the number of proposals tied to the plan in
``brainview_consolidation_item``. Missing tables mean no consolidation yet.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection

from brainview.services.metrics.seed import rate
from brainview.store.bv_schema_consolidation import consolidations
from brainview.store.metrics_reads import consolidation_item_verdicts
from brainview.store.readmodel import table_exists

_SLOT = {"accept": 0, "reject": 1, "dismiss": 2}


@dataclass(frozen=True)
class PhaseAcceptance:
    """Verdicts on one phase's items (``phase`` empty: the whole plan)."""

    phase: str
    n_items: int
    accepted: int
    rejected: int
    dismissed: int

    @property
    def pending(self) -> int:
        """Items without a standing decision."""
        return self.n_items - self.accepted - self.rejected - self.dismissed

    @property
    def rate(self) -> float | None:
        """Accepted share of accept + reject."""
        return rate(self.accepted, self.rejected)

    def to_json(self) -> dict[str, Any]:
        """Plain dict, ``pending`` and ``rate`` included."""
        return {
            "phase": self.phase,
            "n_items": self.n_items,
            "accepted": self.accepted,
            "rejected": self.rejected,
            "dismissed": self.dismissed,
            "pending": self.pending,
            "rate": self.rate,
        }


@dataclass(frozen=True)
class ConsolidationAcceptance:
    """One queued consolidation plan and what became of its items."""

    id: str
    planned_at: str
    planner: str
    total: PhaseAcceptance
    phases: list[PhaseAcceptance] = field(default_factory=list)
    """In plan order (the order of each phase's first item)."""

    def to_json(self) -> dict[str, Any]:
        """Plain dict: the plan's counts at top level, ``phases`` as a list."""
        counts = self.total.to_json()
        del counts["phase"]
        return {
            "id": self.id,
            "planned_at": self.planned_at,
            "planner": self.planner,
            **counts,
            "phases": [p.to_json() for p in self.phases],
        }


def consolidation_acceptance(conn: Connection) -> list[ConsolidationAcceptance]:
    """Every consolidation in planned order with its verdict counts (one GROUP BY)."""
    plans = consolidations(conn)
    if not plans:
        return []
    counts: dict[str, dict[str, list[int]]] = defaultdict(dict)
    first: dict[tuple[str, str], int] = {}
    if table_exists(conn, "brainview_consolidation_item"):
        rows = consolidation_item_verdicts(
            conn, with_decisions=table_exists(conn, "brainview_decision")
        )
        for cid, phase, v, n, seq in rows:
            slots = counts[cid].setdefault(phase, [0, 0, 0, 0])  # accept, reject, dismiss, all
            if v in _SLOT:
                slots[_SLOT[v]] += int(n)
            slots[3] += int(n)
            first[(cid, phase)] = min(first.get((cid, phase), seq), seq)
    out = []
    for plan in plans:
        order = [ph for _at, ph in sorted((first[(plan.id, ph)], ph) for ph in counts[plan.id])]
        phases = [
            PhaseAcceptance(ph, counts[plan.id][ph][3], *counts[plan.id][ph][:3]) for ph in order
        ]
        total = PhaseAcceptance(
            "",
            sum(p.n_items for p in phases),
            sum(p.accepted for p in phases),
            sum(p.rejected for p in phases),
            sum(p.dismissed for p in phases),
        )
        out.append(ConsolidationAcceptance(plan.id, plan.planned_at, plan.planner, total, phases))
    return out
