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

SHOWN_PER_PHASE = 6


@dataclass
class PlanReady(Message):
    """The plan is computed."""

    plan: Any
    titles: dict[str, str]


@dataclass
class PlanFailed(Message):
    """Planning or queueing failed (one line)."""

    text: str


@dataclass
class PlanQueued(Message):
    """The plan's items are in the queue."""

    ids: list[str]


KIND_ORDER = (
    ("prune_reflection", "sws"),
    ("decay_synapses", "shy"),
    ("summarize_community", "rem"),
    ("retire_policy", "rem"),
)


def _line(item: Any, titles: dict[str, str]) -> Text:
    p = item.params
    if item.kind == "prune_reflection":
        head = f"prune {p['reflection']} (R {p.get('retrievability', 0):.2f})"
        title = titles.get(p["reflection"], "")
    elif item.kind == "summarize_community":
        head = f"policy for community #{p.get('community')} · {len(p['members'])} lessons"
        title = titles.get(p["members"][0], "") if p["members"] else ""
    elif item.kind == "retire_policy":
        head, title = f"retire policy {p['policy']}", titles.get(p["policy"], "")
    else:
        head, title = item.summary, ""
    line = Text("  " + one_line(head, 60), no_wrap=True, overflow="ellipsis")
    if title:
        line.append("  " + one_line(title, 80), style="dim")
    return line


def render_plan(plan: Any, titles: dict[str, str] | None = None) -> Group:
    """Triage tiers (explained), then each phase's items by kind, and what was left out."""
    from brainview.services.consolidate import PHASE_NAMES

    titles = titles or {}
    t = plan.triage
    lines: list[Text] = [
        Text(
            f"triage: {t['hot']} hot · {t['warm']} warm · {t['stale']} stale · "
            f"{t['new']} new (of which {t['contested']} contested)",
        ),
        Text(
            "hot: fired 3+ times in 7 days · warm: fired within 30 days · stale: not for 30+ "
            "days · new: younger, never fired · contested: mostly misses lately",
            style="dim",
        ),
        Text(""),
    ]
    phase = None
    for kind, kind_phase in KIND_ORDER:
        items = [i for i in plan.items if i.kind == kind]
        if kind_phase != phase:
            phase = kind_phase
            n = sum(1 for i in plan.items if i.phase == phase)
            lines.append(Text(f"{PHASE_NAMES[phase]}: {n}", style="bold"))
        lines += [_line(i, titles) for i in items[:SHOWN_PER_PHASE]]
        if len(items) > SHOWN_PER_PHASE:
            lines.append(Text(f"  … and {len(items) - SHOWN_PER_PHASE} more", style="dim"))
    if plan.skipped:
        left = " · ".join(f"{one_line(w, 50)}: {n}" for w, n in sorted(plan.skipped.items()))
        lines += [Text(""), Text("left out — " + left, style="dim")]
    return Group(*lines)


def _subject(item: Any) -> str | None:
    """The neuron an item line is titled by."""
    p = item.params
    if item.kind == "summarize_community":
        return p["members"][0] if p["members"] else None
    return p.get("reflection") or p.get("policy")


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

        from brainview.services.communities.curves import titles

        try:
            # Planning reads (the partition is cached outside the brains): a read-only
            # project; only queueing the plan opens the agent brain for writing.
            with app.open_project() as project:
                plan = consolidate.plan(
                    project, now=app.now(), settings=settings, progress=progress
                )
                wanted = [_subject(i) for i in plan.items]
                with project.require_agent().read() as conn:
                    named = titles(project, conn, [w for w in wanted if w])
        except Exception as err:  # noqa: BLE001 - shown to the user
            self.post_message(PlanFailed(one_line(str(err), 200)))
            return
        self.post_message(PlanReady(plan, named))

    @on(PlanReady)
    def _ready(self, message: PlanReady) -> None:
        self.plan = message.plan
        n = len(self.plan.items)
        self._status(f"{n} change(s) planned" if n else "nothing to consolidate")
        self.query_one("#consolidate-plan", Static).update(render_plan(self.plan, message.titles))
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
