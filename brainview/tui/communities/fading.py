"""The fading list's decisions: rescue (keep) or let go the highlighted reflection,
and withdraw this session's last one.  A mixin of
:class:`~brainview.tui.screens.communities.CommunitiesScreen` (listed before
``Screen``); the result handler uses an ``on_<message>`` name, which Textual finds on
mixins.
"""

from __future__ import annotations

from typing import Any

from textual import work
from textual.widgets import DataTable

from brainview.core.safe_text import one_line
from brainview.tui.screens.communities_messages import CommunitiesFailed, FadingDecided


class FadingActions:
    """``K`` rescue, ``L`` let go, ``u`` withdraw."""

    app: Any
    fading: Any
    session_decisions: list[tuple[int, str]]
    threshold: float

    def action_decide(self, action: str) -> None:
        """Rescue or let go the highlighted fading reflection."""
        table = self.query_one("#fading", DataTable)
        if self.fading and 0 <= table.cursor_row < len(self.fading.rows):
            self.decide_fading(self.fading.rows[table.cursor_row].id, action)

    @work(thread=True, exclusive=True, group="communities-decide")
    def decide_fading(self, reflection_id: str, action: str) -> None:
        """Record the decision in its own write transaction (thread)."""
        from brainview.services.communities.curves import decide_fading

        try:
            with self.app.open_project(write_agent=True) as project:  # type: ignore[attr-defined]
                did = decide_fading(
                    project,
                    reflection_id,
                    action,
                    decider=self.app.decider,  # type: ignore[attr-defined]
                    now=self.app.now(),  # type: ignore[attr-defined]
                    threshold=self.threshold,
                )
        except Exception as err:  # noqa: BLE001
            self.post_message(CommunitiesFailed("decision", one_line(str(err), 200)))
            return
        self.post_message(FadingDecided(reflection_id, action, did))

    def action_undo(self) -> None:
        """Withdraw this session's most recent rescue / let-go."""
        if self.session_decisions:
            self.undo_fading(*self.session_decisions[-1])

    @work(thread=True, exclusive=True, group="communities-decide")
    def undo_fading(self, decision_id: int, reflection_id: str) -> None:
        """Mark the decision undone (thread)."""
        from brainview.services.communities.curves import undo_fading_decision

        try:
            with self.app.open_project(write_agent=True) as project:  # type: ignore[attr-defined]
                undo_fading_decision(
                    project,
                    decision_id,
                    actor=self.app.decider,  # type: ignore[attr-defined]
                    now=self.app.now(),  # type: ignore[attr-defined]
                )
        except Exception as err:  # noqa: BLE001
            self.post_message(CommunitiesFailed("undo", one_line(str(err), 200)))
            return
        self.post_message(FadingDecided(reflection_id, "undo", None))

    def on_fading_decided(self, message: FadingDecided) -> None:
        if message.decision_id is None:
            self.session_decisions.pop()
            self.notify("↶ decision withdrawn", timeout=2)
        else:
            self.session_decisions.append((message.decision_id, message.reflection_id))
            mark = "⛨ kept: no pruning" if message.action == "rescue" else "↓ let go"
            self.notify(mark, timeout=2)
            self.query_one("#fading", DataTable).action_cursor_down()
        self.load_fading()
