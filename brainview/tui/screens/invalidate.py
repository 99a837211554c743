"""Invalidate or challenge reflections: reason, blast radius with marks, confirm with count.

:class:`InvalidateScreen` is a modal; it reads the blast radius in a thread worker and
dismisses with a :class:`~brainview.services.lifecycle.blast.BlastAction` (or ``None``).  Nothing
is written until the second step ("Yes, invalidate N") is chosen.

:class:`LifecycleActions` is a mixin for screens that show reflections (reflection view,
communities): add :data:`LIFECYCLE_BINDINGS` to the screen's ``BINDINGS`` and implement
``lifecycle_targets()`` (and optionally ``lifecycle_done(result)``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from rich.segment import Segment
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.strip import Strip
from textual.widgets import Button, Input, SelectionList, Static
from textual.widgets._toggle_button import ToggleButton
from textual.widgets.option_list import OptionDoesNotExist
from textual.widgets.selection_list import Selection

from brainview.core.safe_text import first_line, one_line, safe_text
from brainview.services.lifecycle import MARK, RETIRED, TARGET, Status
from brainview.services.lifecycle.blast import BlastAction, BlastRadius
from brainview.tui.widgets.suspicion import state_mark

VERBS = ("invalidate", "challenge")
STATUS_MARK = {"accepted": "✓ accepted", "rejected": "✗ rejected"}


class MarkList(SelectionList[str]):
    """A selection list whose box reads ``✓`` (marked), blank, or ``–`` (not markable),
    so a mark never relies on colour alone."""

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        segments = list(strip)
        try:
            option = self.get_option_at_index(self.scroll_offset.y + y)
        except OptionDoesNotExist:
            return strip
        if len(segments) < 2 or segments[1].text != ToggleButton.BUTTON_INNER:
            return strip
        mark = "✓" if option.value in self._selected else ("–" if option.disabled else " ")
        segments[1] = Segment(mark, segments[1].style)
        return Strip(segments, strip.cell_length)


@dataclass
class RadiusLoaded(Message):
    """The blast radius and the targets' status were read."""

    radius: BlastRadius
    targets: dict[str, tuple[Status, str]]
    """``{id: (status, content)}``."""


@dataclass
class RadiusFailed(Message):
    """Reading failed; ``text`` is one line."""

    text: str


