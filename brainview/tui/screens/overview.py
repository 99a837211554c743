"""Overview: both brains' vital signs side by side; numbers fill in from workers."""

from __future__ import annotations

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import ScrollableContainer, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Header, LoadingIndicator, Static

from brainview.tui.messages import LoadFailed, RetentionLoaded, StatsLoaded
from brainview.tui.widgets.metrics_panel import MetricsPanel
from brainview.tui.widgets.vitals import Vitals


class OverviewScreen(Screen[None]):
    """Vital signs of the user brain and the agent brain.

    | Key | Action |
    |-----|--------|
    | `r` | Reload the numbers |
    """

    BINDINGS = [
        Binding("ctrl+r,f5", "reload", "Reload", id="overview.reload", tooltip="Count again"),
    ]

    def compose(self) -> ComposeResult:
        yield Header()
        # Scrollable by keyboard: the whole page when the brains stack (narrow), each
        # brain's pane when they sit side by side.
        with ScrollableContainer(id="brains"):
            for role, title in (("user", "User brain"), ("agent", "Agent brain")):
                with VerticalScroll(id=f"{role}-pane", classes="brain-pane"):
                    yield Static(title, classes="pane-title")
                    yield Static("", id=f"{role}-path", classes="pane-path")
                    yield Vitals(id=f"{role}-vitals")
                    if role == "agent":
                        yield MetricsPanel(id="agent-metrics")
                    # The plot (plotext, numpy) mounts after the first frame.
                    yield Static("", id=f"{role}-retention-slot", classes="retention")
                    yield LoadingIndicator(id=f"{role}-loading")
        yield Footer()

    def on_mount(self) -> None:
        # Paint first; start the reads once the first frame is out.  The plots (plotext,
        # numpy) are imported and mounted when the first counts arrive.
        self._shown = False
        self._plots = False
        self.call_after_refresh(self.action_reload)

    def _ensure_plots(self) -> None:
        """Mount the retention plots in place of their slots (once)."""
        from brainview.tui.widgets.retention_plot import RetentionPlot

        if self._plots:
            return
        self._plots = True
        for role in ("user", "agent"):
            slot = self.query_one(f"#{role}-retention-slot")
            plot = RetentionPlot(id=f"{role}-retention", classes="retention")
            self.query_one(f"#{role}-pane").mount(plot, before=slot)
            slot.remove()

    def on_screen_resume(self) -> None:
        """Back from triage or communities: count again in place (decisions moved the
        numbers); the first showing is ``on_mount``'s."""
        if self._shown:
            self.load_stats()
        self._shown = True

    def action_reload(self) -> None:
        """Start the background reads (stats first, then distributions)."""
        app = self.app
        paths = app.paths  # type: ignore[attr-defined]
        self.query_one("#user-path", Static).update(str(paths.user_db))
        agent_path = str(paths.agent_db) if paths.agent_db else "—"
        self.query_one("#agent-path", Static).update(agent_path)
        for role in ("user", "agent"):
            self.query_one(f"#{role}-vitals", Vitals).data = None
            for plot in self.query(f"#{role}-retention"):
                plot.summary = None  # type: ignore[attr-defined]
            self.query_one(f"#{role}-loading").display = True
        self.load_stats()

    @work(thread=True, exclusive=True, group="overview-stats")
    def load_stats(self) -> None:
        """Counts by SQL aggregate (thread); posts :class:`StatsLoaded`."""
        from brainview.services.metrics.stats import project_stats

        try:
            with self.app.open_project() as project:  # type: ignore[attr-defined]
                self.post_message(StatsLoaded(project_stats(project)))
        except Exception as err:  # noqa: BLE001 - reported in the UI, not raised
            self.post_message(LoadFailed("stats", _one(err)))

    @work(thread=True, exclusive=True, group="overview-retention")
    def load_retention(self) -> None:
        """R-now distributions for both brains (thread); posts :class:`RetentionLoaded`."""
        from brainview.services.metrics.retention import retention

        now = self.app.now()  # type: ignore[attr-defined]
        try:
            with self.app.open_project() as project:  # type: ignore[attr-defined]
                self.post_message(RetentionLoaded("user", retention(project.user, now)))
                if project.agent is not None:
                    self.post_message(RetentionLoaded("agent", retention(project.agent, now)))
        except Exception as err:  # noqa: BLE001
            self.post_message(LoadFailed("retention", _one(err)))

    @on(StatsLoaded)
    def show_stats(self, message: StatsLoaded) -> None:
        self._ensure_plots()
        data = message.data
        self.query_one("#user-vitals", Vitals).data = data["user"]
        agent = self.query_one("#agent-vitals", Vitals)
        if data["agent"] is None:
            agent.missing = (
                "No agent brain yet.\nThe curator has not learnt anything in this project.\n"
                "Create an empty one with: brainview init-agent"
            )
            self.query_one("#agent-retention").display = False
            self.query_one("#agent-loading").display = False
        else:
            agent.data = data["agent"]
            agent.proposals = data["proposals"]
        self.load_retention()
        self.load_metrics()

    @work(thread=True, exclusive=True, group="overview-metrics")
    def load_metrics(self) -> None:
        """Acceptance, MAC, policy emergence and reflections at risk (thread)."""
        from brainview.services.metrics import agent_metrics

        cfg = self.app.config.reflections  # type: ignore[attr-defined]
        try:
            with self.app.open_project() as project:  # type: ignore[attr-defined]
                data = None
                if project.agent is not None:
                    data = agent_metrics(
                        project,
                        self.app.now(),  # type: ignore[attr-defined]
                        threshold=cfg.pruning_threshold,
                        days=cfg.fading_days,
                    ).to_json()
        except Exception as err:  # noqa: BLE001
            self.post_message(LoadFailed("metrics", _one(err)))
            return
        self.app.call_from_thread(self.query_one("#agent-metrics", MetricsPanel).show, data)

    @on(RetentionLoaded)
    def show_retention(self, message: RetentionLoaded) -> None:
        from brainview.tui.widgets.retention_plot import RetentionPlot

        self.query_one(f"#{message.role}-retention", RetentionPlot).summary = message.summary
        self.query_one(f"#{message.role}-loading").display = False

    @on(LoadFailed)
    def show_failure(self, message: LoadFailed) -> None:
        for role in ("user", "agent"):
            self.query_one(f"#{role}-loading").display = False
        self.app.notify(
            message.text, title=f"Could not load {message.what}", severity="error", markup=False
        )


def _one(err: BaseException) -> str:
    from brainview.core.safe_text import one_line

    return one_line(str(err), 200)
