"""Lifecycle states on the communities screen, kept current whoever changes them.

A mixin of :class:`~brainview.tui.screens.communities.CommunitiesScreen` (listed before
``Screen``; handlers use ``on_<message>`` names, which Textual finds on mixins).  The
screen mounts a :class:`~brainview.tui.widgets.lifecycle_watch.LifecycleWatch`; when it
reports that a reflection was challenged, invalidated or reinstated (by this console,
``brainview reflect`` in a shell or another console), only the states of the member
rows and fading rows on screen are read again (:func:`brainview.services.review.flags.states_now`)
and their title cells updated in place: the cursor, the scroll and the clustering stay.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from textual import work
from textual.widgets import DataTable

from brainview.tui.screens.communities_messages import MemberStatesLoaded
from brainview.tui.widgets.community_view import title_cell
from brainview.tui.widgets.lifecycle_watch import LifecycleWatch


class MemberStates:
    """Re-read and re-render the lifecycle state of the reflections on screen."""

    app: Any
    members: list[Any]
    fading: Any

    def on_lifecycle_watch_moved(self, _message: LifecycleWatch.Moved) -> None:
        ids = [m.id for m in self.members]
        ids += [r.id for r in (self.fading.rows if self.fading is not None else [])]
        if ids:
            self.read_states(ids)

    @work(thread=True, exclusive=True, group="communities-states")
    def read_states(self, ids: list[str]) -> None:
        """The lifecycle fingerprint and the states of ``ids``, one read (thread)."""
        from brainview.services.review.flags import states_now

        try:
            with self.app.open_project() as project:  # type: ignore[attr-defined]
                mark, states = states_now(project, ids)
        except Exception:  # noqa: BLE001 - transient (locked); the watch asks again
            return
        self.post_message(MemberStatesLoaded(mark, states))  # type: ignore[attr-defined]

    def on_member_states_loaded(self, message: MemberStatesLoaded) -> None:
        states = message.states
        watch = self.query_one(LifecycleWatch)  # type: ignore[attr-defined]
        self.members = self._restate("#members", self.members, states)
        # Rows loaded after the read began (another community) keep their own mark.
        if all(m.id in states for m in self.members):
            watch.note(message.mark, "members")
        if self.fading is not None:
            rows = self._restate("#fading", self.fading.rows, states)
            self.fading = replace(self.fading, rows=rows)
            if all(r.id in states for r in rows):
                watch.note(message.mark, "fading")

    def _restate(self, selector: str, rows: list[Any], states: dict[str, str]) -> list[Any]:
        """Rows with their new state; only the title cells that changed are redrawn."""
        table = self.query_one(selector, DataTable)  # type: ignore[attr-defined]
        out = []
        for row in rows:
            state = states.get(row.id, row.state)
            if state != row.state:
                row = replace(row, state=state)
                if row.id in table.rows:
                    table.update_cell(row.id, "title", title_cell(row.title, state))
            out.append(row)
        return out
