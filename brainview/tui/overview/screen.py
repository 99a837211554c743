"""Overview: both brains' vital signs side by side; numbers fill in from service calls.

Paints first; the counts, then the retention distributions and the agent metrics,
arrive through :func:`~brainview.tui.workers.run_service` and are routed to the
:class:`BrainPane` that shows them.  A failure reaches the app as one line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import ScrollableContainer
from textual.screen import Screen
from textual.widgets import Header

from brainview.tui.access import brainview_app
from brainview.tui.footer import Footer
from brainview.tui.overview.brain_pane import BrainPane
from brainview.tui.overview.team_line import TeamLine
from brainview.tui.overview.vitals import QueueAlert
from brainview.tui.workers import WorkFailed, run_service

if TYPE_CHECKING:
    from brainview.services.metrics.retention import RetentionSummary
    from brainview.services.session import Session


class OverviewScreen(Screen[None]):
    """Vital signs of the user brain and the agent brain."""

    BINDINGS = [
        Binding("ctrl+r,f5", "reload", "Reload", id="overview.reload", tooltip="Count again"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self._shown = False

    def compose(self) -> ComposeResult:
        yield Header()
        yield QueueAlert()
        yield TeamLine()
        # Scrollable by keyboard: the whole page when the brains stack (narrow), each
        # brain's pane when they sit side by side.
        with ScrollableContainer(id="brains"):
            yield BrainPane("user")
            yield BrainPane("agent")
        yield Footer()

    def pane(self, role: str) -> BrainPane:
        return self.query_one(f"#{role}-pane", BrainPane)

    def on_mount(self) -> None:
        # Paint first; start the reads once the first frame is out.
        self.call_after_refresh(self.action_reload)

    def on_screen_resume(self) -> None:
        """Back from triage or communities: count again in place (decisions moved the
        numbers); the first showing is ``on_mount``'s."""
        if self._shown:
            self.load_stats()
        self._shown = True

    def action_reload(self) -> None:
        """Read everything again (stats first, then distributions and metrics)."""
        paths = brainview_app(self).paths
        self.pane("user").path = str(paths.user_db)
        self.pane("agent").path = str(paths.agent_db) if paths.agent_db else "—"
        for pane in self.query(BrainPane):
            pane.show_loading()
        self.load_stats()

    def load_stats(self) -> None:
        """Counts by SQL aggregate."""
        run_service(self, _stats, group="stats", done=self._show_stats)

    def _show_stats(self, data: dict[str, Any]) -> None:
        self.query_one(QueueAlert).show(data.get("queue_health"))
        self.query_one(TeamLine).show(data.get("team"))
        self.pane("user").show_stats(data["user"])
        agent = self.pane("agent")
        if data["agent"] is None:
            agent.show_missing()
        else:
            agent.show_stats(data["agent"], data["proposals"])
        run_service(self, _retention, group="retention", done=self._show_retention)
        run_service(self, _metrics, group="metrics", done=agent.show_metrics)

    def _show_retention(self, summaries: dict[str, RetentionSummary]) -> None:
        for role, summary in summaries.items():
            self.pane(role).show_retention(summary)

    @on(WorkFailed)
    def _failed(self, message: WorkFailed) -> None:
        """Stop the spinners; the app says what failed (the message bubbles on)."""
        for pane in self.query(BrainPane):
            pane.stop_loading()


def _stats(session: Session) -> dict[str, Any]:
    from brainview.services.metrics.queue_health import queue_health
    from brainview.services.metrics.stats import project_stats
    from brainview.services.metrics.team import team_figures

    with session.project() as project:
        data = project_stats(project)
        health = queue_health(project, session.clock(), session.config.queue)
        team = team_figures(project, session.config.two_person)
    return data | {"queue_health": health.to_json(), "team": team}


def _retention(session: Session) -> dict[str, RetentionSummary]:
    """R-now distributions of both brains (the agent's when there is one)."""
    from brainview.services.metrics.retention import retention

    now = session.clock()
    with session.project() as project:
        out = {"user": retention(project.user, now)}
        if project.agent is not None:
            out["agent"] = retention(project.agent, now)
    return out


def _metrics(session: Session) -> dict[str, Any] | None:
    """Acceptance, MAC, policy emergence and reflections at risk (``None``: no agent)."""
    from brainview.services.metrics import agent_metrics

    cfg = session.config.reflections
    with session.project() as project:
        if project.agent is None:
            return None
        return agent_metrics(
            project, session.clock(), threshold=cfg.pruning_threshold, days=cfg.fading_days
        ).to_json()
