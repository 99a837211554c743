"""The overview's queue alert: one line per reason the queue needs the team.

Hidden while the queue is healthy; filled from the ``queue_health`` of the overview's
stats read (:func:`brainview.services.metrics.queue_health.queue_health`).  The lines
are brainview's own (counts and days), drawn as plain ``Text`` all the same.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import Static


class QueueAlert(Static):
    """``⚠ 11 of 36 pending proposal(s) waiting more than 7 days (oldest 10 days)``."""

    DEFAULT_CSS = """
    QueueAlert {
        height: auto;
        padding: 0 1;
        color: $text-warning;
        background: $warning-muted;
        text-style: bold;
        display: none;
    }
    QueueAlert.-alert {
        display: block;
    }
    """

    def __init__(self) -> None:
        super().__init__("", id="queue-alert", markup=False)
        self.reasons: list[str] = []
        """The reasons shown (empty: healthy, hidden)."""

    def show(self, health: dict[str, Any] | None) -> None:
        """Show ``health``'s reasons (``None`` or none: hide)."""
        self.reasons = [str(r) for r in (health or {}).get("reasons", [])]
        self.set_class(bool(self.reasons), "-alert")
        lines = [f"⚠ {reason}" for reason in self.reasons]
        self.update(Text("\n".join(lines)))
