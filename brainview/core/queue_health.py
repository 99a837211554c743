"""Is the proposal queue healthy?  Pure arithmetic over a few counts.

Two ways a queue goes wrong by neglect (issue 34): proposals that wait too long, and a
queue that grows faster than it is decided.  :func:`assess` turns the counts the store
reads by aggregate (:mod:`brainview.store.queue_health_reads`) into a
:class:`QueueHealth`: the figures, one boolean per alert and one line saying why.

* **Stale**: a pending proposal created more than ``stale_after_days`` ago (its age is
  counted from ``created_at``, as the queue's age column and sort).  Not to be confused
  with a proposal whose neurons changed since (``proposals.stale``, ``[stale]``).
* **Growing**: over the last ``window_days``, arrivals (proposals created, outcomes
  left out) exceed standing decisions (not undone) by ``growth_min`` or more.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

DAY = 86_400.0


@dataclass(frozen=True)
class QueueCounts:
    """What the store counted, as of one read."""

    pending: int
    stale: int
    """Pending proposals created before the stale cutoff."""
    oldest_created_at: datetime | None
    """``created_at`` of the oldest pending proposal (``None``: nothing pending)."""
    arrivals: int
    """Proposals created within the window."""
    decisions: int
    """Standing decisions taken within the window."""


@dataclass(frozen=True)
class QueueHealth:
    """The queue's health at ``now`` (``to_json`` is the ``queue_health`` object)."""

    pending: int
    stale: int
    stale_after_days: int
    oldest_age_days: float | None
    window_days: int
    arrivals: int
    decisions: int
    growth_min: int
    stale_alert: bool
    growth_alert: bool
    reasons: tuple[str, ...]
    """One line per alert raised (empty when healthy)."""

    @property
    def alert(self) -> bool:
        """Any alert raised."""
        return self.stale_alert or self.growth_alert

    @property
    def net_growth(self) -> int:
        """Arrivals less decisions over the window."""
        return self.arrivals - self.decisions

    def short(self) -> str:
        """A few words for a title line: ``◷ 3 waiting >7d · +12 in 7d``; a clock, not
        the ↻ that marks a proposal whose neurons changed (``""``: healthy)."""
        parts = []
        if self.stale_alert:
            parts.append(f"{self.stale} waiting >{self.stale_after_days}d")
        if self.growth_alert:
            parts.append(f"+{self.net_growth} in {self.window_days}d")
        return ("◷ " + " · ".join(parts)) if parts else ""

    def to_json(self) -> dict[str, Any]:
        """The JSON shape of ``stats --json``, ``proposals health --json`` and MCP."""
        return {
            "pending": self.pending,
            "stale": self.stale,
            "stale_after_days": self.stale_after_days,
            "oldest_age_days": self.oldest_age_days,
            "window_days": self.window_days,
            "arrivals": self.arrivals,
            "decisions": self.decisions,
            "net_growth": self.net_growth,
            "growth_min": self.growth_min,
            "alert": self.alert,
            "stale_alert": self.stale_alert,
            "growth_alert": self.growth_alert,
            "reasons": list(self.reasons),
        }


def stale_cutoff(now: datetime, stale_after_days: int) -> datetime:
    """Pending proposals created before this are stale."""
    return now - timedelta(days=stale_after_days)


def window_start(now: datetime, window_days: int) -> datetime:
    """Arrivals and decisions at or after this count for growth."""
    return now - timedelta(days=window_days)


def _days(n: float) -> str:
    return f"{n:.0f} day" + ("" if round(n) == 1 else "s")


def assess(
    counts: QueueCounts,
    now: datetime,
    *,
    stale_after_days: int,
    window_days: int,
    growth_min: int,
) -> QueueHealth:
    """The health of a queue with ``counts`` at ``now`` (thresholds from ``[queue]``)."""
    oldest = None
    if counts.oldest_created_at is not None:
        oldest = round(max(0.0, (now - counts.oldest_created_at).total_seconds()) / DAY, 1)
    stale_alert = counts.stale > 0
    net = counts.arrivals - counts.decisions
    growth_alert = net >= max(1, growth_min)
    reasons = []
    if stale_alert:
        age = f" (oldest {_days(oldest)})" if oldest is not None else ""
        reasons.append(
            f"{counts.stale} of {counts.pending} pending proposal(s) waiting more than "
            f"{_days(stale_after_days)}{age}"
        )
    if growth_alert:
        reasons.append(
            f"queue grew by {net} in {_days(window_days)}: {counts.arrivals} arrived, "
            f"{counts.decisions} decided"
        )
    return QueueHealth(
        pending=counts.pending,
        stale=counts.stale,
        stale_after_days=stale_after_days,
        oldest_age_days=oldest,
        window_days=window_days,
        arrivals=counts.arrivals,
        decisions=counts.decisions,
        growth_min=growth_min,
        stale_alert=stale_alert,
        growth_alert=growth_alert,
        reasons=tuple(reasons),
    )
