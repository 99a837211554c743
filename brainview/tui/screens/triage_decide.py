"""Triage decisions: accept / reject / dismiss / edit a policy, optimistic removal, the
decision and undo workers and their results.

A mixin of :class:`~brainview.tui.screens.triage.TriageScreen` (listed before
``Screen``); message handlers use ``on_<message>`` names, which Textual finds on mixins
(``@on`` decorators are only collected from widget classes).
"""

from __future__ import annotations

import time
from typing import Any

from textual import work
from textual.widgets import DataTable

from brainview.core.safe_text import one_line
from brainview.tui.screens.triage_messages import (
    AcceptNeedsConfirm,
    ActionFailed,
    DecisionPersisted,
)
from brainview.tui.widgets.confirm import ConfirmScreen
from brainview.tui.widgets.reason_prompt import ReasonPrompt


class TriageDecisions:
    """Deciding the highlighted (or marked) proposals."""

    # Provided by the screen.
    app: Any
    rows: list[Any]
    marked: set[str]
    detail: Any
    shown_at: float
    session_units: list[list[str]]
    anchor: str | None
    busy: bool
    total: int
    _details: dict[str, Any]

    def action_edit_policy(self) -> None:
        """Edit the highlighted policy proposal's text; saving accepts it with that text."""
        from brainview.tui.widgets.policy_editor import PolicyEditor

        d = self.detail
        if d is None or d.kind != "summarize_community" or d.id != self.current_id:
            return
        pid, seconds = d.id, time.monotonic() - self.shown_at
        policy = str(d.params.get("policy", ""))

        def done(text: str | None) -> None:
            if text is not None:
                self._accept_now([pid], seconds, policy_text=text)

        self.app.push_screen(PolicyEditor(policy, str(d.params.get("text", ""))), done)

    def _targets(self) -> list[str]:
        if self.marked:
            return [r.id for r in self.rows if r.id in self.marked]
        pid = self.current_id
        return [pid] if pid else []

    def action_accept(self) -> None:
        """Accept the highlighted (or marked) proposals; flagged ones ask first."""
        from brainview.services.review.flags import Flagged, reasons

        targets = self._targets()
        stale = [r.id for r in self.rows if r.id in targets and r.stale]
        if stale:
            self.notify(
                f"{len(stale)} stale proposal(s) cannot be accepted; reject or dismiss them.",
                severity="warning",
            )
            return
        if not targets:
            self.action_why("accept")
            return
        seconds = time.monotonic() - self.shown_at
        flagged = [
            Flagged(r.id, why)
            for r in self.rows
            if r.id in targets and (why := reasons(r.suspicion, r.leans))
        ]
        if flagged:
            self._confirm_accept(targets, seconds, flagged)
        else:
            self._accept_now(targets, seconds)

    def _confirm_accept(
        self, targets: list[str], seconds: float, flagged: list[Any], policy_text: str | None = None
    ) -> None:
        """Ask before accepting flagged proposals; escape writes nothing."""
        lines = [f"{f.proposal_id}: {why}" for f in flagged for why in f.reasons]
        n = len(targets)
        title = f"Accept {n} proposal(s)? {len(flagged)} flagged:"
        if n == 1:
            title = "Accept a flagged proposal?"

        def done(ok: bool | None) -> None:
            if ok:
                self._accept_now(targets, seconds, frozenset(targets), policy_text)
            else:
                self.notify("Not accepted: nothing was written.", timeout=3)

        self.app.push_screen(ConfirmScreen(title, lines, verb="accept"), done)

    def _accept_now(
        self,
        targets: list[str],
        seconds: float,
        confirmed: frozenset[str] = frozenset(),
        policy_text: str | None = None,
    ) -> None:
        self._optimistic_remove(targets)
        self.decide(targets, "accept", None, seconds, policy_text, confirmed)

    def on_accept_needs_confirm(self, message: AcceptNeedsConfirm) -> None:
        # Flagged since the queue was read (another process): the rows come back.
        self.reload(message.ids[0])
        self._confirm_accept(message.ids, message.seconds, message.flagged, message.policy_text)

    def action_why(self, what: str) -> None:
        """Say why a verb hidden from the footer was refused (its hidden twin's action)."""
        if what == "undo":
            text = self.undo_refusal()
        elif not self.rows:
            text = "Nothing pending: the queue is empty."
        elif what == "accept":
            row = next((r for r in self.rows if r.id == self.current_id), None)
            reason = (row.stale if row else None) or getattr(self.detail, "stale", None)
            text = f"Not accepted: this proposal is stale ({one_line(reason or '', 120)}); "
            text += "reject or dismiss it."
        else:
            text = self.edit_refusal()
        self.notify(text, title="Refused", severity="warning", timeout=5, markup=False)

    def edit_refusal(self) -> str:
        """Why the policy editor cannot open on the highlighted proposal."""
        d = self.detail
        if self.marked:
            return "The policy editor takes one proposal at a time: clear the marks first."
        if d is None or d.id != self.current_id:
            return "Still reading this proposal; try again in a moment."
        if d.kind != "summarize_community":
            return f"Only a policy proposal's text can be edited; this is {one_line(d.kind, 30)}."
        if d.stale:
            return "This policy proposal is stale: it cannot be accepted; reject or dismiss it."
        return f"This proposal is {one_line(d.status, 20)}: nothing to edit."

    def action_reject(self) -> None:
        """Ask for a reason, then reject the highlighted (or marked) proposals."""
        targets = self._targets()
        if not targets:
            return
        seconds = time.monotonic() - self.shown_at
        title = f"Reject {len(targets)} proposal(s)" if len(targets) > 1 else "Reject proposal"

        def done(reason: str | None) -> None:
            if reason is not None:
                self._optimistic_remove(targets)
                self.decide(targets, "reject", reason or None, seconds)

        self.app.push_screen(ReasonPrompt(title), done)

    def _optimistic_remove(self, ids: list[str]) -> None:
        """Take decided rows off the queue at once; the next proposal slides under the
        cursor while the decision commits.  A refusal reloads the queue (rows return)."""
        gone = set(ids)
        table = self.query_one("#queue", DataTable)
        old = [r.id for r in self.rows]
        cursor = max(0, table.cursor_row)
        after = [pid for pid in old[cursor:] if pid not in gone]
        before = [pid for pid in old[:cursor] if pid not in gone]
        target = after[0] if after else (before[-1] if before else None)
        for pid in ids:
            if pid in old:
                table.remove_row(pid)
            self._details.pop(pid, None)
        self.rows = [r for r in self.rows if r.id not in gone]
        self.total = max(0, self.total - len(gone & set(old)))
        self.marked -= gone
        self._update_title()
        if target is not None:
            table.move_cursor(row=[r.id for r in self.rows].index(target), animate=False)
        self._after_cursor()

    def action_dismiss(self) -> None:
        """Set the highlighted (or marked) proposals aside without a verdict."""
        targets = self._targets()
        if not targets:
            return
        seconds = time.monotonic() - self.shown_at

        def done(reason: str | None) -> None:
            if reason is not None:
                self._optimistic_remove(targets)
                self.decide(targets, "dismiss", reason or None, seconds)

        self.app.push_screen(ReasonPrompt(f"Dismiss {len(targets)} proposal(s)"), done)

    @work(thread=True, exclusive=True, group="triage-decide")
    def decide(
        self,
        ids: list[str],
        verdict: str,
        reason: str | None,
        seconds: float,
        policy_text: str | None = None,
        confirmed: frozenset[str] = frozenset(),
    ) -> None:
        """Persist decisions (thread); posts DecisionPersisted, AcceptNeedsConfirm (an
        accept of a proposal flagged since the queue was read) or ActionFailed."""
        from brainview.services.review import flags

        session = self.app.session  # type: ignore[attr-defined]
        self.busy = True
        results = []
        try:
            if verdict == "accept":
                with session.project() as project:
                    found = flags.flagged_now(project, ids)
                unconfirmed = [f for f in found if f.proposal_id not in confirmed]
                if unconfirmed:
                    self.post_message(AcceptNeedsConfirm(ids, seconds, found, policy_text))
                    return
            # All marked proposals in one transaction: all decided, or none.
            results = session.decide(
                ids,
                verdict,
                reason=reason,
                seconds_on_screen=seconds / max(1, len(ids)),
                policy_text=policy_text,
                # re-checked inside the transaction: flagged since → refused
                confirmed_flags=confirmed if verdict == "accept" else None,
            )
        except Exception as err:  # noqa: BLE001 - shown to the user
            self.post_message(ActionFailed(one_line(str(err), 200), tuple(ids)))
        finally:
            self.busy = False
        if results:
            self.post_message(DecisionPersisted(results, verdict))

    def on_decision_persisted(self, message: DecisionPersisted) -> None:
        ids = {r.proposal_id for r in message.results}
        self.session_units.append([r.decision_id for r in message.results])
        self.marked -= ids
        self.anchor = None
        grades = sum(len(r.grades) for r in message.results)
        mark = {"accept": "✓ accepted", "reject": "✗ rejected"}.get(message.verdict, "⊘ dismissed")
        what = one_line(message.results[0].proposal_id, 40) if len(ids) == 1 else f"{len(ids)}"
        tail = f" · {grades} grade(s) fired"
        lessons = [r.new_reflection_id for r in message.results if r.new_reflection_id]
        if lessons:
            tail += f" · {len(lessons)} new lesson(s)"
        if any(r.apply_state == "agent" for r in message.results):
            tail += " · agent brain changed"
        self.notify(f"{mark} {what}{tail}", timeout=3, markup=False)
        # The rows already left the queue (optimistically); re-read to stay exact.
        self.reload(self.current_id)

    def on_action_failed(self, message: ActionFailed) -> None:
        self.notify(message.text, title="Refused", severity="error", markup=False)
        if len(message.ids) > 1:
            self.marked |= set(message.ids)  # a refused bulk stays marked, as it was
        self.reload(message.ids[0] if message.ids else self.current_id)