class InvalidateScreen(ModalScreen[BlastAction | None]):
    """Reason, blast radius (marks), then a confirmation showing the count.

    | Key | Action |
    |-----|--------|
    | `ctrl+s` | Review the count / confirm |
    | `ctrl+t` | Switch invalidate ↔ challenge |
    | `space` | Mark / unmark (in the list) |
    | `escape` | Back / cancel |
    """

    DEFAULT_CSS = """
    InvalidateScreen { align: center middle; }
    #invalidate-box {
        width: 90%; max-width: 120; height: 90%;
        border: thick $error 60%; background: $panel; padding: 0 1;
    }
    #invalidate-title { text-style: bold; }
    #invalidate-targets { height: auto; max-height: 6; color: $text-muted; }
    #invalidate-marks { height: 1fr; border: round $primary 40%; }
    #invalidate-summary { height: auto; padding: 0 1; }
    #invalidate-buttons { height: 3; align: right middle; }
    #invalidate-buttons Button { margin: 0 1; }
    InvalidateScreen.-confirming #invalidate-box { border: thick $error; }
    """

    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="invalidate.cancel", tooltip="Back, or close"),
        Binding("ctrl+s", "confirm", "Confirm…", id="invalidate.confirm", tooltip="Show the count"),
        Binding(
            "ctrl+t", "toggle_verb", "Verb", id="invalidate.verb", tooltip="Invalidate ↔ challenge"
        ),
    ]

    def __init__(self, targets: Sequence[str], verb: str = "invalidate") -> None:
        super().__init__()
        self.targets = list(dict.fromkeys(targets))
        self.verb = verb if verb in VERBS else "invalidate"
        self.radius: BlastRadius | None = None
        self.statuses: dict[str, tuple[Status, str]] = {}
        self.confirming = False

    def compose(self) -> ComposeResult:
        with Vertical(id="invalidate-box"):
            yield Static("", id="invalidate-title")
            yield Static(Text("reading…", style="dim italic"), id="invalidate-targets")
            yield Input(placeholder="reason (required)", id="invalidate-reason")
            yield Static(Text("blast radius: reading…", style="dim italic"), id="invalidate-radius")
            yield MarkList(id="invalidate-marks")
            yield Static("", id="invalidate-summary")
            with Horizontal(id="invalidate-buttons"):
                yield Button("Review…", id="invalidate-review", variant="primary")
                yield Button("Yes", id="invalidate-yes", variant="error")
                yield Button("Cancel", id="invalidate-cancel")

    def on_mount(self) -> None:
        self.query_one("#invalidate-yes").display = False
        self._retitle()
        self.query_one("#invalidate-reason", Input).focus()
        self.load_radius()

    @work(thread=True, exclusive=True, group="invalidate-radius")
    def load_radius(self) -> None:
        """Read the blast radius and the targets (thread)."""
        from brainview.services.lifecycle import statuses
        from brainview.services.lifecycle.blast import radius
        from brainview.store.readmodel import neurons_by_ids

        try:
            with self.app.open_project() as project:  # type: ignore[attr-defined]
                found = radius(project, self.targets)
                agent = project.require_agent()
                with agent.read() as conn:
                    rows = neurons_by_ids(conn, agent.era, self.targets)
                    st = statuses(conn, agent.era, list(rows))
        except Exception as err:  # noqa: BLE001 - shown in the modal
            self.post_message(RadiusFailed(one_line(str(err), 200)))
            return
        targets = {r: (st[r], rows[r].content or "") for r in rows}
        self.post_message(RadiusLoaded(found, targets))

    @on(RadiusLoaded)
    def _loaded(self, message: RadiusLoaded) -> None:
        self.radius, self.statuses = message.radius, message.targets
        lines = Text()
        for rid in self.targets[:5]:
            status, content = self.statuses.get(rid, (Status(rid, "missing"), ""))
            lines.append(f"{one_line(rid, 24)}  ", style="bold")
            lines.append_text(state_mark(status.state))
            lines.append(f" {first_line(content, 70)}\n")
        if len(self.targets) > 5:
            lines.append(f"… and {len(self.targets) - 5} more", style="dim")
        self.query_one("#invalidate-targets", Static).update(lines)
        self._fill(message.radius)
        self._summarise()

    @on(RadiusFailed)
    def _failed(self, message: RadiusFailed) -> None:
        self.query_one("#invalidate-radius", Static).update(
            Text.assemble(("could not read the blast radius: ", "bold"), message.text)
        )

    def _fill(self, radius: BlastRadius) -> None:
        marks = self.query_one("#invalidate-marks", SelectionList)
        marks.clear_options()
        flagged = set(radius.default_flags())
        options: list[Selection[str]] = []
        for pid, hits in _by_proposal(radius.pending).items():
            text = Text("flag stale  ", style="bold").append_text(_proposal_text(hits))
            options.append(Selection(text, f"p:{pid}", pid in flagged))
        for pid, hits in _by_proposal(radius.decided).items():
            text = Text(STATUS_MARK.get(hits[0].status, hits[0].status) + "  ", style="dim")
            options.append(
                Selection(text.append_text(_proposal_text(hits)), f"d:{pid}", disabled=True)
            )
        for n in radius.neighbours:
            usable = n.state in _movable(self.verb) and n.state != RETIRED
            head = Text("policy  " if n.is_policy else "neighbour  ", style="bold")
            head.append(f"{one_line(n.neuron_id, 24)} ")
            head.append_text(state_mark(n.state))
            head.append(f" {first_line(n.content, 50)} · {one_line('; '.join(n.relations), 80)}")
            options.append(Selection(head, f"n:{n.neuron_id}", disabled=not usable))
        marks.add_options(options)
        more = f" · {radius.more_neighbours} more not shown" if radius.more_neighbours else ""
        self.query_one("#invalidate-radius", Static).update(
            Text(
                f"blast radius: {len(_by_proposal(radius.pending))} pending, "
                f"{len(_by_proposal(radius.decided))} decided proposal(s), "
                f"{len(radius.neighbours)} neighbour(s){more} — space marks",
                style="bold",
            )
        )

    # -- the choice ------------------------------------------------------------------

    def chosen(self) -> BlastAction:
        """What confirming now would do."""
        values = self.query_one("#invalidate-marks", SelectionList).selected
        neighbours = [v[2:] for v in values if v.startswith("n:")]
        eligible = [
            r
            for r in self.targets
            if r not in self.statuses or self.statuses[r][0].state in _movable(self.verb)
        ]
        return BlastAction(
            self.verb,
            tuple(dict.fromkeys(eligible + neighbours)),
            tuple(v[2:] for v in values if v.startswith("p:")),
            self.query_one("#invalidate-reason", Input).value.strip(),
        )

    def _retitle(self) -> None:
        noun = f"{len(self.targets)} reflection(s)" if len(self.targets) > 1 else "reflection"
        self.query_one("#invalidate-title", Static).update(
            Text(f"{self.verb.capitalize()} {noun}  (ctrl+t: {_other(self.verb)})", style="bold")
        )

    def _summarise(self) -> None:
        action = self.chosen()
        effect = (
            "soft-retires them: never consulted again, history kept, reversible"
            if self.verb == "invalidate"
            else "flags them: still consulted, shown with a warning"
        )
        self.query_one("#invalidate-summary", Static).update(
            Text(
                f"{self.verb.capitalize()} {len(action.reflections)} reflection(s) and flag "
                f"{len(action.flag_proposals)} pending proposal(s) — {effect}.",
                style="bold" if self.confirming else "",
            )
        )
        yes = self.query_one("#invalidate-yes", Button)
        yes.label = f"Yes, {self.verb} {len(action.reflections)}"

    @on(SelectionList.SelectedChanged)
    def _marks_changed(self) -> None:
        self._summarise()

    def action_toggle_verb(self) -> None:
        """Switch between invalidate and challenge."""
        self.verb = _other(self.verb)
        self._retitle()
        if self.radius is not None:
            self._fill(self.radius)
        self._stage(False)

    def action_confirm(self) -> None:
        """First step: check the reason and show the count; second step: confirm."""
        if self.confirming:
            self._finish()
            return
        action = self.chosen()
        if not action.reason:
            self.notify("A reason is required.", severity="warning", markup=False)
            self.query_one("#invalidate-reason", Input).focus()
            return
        if not action.reflections and not action.flag_proposals:
            self.notify("Nothing to change: every target is already done.", markup=False)
            return
        self._stage(True)

    def _stage(self, confirming: bool) -> None:
        self.confirming = confirming
        self.set_class(confirming, "-confirming")
        self.query_one("#invalidate-yes").display = confirming
        self.query_one("#invalidate-review").display = not confirming
        self._summarise()
        if confirming:
            self.query_one("#invalidate-yes", Button).focus()

    def _finish(self) -> None:
        action = self.chosen()
        if action.reason and (action.reflections or action.flag_proposals):
            self.dismiss(action)

    @on(Input.Submitted, "#invalidate-reason")
    def _reason_done(self) -> None:
        self.action_confirm()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "invalidate-review":
            self.action_confirm()
        elif event.button.id == "invalidate-yes":
            self._finish()
        else:
            self.dismiss(None)

    def action_cancel(self) -> None:
        """Back from the confirmation, or close without changing anything."""
        if self.confirming:
            self._stage(False)
        else:
            self.dismiss(None)


