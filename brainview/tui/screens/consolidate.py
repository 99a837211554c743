"""Plan a consolidation of the agent brain and queue it for review (a modal).

The plan is computed in a thread (community detection may run first, with progress);
the modal shows the triage tiers and every phase's items, and ``enter`` queues them
as proposals — nothing changes in the agent brain until each is accepted in triage.
Dismisses with ``(proposals queued, plan id)`` (``None`` when cancelled or empty).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.console import Group
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from brainview.core.safe_text import one_line

SHOWN_PER_PHASE = 8


@dataclass
class PlanReady(Message):
    """The plan is computed."""

    plan: Any


@dataclass
class PlanFailed(Message):
    """Planning or queueing failed (one line)."""

    text: str


@dataclass
class PlanQueued(Message):
    """The plan's items are in the queue."""

    ids: list[str]


def render_plan(plan: Any) -> Group:
    """Triage tiers, then each phase with its first items and what was left out."""
    from brainview.services.consolidate import PHASE_NAMES, PHASES

    t = plan.triage
    lines: list[Text] = [
        Text(
            f"triage: {t['hot']} hot · {t['warm']} warm · {t['stale']} stale · "
            f"{t['new']} new · {t['contested']} contested",
        ),
        Text(""),
    ]
    for phase in PHASES:
        items = [i for i in plan.items if i.phase == phase]
        lines.append(Text(f"{PHASE_NAMES[phase]}: {len(items)}", style="bold"))
        for item in items[:SHOWN_PER_PHASE]:
            lines.append(Text("  " + one_line(item.summary, 90)))
        if len(items) > SHOWN_PER_PHASE:
            lines.append(Text(f"  … and {len(items) - SHOWN_PER_PHASE} more", style="dim"))
    if plan.skipped:
        left = ", ".join(f"{n} {one_line(w, 40)}" for w, n in sorted(plan.skipped.items()))
        lines += [Text(""), Text("left out: " + left, style="dim")]
    return Group(*lines)


class ConsolidateScreen(ModalScreen[tuple[int, str] | None]):
    """Plan, review the plan's outline, queue it.

    | Key | Action |
    |-----|--------|
    | `enter` | Queue every item as a proposal |
    | `escape` | Close without queueing |
    """

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

    def __init__(self) -> None:
        super().__init__()
        self.plan: Any = None
        self.queueing = False

    def compose(self) -> ComposeResult:
        with Vertical(id="consolidate-box"):
            yield Label("Consolidate the agent brain", id="consolidate-title", markup=False)
            yield Static(Text("planning…", style="dim italic"), id="consolidate-status")
            with VerticalScroll(id="consolidate-scroll"):
                yield Static("", id="consolidate-plan")
            yield Label(
                "enter queues the items as proposals (each decided in triage) · escape cancels",
                classes="hint",
                markup=False,
            )

    def on_mount(self) -> None:
        self.make_plan()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "queue":
            return bool(self.plan is not None and self.plan.items and not self.queueing)
        return True

    def _status(self, text: str) -> None:
        self.query_one("#consolidate-status", Static).update(Text(text, style="dim italic"))

    @work(thread=True, exclusive=True, group="consolidate")
    def make_plan(self) -> None:
        """Plan in a thread (communities first when the cache is stale)."""
        from brainview.services import consolidate

        app: Any = self.app
        cfg = app.config
        settings = consolidate.settings_from(cfg.consolidate, cfg.reflections.pruning_threshold)

        def progress(stage: str, _fraction: float) -> None:
            app.call_from_thread(self._status, f"planning: {one_line(stage, 80)}…")

        try:
            with app.open_project(write_agent=True) as project:
                plan = consolidate.plan(
                    project, now=app.now(), settings=settings, progress=progress
                )
        except Exception as err:  # noqa: BLE001 - shown to the user
            self.post_message(PlanFailed(one_line(str(err), 200)))
            return
        self.post_message(PlanReady(plan))

    @on(PlanReady)
    def _ready(self, message: PlanReady) -> None:
        self.plan = message.plan
        n = len(self.plan.items)
        self._status(f"{n} change(s) planned" if n else "nothing to consolidate")
        self.query_one("#consolidate-plan", Static).update(render_plan(self.plan))
        self.refresh_bindings()

    @on(PlanFailed)
    def _failed(self, message: PlanFailed) -> None:
        self.queueing = False
        self._status("")
        self.notify(message.text, title="Consolidation refused", severity="error", markup=False)
        self.refresh_bindings()

    def action_queue(self) -> None:
        """Queue the planned items (thread)."""
        if self.plan is None or not self.plan.items or self.queueing:
            return
        self.queueing = True
        self._status("queueing…")
        self.refresh_bindings()
        self.queue_plan(self.plan)

    @work(thread=True, exclusive=True, group="consolidate")
    def queue_plan(self, plan: Any) -> None:
        """Store every item as a proposal (one transaction)."""
        from brainview.services import consolidate

        app: Any = self.app
        try:
            with app.open_project(write_agent=True) as project:
                ids = consolidate.queue(project, plan, now=app.now())
        except Exception as err:  # noqa: BLE001
            self.post_message(PlanFailed(one_line(str(err), 200)))
            return
        self.post_message(PlanQueued(ids))

    @on(PlanQueued)
    def _queued(self, message: PlanQueued) -> None:
        self.dismiss((len(message.ids), str(self.plan.id)) if message.ids else None)

    def action_cancel(self) -> None:
        """Close, queue nothing."""
        self.dismiss(None)
