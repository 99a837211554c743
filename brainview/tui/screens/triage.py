"""Triage: the queue | the proposal and its preview | user neurons | consulted reflections.

Decisions run in a thread worker against the services layer; the screen only
moves the cursor and redraws what changed when the result message arrives.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Header, Input, Static

from brainview.core.safe_text import one_line
from brainview.tui.bindings import explained
from brainview.tui.footer import Footer
from brainview.tui.screens.triage_decide import TriageDecisions
from brainview.tui.screens.triage_extras import TriageExtras
from brainview.tui.screens.triage_marks import TriageMarks
from brainview.tui.screens.triage_messages import (
    ActionFailed,
    DetailLoaded,
    QueueExtended,
    QueueLoaded,
)
from brainview.tui.screens.triage_undo import TriageUndo
from brainview.tui.widgets.proposal_view import (
    queue_cells,
    render_agent_side,
    render_header,
    render_user_side,
)

if TYPE_CHECKING:
    from brainview.services.review.detail import ProposalDetail
    from brainview.services.review.queue import QueueRow
    from brainview.services.review.undo_offer import LastUnit

SORTS = ("age", "newest", "kind", "consulted")
PAGE = 200


class QueuePane(Vertical):
    """The queue's pane: refits the queue's columns whenever its own width changes (a
    breakpoint switch, a resize, a mode switch while a modal was up)."""

    def on_resize(self, event: events.Resize) -> None:
        fit = getattr(self.screen, "_columns_for", None)
        if fit is not None and event.size.width:
            self.call_after_refresh(fit, event.size.width)


class TriageScreen(TriageDecisions, TriageUndo, TriageMarks, TriageExtras, Screen[None]):
    """Work through pending proposals; each decision grades the consulted reflections.

    | Key | Action |
    |-----|--------|
    | `a` | Accept (all marked, if any); a flagged proposal asks first |
    | `E` | Edit a policy proposal's text, then accept it |
    | `r` | Reject with an optional reason |
    | `s` | Skip to the next proposal |
    | `u`, `ctrl+z` | Undo the last decision (a bulk as one unit) |
    | `space` / `v` | Mark / range-mark |
    | `/` | Filter |
    | `l` | Recall the lessons for this proposal's draft |
    | `o` | Cycle sort order |
    """

    BINDINGS = [
        *explained(
            Binding("a", "accept", "Accept", id="triage.accept", tooltip="Accept; grades strong"),
            "why('accept')",
        ),
        Binding("r", "reject", "Reject", id="triage.reject", tooltip="Reject with a reason"),
        Binding(
            "d",
            "dismiss",
            "Dismiss",
            id="triage.dismiss",
            tooltip="Set a stale proposal aside: no verdict, no grades",
        ),
        *explained(
            Binding(
                "E",
                "edit_policy",
                "Edit policy",
                id="triage.edit_policy",
                tooltip="Edit a policy proposal's text, then accept it",
            ),
            "why('edit_policy')",
        ),
        Binding("s", "skip", "Skip", id="triage.skip", tooltip="Next proposal, no decision"),
        *explained(
            Binding(
                "u,ctrl+z",
                "undo",
                "Undo",
                id="triage.undo",
                tooltip="Undo the last decision (a bulk decision as one unit)",
            ),
            "why('undo')",
        ),
        Binding("space", "mark", "Mark", id="triage.mark", tooltip="Mark for a bulk decision"),
        Binding("v", "range_mark", "Range", id="triage.range", tooltip="Mark up to here"),
        Binding("slash", "filter", "Filter", id="triage.filter", tooltip="Filter the queue"),
        Binding(
            "l",
            "recall",
            "Recall",
            id="triage.recall",
            tooltip="Recall for this proposal: the lessons ranked for its draft (not logged)",
        ),
        Binding("o", "sort", "Sort", id="triage.sort", tooltip="Cycle the sort order"),
        Binding("j", "cursor(1)", "Down", id="triage.down", show=False),
        Binding("k", "cursor(-1)", "Up", id="triage.up", show=False),
        Binding(
            "c",
            "copy_id",
            "Copy id",
            id="triage.copy_id",
            tooltip="Copy the proposal id",
            show=False,
        ),
        Binding(
            "C",
            "copy_json",
            "Copy JSON",
            id="triage.copy_json",
            tooltip="Copy the proposal as JSON",
            show=False,
        ),
        Binding(
            "e", "export", "Export", id="triage.export", tooltip="Export the queue view", show=False
        ),
        Binding("G", "cursor_last", "Last", id="triage.last", show=False),
        Binding("g", "cursor_first", "First", id="triage.first", show=False),
        Binding("escape", "clear", "Clear", id="triage.clear", show=False),
    ]

    POLL_SECONDS = 1.0

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[QueueRow] = []
        self.total = 0
        self.marked: set[str] = set()
        self.anchor: str | None = None
        self.sort = "age"
        self.needle = ""
        self.detail: ProposalDetail | None = None
        self.shown_at = time.monotonic()
        self.session_units: list[list[str]] = []
        self.last_decision: LastUnit | None = None
        self.lifecycle_seen: int | None = None
        """Lifecycle fingerprint as of the last load: another value means a reflection
        was challenged, invalidated or reinstated (by any process) since."""
        self.signature: tuple[int, int, int] | None = None
        """Queue fingerprint as of the last load (``None`` until the first load)."""
        self.busy = False
        self.mode = ""
        """Apply mode shown in the title: ``apply`` or ``record-only``."""
        self.writing_paused = False
        """The project paused reflection writing (shown in the title)."""
        self._keep: str | None = None
        self._details: dict[str, ProposalDetail] = {}
        """Loaded proposal contexts by id (shown at once, refreshed in the background)."""

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="triage-body"):
            with QueuePane(id="queue-pane"):
                yield Static("", id="queue-title")
                yield Input(placeholder="filter: kind, id, words…", id="filter")
                yield DataTable(id="queue", cursor_type="row", zebra_stripes=True)
            with Vertical(id="detail-pane"):
                with VerticalScroll(id="proposal-scroll"):
                    yield Static("", id="proposal")
                with Horizontal(id="sides"):
                    with VerticalScroll(id="user-side", classes="side"):
                        yield Static("", id="user-neurons")
                    with VerticalScroll(id="agent-side", classes="side"):
                        yield Static("", id="reflections")
        yield Footer()

    def on_mount(self) -> None:
        self._columns_for(self.query_one("#queue-pane").size.width or 50)
        self.call_after_refresh(self._fit_columns)  # the real width, once laid out
        self.query_one("#filter", Input).display = False
        self.query_one("#queue", DataTable).focus()
        self.query_one("#user-side").border_title = "user brain"
        self.query_one("#agent-side").border_title = "agent brain"
        self.reload()
        self.set_interval(self.POLL_SECONDS, self.poll)
        self.recover_intents()

    @work(thread=True, exclusive=True, group="triage-recover")
    def recover_intents(self) -> None:
        """Finish (or roll back) user-brain changes a crash left half-done, and read the
        apply mode (apply / record-only) for the title."""
        from brainview.services import apply
        from brainview.services.lifecycle import writing as reflection_writing

        try:
            mode = apply.apply_mode(self.app.paths)  # type: ignore[attr-defined]
            with self.app.open_project() as project:  # type: ignore[attr-defined]
                waiting = apply.open_intents(project)
                paused = reflection_writing.state(project).paused
            self.app.call_from_thread(self.set_writing, paused)
            outcomes = []
            if waiting:
                with self.app.open_project(  # type: ignore[attr-defined]
                    write_agent=True, write_user=True
                ) as project:
                    outcomes = apply.recover(project, now=self.app.now())  # type: ignore[attr-defined]
        except Exception as err:  # noqa: BLE001 - shown, never fatal
            self.post_message(ActionFailed(one_line(str(err), 200)))
            return
        self.app.call_from_thread(self._set_mode, mode, len(outcomes))

    def set_writing(self, paused: bool) -> None:
        """Show (or clear) "reflections paused" in the title."""
        self.writing_paused = paused
        self.app.writing_paused = paused  # type: ignore[attr-defined]
        self._update_title()

    def _set_mode(self, mode: str, recovered: int) -> None:
        self.mode = mode
        self._update_title()
        if recovered:
            self.notify(f"finished {recovered} interrupted change(s) from the last session")

    def _columns_for(self, pane_width: int) -> None:
        """Fixed column widths (deterministic layout); summary takes what is left."""
        table = self.query_one("#queue", DataTable)
        fixed = {"mark": 2, "kind": 8, "age": 3, "consulted": 2}
        summary = max(12, pane_width - sum(fixed.values()) - 2 * len(fixed) - 2 - 3)
        if getattr(self, "_summary_width", None) == summary:
            return
        self._summary_width = summary
        keep = self.current_id if self.rows else None  # clearing resets the cursor
        table.clear(columns=True)
        for label, key in (
            ("", "mark"),
            ("kind", "kind"),
            ("summary", "summary"),
            ("age", "age"),
            ("c", "consulted"),
        ):
            table.add_column(label, key=key, width=summary if key == "summary" else fixed[key])
        if self.rows:
            self._fill_table(self.rows)
            ids = [r.id for r in self.rows]
            if keep in ids:
                table.move_cursor(row=ids.index(keep), animate=False)

    def on_screen_resume(self) -> None:
        # Back from another mode: the terminal may have been resized meanwhile, and a
        # reflection may have been invalidated there: look now, not at the next tick.
        self.call_after_refresh(self._fit_columns)
        self.poll()

    def on_resize(self) -> None:
        # Panes get their new size after this event: measure once they have (the
        # queue pane also refits itself on its own resize).
        self.call_after_refresh(self._fit_columns)

    def _fit_columns(self) -> None:
        width = self.query_one("#queue-pane").size.width
        if width:
            self._columns_for(width)

    def _fill_table(self, rows: list[QueueRow]) -> None:
        table = self.query_one("#queue", DataTable)
        now_ts = self.app.now().timestamp()  # type: ignore[attr-defined]
        cursor = table.cursor_row
        table.clear()
        for row in rows:
            table.add_row(*queue_cells(row, row.id in self.marked, now_ts), key=row.id)
        if rows:
            table.move_cursor(row=max(0, min(cursor, len(rows) - 1)), animate=False)

    # -- loading ---------------------------------------------------------------

    def reload(self, keep: str | None = None) -> None:
        """Reload the queue page (keeping the cursor on ``keep`` if still there).

        A later reload (e.g. from polling) must not lose an earlier one's target,
        so the wanted proposal is remembered until a page arrives.
        """
        if keep is not None:
            self._keep = keep
        elif self._keep is None:
            self._keep = self.current_id
        self.load_queue(self.sort, self.needle, self._keep, max(PAGE, len(self.rows)))

    @work(thread=True, exclusive=True, group="triage-queue")
    def load_queue(self, sort: str, needle: str, keep: str | None, limit: int = PAGE) -> None:
        """Read the first ``limit`` rows of the queue, the lifecycle fingerprint and the
        project's last decision (thread)."""
        from brainview.services.review.flags import lifecycle_mark
        from brainview.services.review.queue import page, signature
        from brainview.services.review.undo_offer import last_unit

        try:
            with self.app.open_project() as project:  # type: ignore[attr-defined]
                mark = lifecycle_mark(project)  # first: a later change is noticed again
                rows, total = page(project, sort=sort, needle=needle, limit=limit)
                sig = signature(project)
                last = last_unit(project)
        except Exception as err:  # noqa: BLE001
            self.post_message(ActionFailed(one_line(str(err), 200)))
            return
        self.post_message(QueueLoaded(rows, total, sig, keep, (sort, needle), mark, last))

    @work(thread=True, exclusive=True, group="triage-more")
    def load_more(self, sort: str, needle: str, offset: int) -> None:
        """Read the next page when the cursor nears the end of what is loaded (thread)."""
        from brainview.services.review.queue import page

        try:
            with self.app.open_project() as project:  # type: ignore[attr-defined]
                rows, total = page(project, sort=sort, needle=needle, offset=offset)
        except Exception:  # noqa: BLE001 - the next reload shows the error
            return
        self.post_message(QueueExtended(rows, total, offset))

    @work(thread=True, exclusive=True, group="triage-detail")
    def load_detail(self, proposal_id: str) -> None:
        """Read both brains' context for one proposal (thread)."""
        from brainview.services.review.detail import load

        try:
            with self.app.open_project() as project:  # type: ignore[attr-defined]
                detail = load(project, proposal_id, self.app.now())  # type: ignore[attr-defined]
        except Exception as err:  # noqa: BLE001
            self.post_message(ActionFailed(one_line(str(err), 200)))
            return
        self.post_message(DetailLoaded(detail))

    @work(thread=True, exclusive=True, group="triage-poll")
    def poll(self) -> None:
        """Notice proposals added or decided by another process (cheap fingerprint),
        reflections challenged, invalidated or reinstated by any process, and reflection
        writing paused or resumed elsewhere."""
        from brainview.services.lifecycle import writing as reflection_writing
        from brainview.services.review.flags import lifecycle_mark
        from brainview.services.review.queue import signature

        if self.busy or self.signature is None:
            return
        try:
            with self.app.open_project() as project:  # type: ignore[attr-defined]
                sig = signature(project)
                mark = lifecycle_mark(project)
                paused = reflection_writing.state(project).paused
        except Exception:  # noqa: BLE001 - transient (locked); try next tick
            return
        if paused != self.writing_paused:
            self.app.call_from_thread(self.set_writing, paused)
        if mark != self.lifecycle_seen:
            self.app.call_from_thread(self._lifecycle_change, mark)
        elif sig != self.signature:
            self.app.call_from_thread(self._external_change, sig)

    def _lifecycle_change(self, mark: int) -> None:
        """A reflection's state moved: every cached proposal context may misstate it."""
        if self.lifecycle_seen is None or mark == self.lifecycle_seen:
            return
        self.lifecycle_seen = mark
        self._details.clear()
        self.reload()

    def _external_change(self, sig: tuple[int, int, int]) -> None:
        if self.signature is None or sig == self.signature:
            return
        if sig[0] > self.signature[0]:
            added = sig[0] - self.signature[0]
            self.notify(f"{added} new proposal(s) arrived", title="Queue")
        self.reload()

    @on(QueueLoaded)
    def show_queue(self, message: QueueLoaded) -> None:
        if message.query != (self.sort, self.needle):
            return  # a thread read for an older sort or filter finished late
        self.rows, self.total, self.signature = message.rows, message.total, message.signature
        self.last_decision = message.last
        self.lifecycle_seen = message.lifecycle
        table = self.query_one("#queue", DataTable)
        self._fill_table(self.rows)
        self._update_title()
        ids = [r.id for r in self.rows]
        self._keep = None
        if message.keep in ids:
            table.move_cursor(row=ids.index(message.keep))
        self._after_cursor()
        self.refresh_bindings()

    def _update_title(self) -> None:
        shown = len(self.rows)
        more = f" ({shown} loaded)" if shown < self.total else ""
        marked = f" · {len(self.marked)} marked" if self.marked else ""
        label = {"apply": "accept applies", "record-only": "record-only"}.get(self.mode, self.mode)
        mode = f" · {label}" if label else ""
        if self.writing_paused:
            mode += " · reflections paused"
        needle = f" · filter “{one_line(self.needle, 30)}”" if self.needle else ""
        self.query_one("#queue-title", Static).update(
            Text(f"{self.total} pending{more} · sort {self.sort}{mode}{needle}{marked}")
        )

    @property
    def current_id(self) -> str | None:
        """The highlighted proposal's id."""
        table = self.query_one("#queue", DataTable)
        if not self.rows or table.cursor_row < 0 or table.cursor_row >= len(self.rows):
            return None
        return self.rows[table.cursor_row].id

    @on(DataTable.RowHighlighted, "#queue")
    def _highlighted(self, _event: DataTable.RowHighlighted) -> None:
        self._after_cursor()
        table = self.query_one("#queue", DataTable)
        if len(self.rows) < self.total and table.cursor_row >= len(self.rows) - 10:
            self.load_more(self.sort, self.needle, len(self.rows))

    @on(QueueExtended)
    def _extend(self, message: QueueExtended) -> None:
        if message.offset != len(self.rows):
            return  # the queue was reloaded meanwhile
        table = self.query_one("#queue", DataTable)
        now_ts = self.app.now().timestamp()  # type: ignore[attr-defined]
        known = {r.id for r in self.rows}
        fresh = [r for r in message.rows if r.id not in known]
        for row in fresh:
            table.add_row(*queue_cells(row, row.id in self.marked, now_ts), key=row.id)
        self.rows = self.rows + fresh
        self.total = message.total
        self._update_title()

    def _after_cursor(self) -> None:
        pid = self.current_id
        self.shown_at = time.monotonic()
        if pid is None:
            self.detail = self.app.under_review = None  # type: ignore[attr-defined]
            self.query_one("#proposal", Static).update(
                Text(
                    "Nothing pending. New proposals appear here as the curator sends them.",
                    style="italic",
                )
            )
            self.query_one("#user-neurons", Static).update("")
            self.query_one("#reflections", Static).update("")
            return
        cached = self._details.get(pid)
        if cached is not None:
            self._render_detail(cached)  # instant; refreshed below (grades may have moved)
        elif self.detail is None or self.detail.id != pid:
            self.query_one("#proposal", Static).update(Text("loading…", style="dim italic"))
        self.load_detail(pid)

    @on(DetailLoaded)
    def show_detail(self, message: DetailLoaded) -> None:
        self._details[message.detail.id] = message.detail
        if message.detail.id != self.current_id:
            return
        self._render_detail(message.detail)
        nxt = self._neighbour_id(1)
        if nxt is not None and nxt not in self._details:
            self.prefetch(nxt)

    def _render_detail(self, detail: ProposalDetail) -> None:
        if self.detail is None or self.detail.id != detail.id:  # a new proposal: from the top
            for pane in ("#proposal-scroll", "#user-side", "#agent-side"):
                self.query_one(pane).scroll_home(animate=False)
        self.detail = self.app.under_review = detail  # type: ignore[attr-defined]
        self.query_one("#proposal", Static).update(render_header(detail))
        self.query_one("#user-neurons", Static).update(render_user_side(detail))
        review = detail.agent_item is not None
        self.query_one("#user-side").border_title = "review" if review else "user brain"
        annotate = self.app.config.review.annotate_grade  # type: ignore[attr-defined]
        self.query_one("#reflections", Static).update(render_agent_side(detail, annotate))
        self.refresh_bindings()

    def _neighbour_id(self, step: int) -> str | None:
        row = self.query_one("#queue", DataTable).cursor_row + step
        return self.rows[row].id if 0 <= row < len(self.rows) else None

    @work(thread=True, exclusive=True, group="triage-prefetch")
    def prefetch(self, proposal_id: str) -> None:
        """Load the next proposal's context ahead of time, so deciding feels instant."""
        from brainview.services.review.detail import load

        try:
            with self.app.open_project() as project:  # type: ignore[attr-defined]
                detail = load(project, proposal_id, self.app.now())  # type: ignore[attr-defined]
        except Exception:  # noqa: BLE001 - a prefetch may fail quietly; the real load reports
            return
        self.post_message(DetailLoaded(detail))

    # -- decisions -------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # False hides a verb that cannot apply here; for accept, edit_policy and undo a
        # hidden twin binding then says why (brainview.tui.bindings).
        if action in ("accept", "reject", "dismiss", "skip", "mark", "range_mark"):
            if not self.rows:
                return False
            if action == "accept" and not self.marked and self._current_stale():
                return False
        if action == "undo":
            return bool(self.session_units or self.last_decision)
        if action == "recall":
            return self.detail is not None and self.detail.id == self.current_id
        if action == "edit_policy":
            d = self.detail
            editable = (
                d is not None
                and d.id == self.current_id
                and d.kind == "summarize_community"
                and d.status == "pending"
                and not d.stale
                and not self.marked
            )
            return editable
        return True

    def _current_stale(self) -> bool:
        pid = self.current_id
        row = next((r for r in self.rows if r.id == pid), None)
        d = self.detail
        return bool((row and row.stale) or (d is not None and d.id == pid and d.stale))

    def action_filter(self) -> None:
        """Show the filter box."""
        box = self.query_one("#filter", Input)
        box.display = True
        box.focus()

    def show_only(self, needle: str) -> None:
        """Filter the queue to ``needle`` (e.g. a consolidation's id), box shown."""
        box = self.query_one("#filter", Input)
        box.display = True
        box.value = needle  # posts Input.Changed → reload
        self.query_one("#queue").focus()

    @on(Input.Changed, "#filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.needle = event.value.strip()
        self.reload(self.current_id)

    @on(Input.Submitted, "#filter")
    def _filter_done(self, _event: Input.Submitted) -> None:
        self.query_one("#queue").focus()

    def action_sort(self) -> None:
        """Cycle the sort order."""
        names = list(SORTS)
        self.sort = names[(names.index(self.sort) + 1) % len(names)]
        self.reload(self.current_id)