def _other(verb: str) -> str:
    return "challenge" if verb == "invalidate" else "invalidate"


def _movable(verb: str) -> tuple[str, ...]:
    return ("live",) if verb == "challenge" else ("live", "challenged", "retired")


def _by_proposal(hits: list[Any]) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {}
    for h in hits:
        out.setdefault(h.proposal_id, []).append(h)
    return out


def _proposal_text(hits: list[Any]) -> Text:
    h = hits[0]
    stances = ", ".join(sorted({f"{x.role}/{x.stance or 'support'}" for x in hits}))
    line = Text(f"{one_line(h.proposal_id, 28)} {one_line(h.kind, 16)} ({stances})  ")
    line.append_text(safe_text(h.summary, multiline=False, limit=60))
    if h.decider:
        line.append(f"  by {one_line(h.decider, 24)}", style="dim")
    return line


LIFECYCLE_BINDINGS = [
    Binding("x", "lifecycle('invalidate')", "Invalidate…", id="lifecycle.invalidate",
            tooltip="Soft-retire with a reason; shows the blast radius"),
    Binding("c", "lifecycle('challenge')", "Challenge…", id="lifecycle.challenge",
            tooltip="Flag for review with a reason (still consulted)"),
    Binding("R", "lifecycle_reinstate", "Reinstate", id="lifecycle.reinstate",
            tooltip="Back to live (un-retires what an invalidation retired)"),
    Binding("U", "lifecycle_undo", "Undo lifecycle", id="lifecycle.undo",
            tooltip="Undo this session's last lifecycle action (the whole batch)"),
]  # fmt: skip
"""Bindings for :class:`LifecycleActions` hosts (remap by id)."""


@dataclass
class LifecycleApplied(Message):
    """A lifecycle batch (or its undo) was committed."""

    result: Any


