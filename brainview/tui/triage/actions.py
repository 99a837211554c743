"""The decision flows of triage: accept (asking first when flagged), reject, dismiss,
edit a policy then accept it, undo, export — and whether each applies now.

:class:`TriageActions` is a collaborator of the screen (it holds the typed screen, it
is not mixed into it): each flow asks what it needs through modals, takes the rows off
the queue at once and runs the service call through the app's session.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import brainview.tui.triage.applies as applies
import brainview.tui.triage.jobs as jobs
import brainview.tui.triage.texts as texts
from brainview.tui.access import session_of
from brainview.tui.widgets.confirm import ConfirmScreen
from brainview.tui.widgets.reason_prompt import ReasonPrompt
from brainview.tui.workers import run_service

if TYPE_CHECKING:
    from brainview.services.review.flags import Flagged
    from brainview.services.session import Verdict
    from brainview.tui.triage.screen import TriageScreen


class TriageActions:
    """What the review verbs do on one triage screen."""

    def __init__(self, screen: TriageScreen) -> None:
        self.screen = screen

    # -- opening -----------------------------------------------------------------

    def open(self) -> None:
        """Finish interrupted changes; read the apply mode and the writing switch."""
        run_service(self.screen, jobs.recover, group="recover", done=self._opened)

    def _opened(self, opening: jobs.Opening) -> None:
        self.screen.queue.mode = opening.mode
        self.screen.set_writing(opening.paused)
        if opening.recovered:
            self.screen.notify(
                f"finished {opening.recovered} interrupted change(s) from the last session"
            )

    # -- what applies ------------------------------------------------------------

    def allowed(self, action: str) -> bool:
        """Whether ``action`` applies now (``False`` hides it from the footer)."""
        return applies.allowed(self.screen, action)

    def refusal(self, what: str) -> str:
        """Why a verb hidden from the footer does nothing here."""
        return applies.refusal(self.screen, what)

    # -- deciding ------------------------------------------------------------------

    def _seconds(self) -> float:
        return time.monotonic() - self.screen.shown_at

    def accept(self) -> None:
        """Accept the highlighted (or marked) proposals; flagged ones ask first."""
        from brainview.services.review.flags import Flagged, reasons

        s = self.screen
        targets = s.queue.targets()
        stale = [r.id for r in s.rows if r.id in targets and r.stale]
        if stale:
            s.notify(
                f"{len(stale)} stale proposal(s) cannot be accepted; reject or dismiss them.",
                severity="warning",
            )
            return
        if not targets:
            s.action_why("accept")
            return
        flagged = [
            Flagged(r.id, why)
            for r in s.rows
            if r.id in targets and (why := reasons(r.suspicion, r.leans))
        ]
        if flagged:
            self._confirm(targets, self._seconds(), flagged)
        else:
            self._decide(targets, "accept", None, self._seconds())

    def _confirm(
        self,
        targets: list[str],
        seconds: float,
        flagged: list[Flagged],
        policy_text: str | None = None,
    ) -> None:
        """Ask before accepting flagged proposals (the lessons they lean on read by
        title first); escape writes nothing."""
        leans = sorted({rid for r in self.screen.rows if r.id in targets for rid, _s in r.leans})

        def named(titles: dict[str, str]) -> None:
            self._ask(targets, seconds, flagged, policy_text, titles)

        run_service(self.screen, jobs.lesson_titles(leans), group="titles", done=named)

    def _ask(
        self,
        targets: list[str],
        seconds: float,
        flagged: list[Flagged],
        policy_text: str | None,
        titles: dict[str, str],
    ) -> None:
        lines = texts.flagged_lines(self.screen, flagged, titles)
        title = f"Accept {len(targets)} proposal(s)? {len(flagged)} flagged:"
        if len(targets) == 1:
            title = "Accept a flagged proposal?"

        def done(ok: bool | None) -> None:
            if ok:
                self._decide(targets, "accept", None, seconds, policy_text, frozenset(targets))
            else:
                self.screen.notify("Not accepted: nothing was written.", timeout=6)

        self.screen.app.push_screen(ConfirmScreen(title, lines, verb="accept"), done)

    def reject(self) -> None:
        """Ask for a reason, then reject the highlighted (or marked) proposals."""
        targets = self.screen.queue.targets()
        if targets:
            title = f"Reject {len(targets)} proposal(s)" if len(targets) > 1 else "Reject proposal"
            self._with_reason(title, targets, "reject")

    def dismiss(self) -> None:
        """Set the highlighted (or marked) proposals aside without a verdict."""
        targets = self.screen.queue.targets()
        if targets:
            self._with_reason(f"Dismiss {len(targets)} proposal(s)", targets, "dismiss")

    def _with_reason(self, title: str, targets: list[str], verdict: Verdict) -> None:
        seconds = self._seconds()

        def done(reason: str | None) -> None:
            if reason is not None:
                self._decide(targets, verdict, reason or None, seconds)

        self.screen.app.push_screen(ReasonPrompt(title), done)

    def edit_policy(self) -> None:
        """Edit the highlighted policy's text (references shown as titles); saving
        accepts it with that text."""
        s = self.screen
        d = s.detail
        if d is None or d.kind != "summarize_community" or d.id != s.current_id:
            return
        pid, seconds = d.id, self._seconds()
        policy, draft = str(d.params.get("policy", "")), str(d.params.get("text", ""))

        def edit(titles: dict[str, str]) -> None:
            from brainview.tui.widgets.policy_editor import PolicyEditor

            def done(text: str | None) -> None:
                if text is not None:
                    self._decide([pid], "accept", None, seconds, policy_text=text)

            s.app.push_screen(PolicyEditor(policy, draft, titles), done)

        run_service(s, jobs.ref_titles(draft), group="titles", done=edit)

    def _decide(
        self,
        ids: list[str],
        verdict: Verdict,
        reason: str | None,
        seconds: float,
        policy_text: str | None = None,
        confirmed: frozenset[str] = frozenset(),
    ) -> None:
        """Take the rows off the queue at once, then decide them (all or none)."""
        s = self.screen
        nxt = s.queue.remove_rows(ids)
        s.deciding.update(ids)
        for pid in ids:
            s.details.pop(pid, None)
        s.select(nxt)  # the next proposal, in the same frame as the removal
        job = jobs.decide(
            ids,
            verdict,
            reason=reason,
            seconds=seconds,
            policy_text=policy_text,
            confirmed=confirmed,
        )

        def done(result: jobs.Decided) -> None:
            s.deciding.difference_update(ids)
            if result.unconfirmed:  # flagged since the queue was read: the rows come back
                s.reload(ids[0])
                self._confirm(ids, seconds, result.unconfirmed, policy_text)
                return
            self._decided(result)

        run_service(s, job, group="decide", done=done, exclusive=False, ids=tuple(ids))

    def _decided(self, result: jobs.Decided) -> None:
        s = self.screen
        if not result.results:
            s.reload(s.current_id)
            return
        from brainview.tui.triage.approvals_view import held_note

        held = held_note(result.results)  # votes under the two-person rule: nothing to undo
        decided = [r for r in result.results if r.apply_state != "held"]
        if decided:
            s.session_units.append([r.decision_id for r in decided])
        s.queue.mark_anchor = None
        said = [texts.decided(result.verdict, decided)] if decided else []
        s.notify(" · ".join([*said, *([held] if held else [])]), timeout=6, markup=False)
        s.reload(s.current_id)  # the rows already left the queue; re-read to stay exact

    # -- undo ----------------------------------------------------------------------

    def undo(self) -> None:
        """Undo this session's last decision unit, or offer the project's last one."""
        s = self.screen
        if s.session_units:
            self._undo(s.session_units[-1][0], from_session=True)
            return
        last = s.last_decision
        if last is None:
            s.action_why("undo")
            return
        session = session_of(s)
        if last.decider != session.decider and not session.can("undo_other"):
            from brainview.core.roles import refusal

            s.notify(
                refusal("undo_other", session.decider, session.role) or "",
                title="Refused",
                severity="warning",
                timeout=5,
                markup=False,
            )
            return

        def done(ok: bool | None) -> None:
            if ok:
                self._undo(last.decision_id, from_session=False)
            else:
                s.notify("Nothing undone.", timeout=6)

        title = "This session decided nothing. Undo the project's last decision?"
        s.app.push_screen(ConfirmScreen(title, last.lines(), verb="undo"), done)

    def _undo(self, decision_id: str, *, from_session: bool) -> None:
        s = self.screen

        def done(pending_again: list[str]) -> None:
            if from_session and s.session_units:
                s.session_units.pop()
            s.notify(texts.undone(pending_again), timeout=6, markup=False)
            s.reload(pending_again[-1] if pending_again else None)

        run_service(s, jobs.undo(decision_id), group="decide", done=done, exclusive=False)

    def export(self) -> None:
        """Export the queue view (:func:`brainview.tui.triage.export_view.export`)."""
        from brainview.tui.triage.export_view import export

        export(self.screen)
