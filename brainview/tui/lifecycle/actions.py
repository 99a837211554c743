"""Challenge, quarantine, invalidate, reinstate and undo, for any screen that shows
reflections.

:class:`LifecycleActions` is an invisible widget a screen composes once.  It owns the
session's lifecycle batches (what ``U`` undoes), opens the invalidate dialog or the
reason prompt, runs the change through the session and posts
:class:`LifecycleActions.Applied`; a refusal comes back as the one
:class:`~brainview.tui.workers.WorkFailed` path (the app says it in one line).

The screen adds :data:`LIFECYCLE_BINDINGS` to its ``BINDINGS`` and answers the four
actions by naming its targets::

    def action_lifecycle(self, verb: str) -> None:
        self.query_one(LifecycleActions).open(verb, self.lifecycle_targets())
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.binding import Binding
from textual.message import Message
from textual.reactive import var
from textual.widget import Widget

from brainview.core.vocabulary import GLYPH
from brainview.services.lifecycle import MARK, TARGET, BatchResult, UndoBatchResult
from brainview.tui.workers import run_service

if TYPE_CHECKING:
    from brainview.services.lifecycle.blast import BlastAction
    from brainview.services.session import Session

LIFECYCLE_BINDINGS = [
    Binding("x", "lifecycle('invalidate')", "Invalidate…", id="lifecycle.invalidate",
            tooltip="Soft-retire with a reason; shows the blast radius"),
    Binding("c", "lifecycle('challenge')", "Challenge…", id="lifecycle.challenge",
            tooltip="Flag for review with a reason (still consulted)"),
    Binding("Q", "lifecycle('quarantine')", "Quarantine…", id="lifecycle.quarantine",
            tooltip="Never recalled again, every row kept; blast radius and replay"),
    Binding("R", "lifecycle_reinstate", "Reinstate", id="lifecycle.reinstate",
            tooltip="Back to live (lifts a quarantine; un-retires what invalidation retired)"),
    Binding("U", "lifecycle_undo", "Undo lifecycle", id="lifecycle.undo",
            tooltip="Undo this session's last lifecycle action (the whole batch)"),
]  # fmt: skip
"""Bindings of a screen that composes :class:`LifecycleActions` (remap by id)."""

Result = BatchResult | UndoBatchResult


class LifecycleActions(Widget):
    """Runs lifecycle changes for its screen and remembers this session's batches."""

    DEFAULT_CSS = """
    LifecycleActions { display: none; }
    """

    batches: var[tuple[str, ...]] = var(())
    """This session's lifecycle batches, oldest first (``U`` undoes the last)."""

    @dataclass
    class Applied(Message):
        """A lifecycle batch (or its undo) was committed."""

        actions: LifecycleActions
        result: BatchResult | UndoBatchResult

        @property
        def control(self) -> LifecycleActions:
            """The widget that ran it."""
            return self.actions

    def open(self, verb: str, targets: list[str]) -> None:
        """Open the invalidate / challenge / quarantine dialog for ``targets``; apply what
        it returns."""
        from brainview.tui.lifecycle.modal import InvalidateScreen

        if not targets:
            self.notify("No reflection selected.", severity="warning", markup=False)
            return

        def chosen(action: BlastAction | None) -> None:
            if action is not None:
                self._run(lambda s: _apply(s, action))

        self.app.push_screen(InvalidateScreen(targets, verb), chosen)

    def reinstate(self, targets: list[str]) -> None:
        """Ask for an optional reason, then reinstate ``targets``."""
        from brainview.tui.widgets.reason_prompt import ReasonPrompt

        if not targets:
            return

        def done(reason: str | None) -> None:
            if reason is not None:
                self._run(lambda s: _reinstate(s, targets, reason))

        self.app.push_screen(ReasonPrompt(f"Reinstate {len(targets)} reflection(s)"), done)

    def undo(self) -> None:
        """Undo this session's most recent lifecycle batch, all of it."""
        if not self.batches:
            self.notify("No lifecycle action to undo in this session.", markup=False)
            return
        batch_id = self.batches[-1]
        self._run(lambda s: _undo(s, batch_id))

    def _run(self, change: Callable[[Session], Result]) -> None:
        run_service(self, change, group="lifecycle", done=self._applied)

    def _applied(self, result: Result) -> None:
        if isinstance(result, UndoBatchResult):
            self.batches = tuple(b for b in self.batches if b != result.batch_id)
            text = f"↶ undone {result.action} of {len(result.reflections)} reflection(s)"
        elif result.held_vote is not None:  # two-person rule: a vote, not a batch
            text = (
                f"{GLYPH['one of two approvals']} your approval to {result.verb} "
                f"{len(result.unchanged)} reflection(s) is recorded, nothing changed — a "
                "second, different person applies it (proposals withdraw "
                f"{result.held_vote} takes it back)"
            )
        else:
            self.batches = (*self.batches, result.batch_id)
            text = f"{MARK[TARGET[result.verb]]} {len(result.changed)} reflection(s)"
            if result.flagged:
                text += f" · {len(result.flagged)} proposal(s) flagged"
            text += " · U undoes"
        held = result.held_vote is not None if isinstance(result, BatchResult) else False
        self.notify(text, timeout=8 if held else 3, markup=False)
        self.post_message(self.Applied(self, result))


def _apply(session: Session, action: BlastAction) -> BatchResult:
    return session.blast(action)


def _reinstate(session: Session, ids: list[str], reason: str) -> BatchResult:
    return session.lifecycle("reinstate", ids, reason)


def _undo(session: Session, batch_id: str) -> UndoBatchResult:
    return session.undo_lifecycle(batch_id)
