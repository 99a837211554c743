"""Triage undo: ``u`` reverts this session's last decision unit — one decision, or
every decision of a bulk — and, when the session has none left, offers the project's
last decision (what ``brainview proposals undo --last`` reverts) after a confirmation.

A mixin of :class:`~brainview.tui.screens.triage.TriageScreen` (listed before
``Screen``); handlers use ``on_<message>`` names, which Textual finds on mixins.
"""

from __future__ import annotations

from typing import Any

from textual import work

from brainview.core.safe_text import one_line
from brainview.tui.screens.triage_messages import ActionFailed, UndoPersisted
from brainview.tui.widgets.confirm import ConfirmScreen


class TriageUndo:
    """Undoing decisions, a bulk as one unit."""

    # Provided by the screen.
    app: Any
    session_units: list[list[str]]
    """Decision ids of this session, one list per decision unit (a bulk is one unit)."""
    last_decision: Any
    """The project's last decision unit as of the last queue read (``LastUnit``)."""

    def action_undo(self) -> None:
        """Undo this session's last decision unit, or offer the project's last one."""
        if self.session_units:
            self.undo(self.session_units[-1][0])
            return
        last = self.last_decision
        if last is None:
            self.action_why("undo")
            return

        def done(ok: bool | None) -> None:
            if ok:
                self.undo(last.decision_id, from_session=False)
            else:
                self.notify("Nothing undone.", timeout=3)

        title = "This session decided nothing. Undo the project's last decision?"
        self.app.push_screen(ConfirmScreen(title, last.lines(), verb="undo"), done)

    def undo_refusal(self) -> str:
        """Why ``u`` has nothing to do here."""
        return "Nothing to undo: no decision of this project is left to undo."

    @work(thread=True, exclusive=True, group="triage-decide")
    def undo(self, decision_id: str, from_session: bool = True) -> None:
        """Revert a decision and the rest of its bulk, as one unit (thread)."""
        try:
            results = self.app.session.undo(decision_id)  # type: ignore[attr-defined]
        except Exception as err:  # noqa: BLE001 - shown to the user
            self.post_message(ActionFailed(one_line(str(err), 200)))
            return
        self.post_message(UndoPersisted([r.proposal_id for r in results], from_session))

    def on_undo_persisted(self, message: UndoPersisted) -> None:
        if message.from_session and self.session_units:
            self.session_units.pop()
        ids = message.proposal_ids
        what = (
            f"{one_line(ids[0], 40)} is pending again"
            if len(ids) == 1
            else f"the bulk decision of {len(ids)} proposals; all are pending again"
        )
        self.notify(f"↶ undone: {what}", timeout=3, markup=False)
        self.reload(ids[-1])
