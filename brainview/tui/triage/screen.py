"""Triage: the queue | the proposal and its change | what each verdict grades | the user
neurons.

The screen composes the widgets, routes their messages and runs the service calls
(:func:`brainview.tui.workers.run_service` through the app's session); the widgets
own what they show.  Decisions take the rows off the queue at once and re-read it when
the decision is committed; a refusal brings them back.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Header

import brainview.tui.triage.texts as texts
from brainview.core.safe_text import one_line
from brainview.core.vocabulary import LEGEND
from brainview.tui.access import brainview_app
from brainview.tui.footer import Footer
from brainview.tui.role_gate import allowed
from brainview.tui.styles_dir import STYLES
from brainview.tui.triage.actions import TriageActions
from brainview.tui.triage.health_watch import HealthWatch
from brainview.tui.triage.jobs import PAGE, QueuePage, Watch
from brainview.tui.triage.keys import BINDINGS
from brainview.tui.triage.panes import EMPTY, AgentPane, ProposalPane, UserPane
from brainview.tui.triage.presence_view import TriagePresence
from brainview.tui.triage.queue_list import QueueList
from brainview.tui.workers import WorkFailed, run_service

if TYPE_CHECKING:
    from brainview.services.review.detail import ProposalDetail
    from brainview.services.review.queue import QueueRow, QueueSignature
    from brainview.services.review.undo_offer import LastUnit


class TriageScreen(Screen[None]):
    """Work through pending proposals; each decision grades the consulted reflections.

    | Key | Action |
    |-----|--------|
    | `a` | Accept (all marked, if any); a flagged proposal asks first |
    | `E` | Edit a policy proposal's text, then accept it |
    | `r` | Reject with an optional reason |
    | `d` | Dismiss a stale proposal: no verdict, no grades |
    | `s` | Skip to the next proposal |
    | `u`, `ctrl+z` | Undo the last decision (a bulk as one unit) |
    | `space` | Mark (or unmark) and move to the next proposal |
    | `v` | Mark everything from the last mark to here |
    | `/` | Filter; `escape` clears the filter and the marks |
    | `z` | Show all consulted lessons full screen (again: back) |
    | `n` | Show the user neurons full screen (again: back) |
    | `l` | Recall the lessons for this proposal's draft |
    | `o` | Cycle sort order |
    | `H` | The held-back lane: drafts the curator withdrew after recall |
    """

    CSS_PATH = [STYLES / "triage.tcss"]
    BINDINGS = BINDINGS
    LEGEND = LEGEND

    POLL_SECONDS = 1.0

    def __init__(self) -> None:
        super().__init__()
        self.shown_at = time.monotonic()
        """When the highlighted proposal appeared (seconds on screen, per decision)."""
        self.session_units: list[list[str]] = []
        """Decision ids of this session, one list per decision unit (a bulk is one)."""
        self.last_decision: LastUnit | None = None
        """The project's last decision unit as of the last queue read."""
        self.lifecycle_seen: int | None = None
        """Lifecycle fingerprint as of the last load: another value means a reflection
        was challenged, invalidated or reinstated (by any process) since."""
        self.signature: QueueSignature | None = None
        """Queue fingerprint as of the last load (``None`` until the first load)."""
        self.details: dict[str, ProposalDetail] = {}
        """Loaded proposal contexts by id (shown at once, refreshed in the background)."""
        self.deciding: set[str] = set()
        """Proposals whose decision runs: a page read before it commits leaves them out
        (they left the queue at the key press and must not come back under the cursor)."""
        self._keep: str | None = None
        self._asked: str | None = None
        """The proposal whose context was last asked for."""
        self._actions = TriageActions(self)
        self._presence = TriagePresence(self)
        self._health = HealthWatch(self)

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="triage-main"):
            yield QueueList()
            with Vertical(id="triage-detail"):
                yield ProposalPane()
                with Horizontal(id="triage-sides"):
                    yield AgentPane()
                    yield UserPane()
        yield Footer()

    # -- the widgets -------------------------------------------------------------

    @property
    def queue(self) -> QueueList:
        """The queue widget."""
        return self.query_one(QueueList)

    @property
    def rows(self) -> list[QueueRow]:
        """The loaded queue rows."""
        return self.queue.rows

    @property
    def total(self) -> int:
        """Proposals matching the filter."""
        return self.queue.total

    @property
    def marked(self) -> frozenset[str]:
        """Proposals marked for a bulk decision."""
        return self.queue.marked

    @property
    def current_id(self) -> str | None:
        """The highlighted proposal's id."""
        return self.queue.current_id

    @property
    def detail(self) -> ProposalDetail | None:
        """The highlighted proposal's context, once loaded."""
        return self.query_one(ProposalPane).detail

    def on_mount(self) -> None:
        app = brainview_app(self)
        self.query_one(AgentPane).annotate_grade = app.config.review.annotate_grade
        self.queue.table.focus()
        self.reload()
        self.set_interval(self.POLL_SECONDS, self.poll)
        self._actions.open()

    def on_screen_resume(self) -> None:
        # Back from another mode: a reflection may have been invalidated there.
        self.poll()
        if self.signature is not None:
            self._presence.selected(self.current_id)

    def on_screen_suspend(self) -> None:
        # Another screen (or a dialog) shows: this one looks at nothing meanwhile.
        if not self.app.screen.is_modal:
            self._presence.selected(None)

    def set_writing(self, paused: bool) -> None:
        """Show (or clear) "reflections paused" in the title."""
        brainview_app(self).writing_paused = paused
        self.queue.writing_paused = paused

    def show_only(self, needle: str) -> None:
        """Filter the queue to ``needle`` (e.g. a consolidation's id), box shown."""
        self.queue.filter_to(needle)

    # -- reading -----------------------------------------------------------------

    def reload(self, keep: str | None = None) -> None:
        """Read the queue again, keeping the cursor on ``keep`` if it is still there.

        A later reload (a poll) must not lose an earlier one's target, so the wanted
        proposal is remembered until a page arrives."""
        from brainview.tui.triage.jobs import read_queue

        if keep is not None:
            self._keep = keep
        elif self._keep is None:
            self._keep = self.current_id
        q = self.queue
        shown = tuple(r.id for r in q.rows)
        job = read_queue(q.sort, q.needle, max(PAGE, len(q.rows)), shown)
        run_service(self, job, group="queue", done=self._show_queue)

    def _show_queue(self, page: QueuePage) -> None:
        q = self.queue
        if page.query != (q.sort, q.needle):
            return  # read for an older sort or filter
        self._presence.decided(page.decided)  # named while their rows are still loaded
        self.signature, self.last_decision = page.signature, page.last
        self.lifecycle_seen = page.lifecycle
        keep, self._keep = self._keep, None
        rows = [r for r in page.rows if r.id not in self.deciding]
        out = len(page.rows) - len(rows)
        self._health.show(page.health)
        q.show_page(rows, page.total - out, page.pending - out, keep)
        self.refresh_bindings()

    def poll(self) -> None:
        """Notice proposals added or decided elsewhere, reflections whose state moved and
        reflection writing paused or resumed (cheap fingerprints)."""
        from brainview.tui.triage.jobs import watch

        app = brainview_app(self)
        if self.signature is None or app.services.busy(self, "decide"):
            return
        shown = tuple(r.id for r in self.rows)
        job = watch(app.presence, self.signature, shown)
        run_service(self, job, group="poll", done=self._watched)

    def _watched(self, seen: Watch) -> None:
        self._presence.decided(seen.decided)  # named while their rows are still loaded
        self._presence.show(seen.claims)
        if seen.paused != self.queue.writing_paused:
            self.set_writing(seen.paused)
        if self.lifecycle_seen is not None and seen.lifecycle != self.lifecycle_seen:
            self.lifecycle_seen = seen.lifecycle
            self.details.clear()  # every cached context may misstate a reflection
            self.reload()
        elif self.signature is not None and seen.signature != self.signature:
            if seen.signature[3:] != self.signature[3:]:  # a two-person vote cast/withdrawn
                self.details.clear()
            if seen.signature[0] > self.signature[0]:
                added = seen.signature[0] - self.signature[0]
                self.notify(f"{added} new proposal(s) arrived", title="Queue")
            self.reload()
        else:
            self._health.tick()  # a proposal turns stale by the clock alone

    @on(QueueList.QueryChanged)
    def _query_changed(self, _message: QueueList.QueryChanged) -> None:
        self.reload(self.current_id)

    @on(QueueList.NeedMore)
    def _need_more(self, message: QueueList.NeedMore) -> None:
        from brainview.tui.triage.jobs import read_more

        q = self.queue
        job = read_more(q.sort, q.needle, message.offset)
        run_service(self, job, group="more", done=lambda got: q.extend(*got))

    @on(QueueList.MarksChanged)
    def _marks_changed(self, _message: QueueList.MarksChanged) -> None:
        self.refresh_bindings()

    @on(QueueList.Selected)
    def _selected(self, message: QueueList.Selected) -> None:
        self.select(message.proposal_id)

    def select(self, pid: str | None) -> None:
        """Show ``pid``'s detail (cached at once, then read again; ``None``: the queue
        is empty).  A decision calls it directly with the row that slid under the
        cursor, so the next proposal is drawn in the same frame as the queue change."""
        self._presence.selected(pid)
        self.shown_at = time.monotonic()
        panes = (self.query_one(ProposalPane), self.query_one(AgentPane), self.query_one(UserPane))
        if pid is None:
            self._asked = None
            brainview_app(self).under_review = None
            for pane in panes:
                pane.placeholder = ""
                pane.detail = None
            panes[0].placeholder = texts.empty_queue(self.queue.needle, self.queue.pending, EMPTY)
            self.refresh_bindings()
            return
        app = brainview_app(self)
        if pid == self._asked and app.services.busy(self, "detail"):
            return  # the same proposal is being read already (a redraw moved the cursor)
        cached = self.details.get(pid)
        if cached is not None:
            self._show_detail(cached)  # at once; refreshed below (grades may have moved)
        elif self.detail is None or self.detail.id != pid:
            for pane in panes:
                pane.placeholder = "loading…"
                pane.detail = None
        from brainview.tui.triage.jobs import read_detail

        self._asked = pid
        run_service(self, read_detail(pid), group="detail", done=self._detail_loaded)

    def _detail_loaded(self, detail: ProposalDetail) -> None:
        self.details[detail.id] = detail
        if detail.id != self.current_id:
            return
        self._show_detail(detail)
        nxt = self.queue.neighbour_id(1)
        if nxt is not None and nxt not in self.details:
            from brainview.tui.triage.jobs import read_detail

            run_service(self, read_detail(nxt), group="prefetch", done=self._prefetched)

    def _prefetched(self, detail: ProposalDetail) -> None:
        self.details[detail.id] = detail

    def _show_detail(self, detail: ProposalDetail) -> None:
        brainview_app(self).under_review = detail
        for pane in (self.query_one(ProposalPane), self.query_one(AgentPane)):
            pane.detail = detail
        self.query_one(UserPane).detail = detail
        self.refresh_bindings()

    @on(WorkFailed)
    def _failed(self, message: WorkFailed) -> None:
        if message.group in ("poll", "prefetch", "more", "health"):
            message.stop()  # transient (a lock); the next tick or the real load says it
            return
        if message.group == "decide":
            self.deciding.difference_update(message.ids)
            if len(message.ids) > 1:  # a refused bulk stays marked, as it was
                self.queue.marked = self.queue.marked | set(message.ids)
            self.reload(message.ids[0] if message.ids else self.current_id)
        # bubbles on: the app says it, in one line

    # -- verbs (see TriageActions) ----------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # False hides a verb that cannot apply here; for accept, edit_policy and undo a
        # hidden twin binding then says why (brainview.tui.bindings); a verb the role
        # cannot use is hidden too (brainview.tui.role_gate).
        if not allowed(self, action, parameters):
            return False
        return self._actions.allowed(action)

    def action_accept(self) -> None:
        """Accept the highlighted (or marked) proposals; flagged ones ask first."""
        self._actions.accept()

    def action_reject(self) -> None:
        """Ask for a reason, then reject the highlighted (or marked) proposals."""
        self._actions.reject()

    def action_dismiss_proposal(self) -> None:
        """Set the highlighted (or marked) proposals aside without a verdict."""
        self._actions.dismiss()

    def action_edit_policy(self) -> None:
        """Edit the highlighted policy proposal's text; saving accepts it with that text."""
        self._actions.edit_policy()

    def action_undo(self) -> None:
        """Undo this session's last decision unit, or offer the project's last one."""
        self._actions.undo()

    def action_why(self, what: str) -> None:
        """Say why a verb hidden from the footer was refused (its hidden twin's action)."""
        self.notify(
            self._actions.refusal(what),
            title="Refused",
            severity="warning",
            timeout=5,
            markup=False,
        )

    def action_skip(self) -> None:
        """Move on without deciding."""
        self.queue.move(1)

    def action_cursor(self, step: int) -> None:
        """Move the queue cursor."""
        self.queue.move(step)

    def action_cursor_first(self) -> None:
        """Jump to the first proposal."""
        self.queue.move_to(0)

    def action_cursor_last(self) -> None:
        """Jump to the last loaded proposal (the next page loads as it nears)."""
        self.queue.move_to(-1)

    def action_mark(self) -> None:
        """Mark (or unmark) the highlighted proposal and move to the next one."""
        self.queue.toggle_mark()

    def action_range_mark(self) -> None:
        """Mark everything between the last mark and the cursor."""
        self.queue.range_mark()

    def action_filter(self) -> None:
        """Show the filter box."""
        self.queue.open_filter()

    def action_sort(self) -> None:
        """Cycle the sort order."""
        self.queue.next_sort()

    def action_clear(self) -> None:
        """Leave the full-screen lessons; else clear the marks and the filter."""
        if self.maximized is not None:
            self.minimize()
            return
        self.queue.clear_marks()
        self.queue.clear_filter()

    def action_zoom_lessons(self) -> None:
        """All consulted lessons full screen (again: back to the queue)."""
        self._zoom(self.query_one(AgentPane))

    def action_zoom_neurons(self) -> None:
        """The user neurons full screen (again: back to the queue)."""
        self._zoom(self.query_one(UserPane))

    def _zoom(self, pane: AgentPane | UserPane) -> None:
        if self.maximized is pane:
            self.minimize()
            self.queue.table.focus()
            return
        self.maximize(pane, container=False)
        pane.focus()

    def action_recall(self) -> None:
        """Open the recall box for the highlighted proposal's draft."""
        d = self.detail
        if d is not None and d.id == self.current_id:
            brainview_app(self).open_recall(d)

    def action_withdraw_approval(self) -> None:
        """Withdraw the vote on the highlighted proposal that waits for a second person."""
        from brainview.tui.triage.approvals_view import withdraw

        withdraw(self)

    def action_held_back(self) -> None:
        """Open the held-back lane (drafts withdrawn or rewritten after recall)."""
        from brainview.tui.triage.held_back import HeldBackScreen

        self.app.push_screen(HeldBackScreen(), lambda _done: self.reload())

    def action_copy_id(self) -> None:
        """Copy the highlighted proposal's id (OSC 52; tmux needs ``set-clipboard on``)."""
        pid = self.current_id
        if pid:
            self.app.copy_to_clipboard(pid)
            self.notify(f"copied {one_line(pid, 40)}", timeout=2, markup=False)

    def action_copy_json(self) -> None:
        """Copy the highlighted proposal as JSON (control characters stay escaped)."""
        d = self.detail
        if d is not None and d.id == self.current_id:
            self.app.copy_to_clipboard(texts.proposal_json(d))
            self.notify("copied proposal JSON", timeout=2)

    def action_export(self) -> None:
        """Export the loaded queue rows (as filtered and sorted) to CSV or JSON."""
        self._actions.export()
