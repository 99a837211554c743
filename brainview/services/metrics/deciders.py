"""Decisions by decider: who decided how much, how, and how long each took.

A team shares one queue (``brainview serve`` with sign-in): every decision records the
person's name, so the metrics split by it — standing decisions on proposals only
(tutor / QABot outcomes are the skills' own, not a person's).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import brainview.services.metrics.seed as seed


@dataclass(frozen=True)
class DeciderStats:
    """One decider's standing decisions on proposals."""

    decider: str
    decisions: int
    accepted: int
    rejected: int
    dismissed: int
    mean_seconds: float | None
    """Mean seconds on screen of their timed decisions (``None``: none timed)."""
    median_seconds: float | None

    def to_json(self) -> dict[str, Any]:
        """Plain JSON-ready dict with the accepted share of accept + reject."""
        return {
            "decider": self.decider,
            "decisions": self.decisions,
            "accepted": self.accepted,
            "rejected": self.rejected,
            "dismissed": self.dismissed,
            "rate": seed.rate(self.accepted, self.rejected),
            "mean_seconds": self.mean_seconds,
            "median_seconds": self.median_seconds,
        }


def by_decider(d: seed.Decisions) -> list[DeciderStats]:
    """One row per decider of ``d`` (proposal decisions), by name."""
    rows = [
        DeciderStats(
            d.deciders[g.key],
            g.decisions,
            g.accepted,
            g.rejected,
            g.dismissed,
            g.total_seconds / g.timed if g.timed else None,
            g.median_seconds,
        )
        for g in seed.group(d.decider, d)
    ]
    return sorted(rows, key=lambda r: r.decider)
