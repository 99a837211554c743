"""A brain's vital signs as a small table, and the queue's alert line above both brains;
every brain string shown inert.

The queue alert (:class:`QueueAlert`) is hidden while the queue is healthy and filled
from the ``queue_health`` of the overview's stats read
(:func:`brainview.services.metrics.queue_health.queue_health`): one line per reason, its
own text (counts and days), drawn as plain ``Text`` all the same.
"""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from brainview.core.safe_text import one_line
from brainview.core.vocabulary import GLYPH


class Vitals(Static):
    """Counts for one brain; shows a loading line until ``data`` arrives."""

    data: reactive[dict[str, Any] | None] = reactive(None, layout=True)
    """Stats of one brain (``brain_stats`` + extras), or ``None`` while loading."""

    proposals: reactive[dict[str, int] | None] = reactive(None, layout=True)
    """Queue counts (agent brain only)."""

    missing: reactive[str] = reactive("", layout=True)
    """Set when the brain does not exist (e.g. no agent brain yet)."""

    def render(self) -> RenderableType:
        if self.missing:
            return Text(self.missing, style="italic")
        if self.data is None:
            return Text("counting…", style="dim italic")
        d = self.data
        table = Table.grid(padding=(0, 2))
        table.add_column(justify="right", style="bold")
        table.add_column()
        table.add_row(f"{d['neurons']:,}", Text("live neurons"))
        table.add_row(f"{d['neurons_retired']:,}", Text("retired"))
        table.add_row(f"{d['synapses']:,}", Text("synapse rows"))
        table.add_row(f"{d['spikes']:,}", Text("spikes"))
        table.add_row(Text(d["era"]), Text(one_line(d["era_label"], 60), style="dim"))
        parts: list[RenderableType] = [table]
        if "reflections_per_skill" in d:
            skills = Table.grid(padding=(0, 2))
            skills.add_column(justify="right", style="bold")
            skills.add_column()
            for skill, n in d["reflections_per_skill"].items():
                skills.add_row(f"{n:,}", Text(one_line(skill, 24) or "∅"))
            skills.add_row(f"{d.get('policies', 0):,}", Text("policies"))
            parts += [Text("\nreflections by skill", style="bold underline"), skills]
        if self.proposals is not None:
            p = self.proposals
            parts.append(
                Text.assemble(
                    ("\nproposals ", "bold underline"),
                    "\n",
                    (f"{p.get('pending', 0)}", "bold"),
                    " pending  ",
                    (f"{GLYPH['stale']} {p.get('stale', 0)}", "bold"),
                    " stale  ",
                    (f"{GLYPH['accepted']} {p.get('accepted', 0)}", "bold"),
                    "  ",
                    (f"{GLYPH['rejected']} {p.get('rejected', 0)}", "bold"),
                )
            )
        else:
            domains = Table.grid(padding=(0, 2))
            domains.add_column(justify="right", style="bold")
            domains.add_column()
            items = sorted(d["domains"].items(), key=lambda kv: -kv[1])
            for dom, n in items[:8]:
                domains.add_row(f"{n:,}", Text(one_line(dom, 24) or "∅"))
            if len(items) > 8:
                domains.add_row("…", Text(f"{len(items) - 8} more domains", style="dim"))
            parts += [Text("\ndomains", style="bold underline"), domains]
        return Group(*parts)


class QueueAlert(Static):
    """``◷ 11 of 36 pending proposal(s) waiting more than 7 days (oldest 10 days)``."""

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
        lines = [f"{GLYPH['waiting']} {reason}" for reason in self.reasons]
        self.update(Text("\n".join(lines)))
