"""One brain's pane on the overview: path, vital signs, retention, (agent) metrics.

The pane owns what it shows: :meth:`BrainPane.show_loading`, :meth:`show_stats`,
:meth:`show_missing`, :meth:`show_retention` and :meth:`stop_loading` are the only
ways in; the screen routes service results to them and touches nothing inside.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.events import Mount
from textual.reactive import reactive
from textual.widgets import LoadingIndicator, Static

from brainview.tui.overview.metrics_panel import MetricsPanel
from brainview.tui.overview.vitals import Vitals

if TYPE_CHECKING:
    from brainview.services.metrics.retention import RetentionSummary

Role = Literal["user", "agent"]

NO_AGENT = (
    "No agent brain yet.\nThe curator has not learnt anything in this project.\n"
    "Create an empty one with: brainview init-agent"
)


class Counting(LoadingIndicator):
    """Textual's indicator redraws 16 times a second even while hidden (and under a
    screen not shown): this one animates only while it shows.  A console of a team
    server sits on triage with the overview hidden; ten of them redrawing two hidden
    indicators took a third of a core."""

    def _on_mount(self, event: Mount) -> None:
        super()._on_mount(event)
        if not self.display:
            self.auto_refresh = None

    def shown(self, on: bool) -> None:
        """Show (and animate) or hide (and stop)."""
        self.display = on
        self.auto_refresh = 1 / 16 if on else None


class BrainPane(VerticalScroll):
    """Vital signs of one brain; scrollable by keyboard (``h``/``l`` move between the
    two panes)."""

    path: reactive[str] = reactive("")
    """The brain file shown under the title (``—`` when there is none)."""

    def __init__(self, role: Role) -> None:
        super().__init__(id=f"{role}-pane", classes="brain-pane")
        self.role: Role = role
        self._plot_mounted = False

    def compose(self) -> ComposeResult:
        yield Static("User brain" if self.role == "user" else "Agent brain", classes="pane-title")
        yield Static("", id=f"{self.role}-path", classes="pane-path", markup=False)
        yield Vitals(id=f"{self.role}-vitals")
        if self.role == "agent":
            yield MetricsPanel(id="agent-metrics")
        # The plot (plotext, numpy) mounts once the first counts arrive.
        yield Static("", id=f"{self.role}-retention-slot", classes="retention")
        yield Counting(id=f"{self.role}-loading")

    def watch_path(self, path: str) -> None:
        self.query_one(f"#{self.role}-path", Static).update(path)

    @property
    def vitals(self) -> Vitals:
        return self.query_one(Vitals)

    def show_loading(self) -> None:
        """Back to "counting…" while the numbers are read again."""
        self.vitals.data = None
        for plot in self._plots():
            plot.summary = None
        self.query_one(Counting).shown(True)

    def show_stats(self, data: dict[str, Any], proposals: dict[str, int] | None = None) -> None:
        """The brain's counts (and, for the agent brain, the queue's)."""
        self._ensure_plot()
        self.vitals.data = data
        if proposals is not None:
            self.vitals.proposals = proposals

    def show_missing(self, text: str = NO_AGENT) -> None:
        """There is no such brain: say so, and draw no plot."""
        self.vitals.missing = text
        for plot in self._plots():
            plot.display = False
        self.stop_loading()

    def show_metrics(self, data: dict[str, Any] | None) -> None:
        """Agent metrics (``None``: no agent brain)."""
        for panel in self.query(MetricsPanel):
            panel.show(data)

    def show_retention(self, summary: RetentionSummary) -> None:
        """The R-now distribution."""
        for plot in self._plots():
            plot.summary = summary
        self.stop_loading()

    def stop_loading(self) -> None:
        self.query_one(Counting).shown(False)

    def _plots(self) -> list[Any]:
        if not self._plot_mounted:
            return []  # nothing to ask (and plotext, numpy not loaded before a paint)
        from brainview.tui.widgets.retention_plot import RetentionPlot

        return list(self.query(RetentionPlot))

    def _ensure_plot(self) -> None:
        """Mount the retention plot in place of its slot (once; plotext loads then)."""
        from brainview.tui.widgets.retention_plot import RetentionPlot

        if self._plot_mounted:
            return
        self._plot_mounted = True
        slot = self.query_one(f"#{self.role}-retention-slot")
        self.mount(RetentionPlot(id=f"{self.role}-retention", classes="retention"), before=slot)
        slot.remove()
