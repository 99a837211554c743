"""Plan a consolidation of the agent brain and queue it for review (a modal).

The plan is computed off the UI thread (community detection may run first, with
progress); the modal shows the triage tiers and every phase's items, and ``enter``
queues them as proposals — nothing changes in the agent brain until each is accepted in
triage.  Dismisses with ``(proposals queued, plan id)`` (``None`` when cancelled or
empty).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.reactive import var
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from brainview.core.safe_text import one_line
from brainview.tui.consolidate.plan_view import render_plan, subject
from brainview.tui.workers import WorkFailed, run_service

if TYPE_CHECKING:
    from brainview.services.session import Session


class ConsolidateScreen(ModalScreen[tuple[int, str] | None]):
    """Plan, review the plan's outline, queue it."""

    BINDINGS = [
        Binding(
            "enter",
            "queue",
            "Queue proposals",
            id="consolidate.queue",
            tooltip="Queue every planned change as a proposal to decide",
        ),
        Binding("escape", "cancel", "Cancel", id="consolidate.cancel", tooltip="Queue nothing"),
    ]

    plan: var[Any] = var(None, bindings=True)
    """The computed plan (``None`` while planning or after a failure)."""
    queueing: var[bool] = var(False, bindings=True)
    """Whether the plan's items are being stored as proposals."""
    status: var[str] = var("planning…")
    """One dim line above the plan: progress, the count, or nothing."""

    def compose(self) -> ComposeResult:
        with Vertical(id="consolidate-box"):
            yield Label("Consolidate the agent brain", id="consolidate-title", markup=False)
            yield Static(Text(self.status, style="dim italic"), id="consolidate-status")
            with VerticalScroll(id="consolidate-scroll"):
                yield Static("", id="consolidate-plan")
            yield Label(
                "enter queues the items as proposals (each decided in triage) · escape cancels",
                classes="hint",
                markup=False,
            )

    def on_mount(self) -> None:
        self.make_plan()

    def watch_status(self, text: str) -> None:
        if self.is_mounted:
            self.query_one("#consolidate-status", Static).update(Text(text, style="dim italic"))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "queue":
            return bool(self.plan is not None and self.plan.items and not self.queueing)
        return True

    def make_plan(self) -> None:
        """Plan off the UI thread (communities first when the cache is stale)."""
        app = self.app

        def progress(stage: str, _fraction: float) -> None:
            app.call_from_thread(setattr, self, "status", f"planning: {one_line(stage, 80)}…")

        def job(session: Session) -> tuple[Any, dict[str, str]]:
            return _plan(session, progress)

        run_service(self, job, group="plan", done=self._ready)

    def _ready(self, result: tuple[Any, dict[str, str]]) -> None:
        plan, titles = result
        n = len(plan.items)
        self.status = f"{n} change(s) planned" if n else "nothing to consolidate"
        self.query_one("#consolidate-plan", Static).update(render_plan(plan, titles))
        self.plan = plan

    @on(WorkFailed)
    def _failed(self, message: WorkFailed) -> None:
        """Planning or queueing was refused: say so here, stay open to cancel."""
        message.stop()
        self.queueing = False
        self.status = ""
        self.notify(message.text, title="Consolidation refused", severity="error", markup=False)

    def action_queue(self) -> None:
        """Store every planned item as a proposal (one transaction)."""
        if self.plan is None or not self.plan.items or self.queueing:
            return
        self.queueing = True
        self.status = "queueing…"
        plan = self.plan

        def job(session: Session) -> list[str]:
            return session.queue_consolidation(plan)

        run_service(self, job, group="queue", done=self._queued)

    def _queued(self, ids: list[str]) -> None:
        self.dismiss((len(ids), str(self.plan.id)) if ids else None)

    def action_cancel(self) -> None:
        """Close, queue nothing."""
        self.dismiss(None)


def _plan(session: Session, progress: Any) -> tuple[Any, dict[str, str]]:
    """The plan and the titles of the neurons its lines name.  Planning reads (the
    partition is cached outside the brains): only queueing opens the agent brain for
    writing."""
    from brainview.services import consolidate
    from brainview.services.communities.curves import titles

    session.require("consolidate")  # planning reads, but only to consolidate
    cfg = session.config
    settings = consolidate.settings_from(cfg.consolidate, cfg.reflections.pruning_threshold)
    with session.project() as project:
        plan = consolidate.plan(project, now=session.clock(), settings=settings, progress=progress)
        wanted = [subject(i) for i in plan.items]
        with project.require_agent().read() as conn:
            named = titles(project, conn, [w for w in wanted if w])
    return plan, named