@dataclass
class LifecycleFailed(Message):
    """A lifecycle action was refused; ``text`` is one line."""

    text: str


class LifecycleActions:
    """Mixin: challenge / invalidate / reinstate / undo for a screen showing reflections.

    The host defines ``lifecycle_targets() -> list[str]`` (the highlighted or marked
    reflections) and may define ``lifecycle_done(result)`` to refresh what it shows
    (called with a :class:`~brainview.services.lifecycle.BatchResult` or an
    :class:`~brainview.services.lifecycle.UndoBatchResult`).  List the mixin first:
    ``class ReflectionScreen(LifecycleActions, Screen)``.
    """

    lifecycle_batches: list[str]

    def action_lifecycle(self, verb: str) -> None:
        """Open the modal for the targets."""
        targets = self.lifecycle_targets()  # type: ignore[attr-defined]
        if not targets:
            self.notify("No reflection selected.", severity="warning", markup=False)  # type: ignore[attr-defined]
            return

        def chosen(action: BlastAction | None) -> None:
            if action is not None:
                self._lifecycle_run(lambda p, who, now: _apply(p, action, who, now))

        self.app.push_screen(InvalidateScreen(targets, verb), chosen)  # type: ignore[attr-defined]

    def action_lifecycle_reinstate(self) -> None:
        """Ask for an optional reason, then reinstate the targets."""
        from brainview.tui.widgets.reason_prompt import ReasonPrompt

        targets = self.lifecycle_targets()  # type: ignore[attr-defined]
        if not targets:
            return

        def done(reason: str | None) -> None:
            if reason is not None:
                self._lifecycle_run(lambda p, who, now: _reinstate(p, targets, reason, who, now))

        title = f"Reinstate {len(targets)} reflection(s)"
        self.app.push_screen(ReasonPrompt(title), done)  # type: ignore[attr-defined]

    def action_lifecycle_undo(self) -> None:
        """Undo this session's most recent lifecycle batch, all of it."""
        batches = getattr(self, "lifecycle_batches", [])
        if not batches:
            self.notify("No lifecycle action to undo in this session.", markup=False)  # type: ignore[attr-defined]
            return
        bid = batches[-1]
        self._lifecycle_run(lambda p, who, now: _undo(p, bid, who, now))

    def _lifecycle_run(self, fn: Callable[[Any, str, Any], Any]) -> None:
        app = self.app  # type: ignore[attr-defined]

        def job() -> None:
            try:
                with app.open_project(write_agent=True) as project:
                    result = fn(project, app.decider, app.now())
            except Exception as err:  # noqa: BLE001 - shown to the user
                self.post_message(LifecycleFailed(one_line(str(err), 200)))  # type: ignore[attr-defined]
                return
            self.post_message(LifecycleApplied(result))  # type: ignore[attr-defined]

        self.run_worker(job, thread=True, exclusive=True, group="lifecycle")  # type: ignore[attr-defined]

    def on_lifecycle_applied(self, message: LifecycleApplied) -> None:
        result = message.result
        batches = self.__dict__.setdefault("lifecycle_batches", [])
        if hasattr(result, "undo_batch_id"):
            if result.batch_id in batches:
                batches.remove(result.batch_id)
            text = f"↶ undone {result.action} of {len(result.reflections)} reflection(s)"
        else:
            batches.append(result.batch_id)
            text = f"{MARK[TARGET[result.verb]]} {len(result.changed)} reflection(s)"
            if result.flagged:
                text += f" · {len(result.flagged)} proposal(s) flagged"
            text += " · U undoes"
        self.notify(text, timeout=3, markup=False)  # type: ignore[attr-defined]
        done = getattr(self, "lifecycle_done", None)
        if done is not None:
            done(result)

    def on_lifecycle_failed(self, message: LifecycleFailed) -> None:
        self.notify(message.text, title="Refused", severity="error", markup=False)  # type: ignore[attr-defined]


def _apply(project: Any, action: BlastAction, who: str, now: Any) -> Any:
    from brainview.services.lifecycle.blast import apply

    return apply(project, action, actor=who, now=now)


def _reinstate(project: Any, ids: list[str], reason: str, who: str, now: Any) -> Any:
    from brainview.services.lifecycle import reinstate

    return reinstate(project, ids, reason=reason, actor=who, now=now)


def _undo(project: Any, batch_id: str, who: str, now: Any) -> Any:
    from brainview.services.lifecycle import undo_batch

    return undo_batch(project, batch_id, actor=who, now=now)
