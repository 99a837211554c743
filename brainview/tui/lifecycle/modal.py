"""Invalidate, challenge or quarantine reflections: reason, blast radius with marks,
what replay says they changed, confirm with count.

:class:`InvalidateScreen` is a modal; it reads the blast radius through the session
(:func:`brainview.services.lifecycle.radius_view.radius_view`) and dismisses with a
:class:`~brainview.services.lifecycle.blast.BlastAction` (or ``None``).  Nothing is
written until the second step ("Yes, invalidate N") is chosen.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.reactive import var
from textual.screen import ModalScreen
from textual.widgets import Button, Input, SelectionList, Static

from brainview.core.safe_text import first_line, one_line
from brainview.services.lifecycle import Status
from brainview.services.lifecycle.blast import BlastAction, BlastRadius
from brainview.tui.lifecycle.radius import (
    MarkList,
    movable,
    named,
    radius_options,
    radius_summary,
)
from brainview.tui.lifecycle.replay_view import ReplayLine
from brainview.tui.widgets.suspicion import state_mark
from brainview.tui.workers import WorkFailed, run_service

if TYPE_CHECKING:
    from brainview.services.lifecycle.radius_view import RadiusView
    from brainview.services.session import Session

VERBS = ("invalidate", "challenge", "quarantine")
EFFECT = {
    "invalidate": "soft-retires them: never consulted again, history kept, reversible",
    "challenge": "flags them: still consulted, shown with a warning",
    "quarantine": "never recalled again, nothing else changed: every row kept, reversible",
}


class DialogTitle(Static):
    """``Invalidate reflection (ctrl+t: challenge)``."""


class TargetLines(Static):
    """The targets: id, state, first line (references named)."""


class RadiusLine(Static):
    """How big the blast radius is (or why it could not be read)."""


class Summary(Static):
    """What confirming now would do, with the count."""


class InvalidateScreen(ModalScreen[BlastAction | None]):
    """Reason, blast radius (marks), then a confirmation showing the count.

    | Key | Action |
    |-----|--------|
    | `ctrl+s` | Review the count / confirm |
    | `ctrl+t` | Switch invalidate → challenge → quarantine |
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
    #invalidate-replay { height: auto; max-height: 3; color: $text-muted; }
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
            "ctrl+t", "toggle_verb", "Verb", id="invalidate.verb", tooltip="Next lifecycle verb"
        ),
    ]

    verb: var[str] = var("invalidate")
    """``invalidate``, ``challenge`` or ``quarantine``."""
    confirming: var[bool] = var(False)
    """Whether the second step (the count, then "Yes") is showing."""
    view: var[RadiusView | None] = var(None, always_update=True)
    """The blast radius, the targets and the user titles, once read."""

    def __init__(self, targets: Sequence[str], verb: str = "invalidate") -> None:
        super().__init__()
        self.targets = list(dict.fromkeys(targets))
        self.set_reactive(InvalidateScreen.verb, verb if verb in VERBS else "invalidate")

    @property
    def radius(self) -> BlastRadius | None:
        """The blast radius (``None`` until read)."""
        return self.view.radius if self.view is not None else None

    @property
    def statuses(self) -> dict[str, tuple[Status, str]]:
        """``{id: (status, content)}`` of the targets (empty until read)."""
        return self.view.targets if self.view is not None else {}

    def compose(self) -> ComposeResult:
        with Vertical(id="invalidate-box"):
            yield DialogTitle("", id="invalidate-title")
            yield TargetLines(Text("reading…", style="dim italic"), id="invalidate-targets")
            yield Input(placeholder="reason (required)", id="invalidate-reason")
            yield RadiusLine(
                Text("blast radius: reading…", style="dim italic"), id="invalidate-radius"
            )
            yield ReplayLine(Text("replay: reading…", style="dim italic"), id="invalidate-replay")
            yield MarkList(id="invalidate-marks")
            yield Summary("", id="invalidate-summary")
            with Horizontal(id="invalidate-buttons"):
                yield Button("Review…", id="invalidate-review", variant="primary")
                yield Button("Yes", id="invalidate-yes", variant="error")
                yield Button("Cancel", id="invalidate-cancel")

    def on_mount(self) -> None:
        self.query_one("#invalidate-yes").display = False
        self._retitle()
        self.query_one(Input).focus()
        targets = list(self.targets)

        def read(session: Session) -> RadiusView:
            from brainview.services.lifecycle.radius_view import radius_view

            with session.project() as project:
                return radius_view(project, targets)

        run_service(self, read, group="invalidate-radius", done=self._loaded)
        self.query_one(ReplayLine).load(targets)

    def _loaded(self, view: RadiusView) -> None:
        self.view = view
        titles = view.user_titles
        lines = Text()
        for rid in self.targets[:5]:
            status, content = view.targets.get(rid, (Status(rid, "missing"), ""))
            lines.append(f"{one_line(rid, 24)}  ", style="bold")
            lines.append_text(state_mark(status.state))
            lines.append(f" {first_line(named(content, titles), 70)}\n")
        if len(self.targets) > 5:
            lines.append(f"… and {len(self.targets) - 5} more", style="dim")
        self.query_one(TargetLines).update(lines)
        self._fill()
        self._summarise()

    @on(WorkFailed)
    def _failed(self, message: WorkFailed) -> None:
        message.stop()  # said here, in the dialog
        self.query_one(RadiusLine).update(
            Text.assemble(("could not read the blast radius: ", "bold"), message.text)
        )

    def _fill(self) -> None:
        if self.view is None:
            return
        marks = self.query_one(MarkList)
        marks.clear_options()
        marks.add_options(radius_options(self.view.radius, self.verb, self.view.user_titles))
        self.query_one(RadiusLine).update(radius_summary(self.view.radius))

    # -- the choice ------------------------------------------------------------------

    def chosen(self) -> BlastAction:
        """What confirming now would do."""
        values = self.query_one(MarkList).selected
        neighbours = [v[2:] for v in values if v.startswith("n:")]
        states = self.statuses
        eligible = [
            r for r in self.targets if r not in states or states[r][0].state in movable(self.verb)
        ]
        return BlastAction(
            self.verb,
            tuple(dict.fromkeys(eligible + neighbours)),
            tuple(v[2:] for v in values if v.startswith("p:")),
            self.query_one(Input).value.strip(),
        )

    def _retitle(self) -> None:
        noun = f"{len(self.targets)} reflection(s)" if len(self.targets) > 1 else "reflection"
        self.query_one(DialogTitle).update(
            Text(f"{self.verb.capitalize()} {noun}  (ctrl+t: {_other(self.verb)})", style="bold")
        )

    def _summarise(self) -> None:
        action = self.chosen()
        effect = EFFECT[self.verb]
        self.query_one(Summary).update(
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
        """Switch to the next verb (invalidate → challenge → quarantine)."""
        self.verb = _other(self.verb)
        self._retitle()
        self._fill()
        self._stage(False)

    def action_confirm(self) -> None:
        """First step: check the reason and show the count; second step: confirm."""
        if self.confirming:
            self._finish()
            return
        action = self.chosen()
        if not action.reason:
            self.notify("A reason is required.", severity="warning", markup=False)
            self.query_one(Input).focus()
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
    return VERBS[(VERBS.index(verb) + 1) % len(VERBS)] if verb in VERBS else VERBS[0]
