"""The overview's team lines: approvals waiting for a second person (the two-person
rule) and the agreement of people who decided the same items, per kind and per person
(:func:`brainview.services.metrics.team.headline`).  Hidden while there is nothing to
say; every line drawn as plain, inert ``Text``."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import Static

from brainview.core.safe_text import one_line


class TeamLine(Static):
    """``2 approval(s) wait for a second person`` · ``agreement: 9 of 12 agreed, κ 0.45``."""

    DEFAULT_CSS = """
    TeamLine {
        height: auto;
        padding: 0 1;
        display: none;
    }
    TeamLine.-shown {
        display: block;
    }
    """

    def __init__(self) -> None:
        super().__init__("", id="team-line", markup=False)
        self.lines: list[str] = []
        """The lines shown (empty: hidden)."""

    def show(self, figures: dict[str, Any] | None) -> None:
        """Show the team ``figures`` of the overview's stats read (``None``: hide)."""
        from brainview.services.metrics.team import headline

        self.lines = [one_line(line, 160) for line in headline(figures)]
        self.set_class(bool(self.lines), "-shown")
        self.update(Text("\n".join(self.lines)))
