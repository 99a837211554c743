"""The queue: a title line, the filter bar and the table of pending proposals.

:class:`QueueList` owns what the queue shows — the loaded rows, the total, the marks,
the sort and the filter — and says what happened with its own messages
(:class:`QueueList.Selected`, :class:`QueueList.MarksChanged`,
:class:`QueueList.QueryChanged`, :class:`QueueList.NeedMore`).  It never reads a
brain: the screen loads pages and hands them over with :meth:`QueueList.show_page`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.reactive import var
from textual.widgets import DataTable, Input, Static

from brainview.core.safe_text import one_line
from brainview.tui.triage.filter_bar import FilterBar
from brainview.tui.triage.queue_cells import FIXED, mark_cell, queue_cells, summary_cell

if TYPE_CHECKING:
    from brainview.services.review.queue import QueueRow

SORTS = ("age", "newest", "kind", "consulted")


class QueueTitle(Static):
    """The queue's one-line title: counts, sort, apply mode, filter, marks."""


class QueueList(Vertical):
    """Pending proposals with their marks; the cursor row is the one decided on."""

    @dataclass
    class Selected(Message):
        """The highlighted proposal changed (``None``: the queue is empty)."""

        proposal_id: str | None

    @dataclass
    class MarksChanged(Message):
        """The set of marked proposals changed."""

        marked: frozenset[str]

    @dataclass
    class QueryChanged(Message):
        """The sort or filter changed: the screen reads the queue again."""

        sort: str
        needle: str

    @dataclass
    class NeedMore(Message):
        """The cursor nears the end of the loaded rows: read the page at ``offset``."""

        offset: int

    rows: var[list[QueueRow]] = var(list, init=False)
    """The loaded rows, in order (the first pages of the query)."""
    total: var[int] = var(0, init=False)
    """Proposals matching the filter."""
    pending: var[int] = var(0, init=False)
    """All pending proposals, filter or not."""
    marked: var[frozenset[str]] = var(frozenset, init=False)
    """Proposals marked for a bulk decision."""
    sort: var[str] = var("age", init=False)
    """The sort order (one of :data:`SORTS`)."""
    needle: var[str] = var("", init=False)
    """The filter text (empty: the whole queue)."""
    mode: var[str] = var("", init=False)
    """Apply mode for the title: ``apply`` or ``record-only`` (empty: not read yet)."""
    writing_paused: var[bool] = var(False, init=False)
    """The project paused reflection writing (said in the title)."""
    health: var[str] = var("", init=False)
    """The queue-health alert for the title (``◷ 3 waiting >7d``; empty: healthy)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.mark_anchor: str | None = None
        """Where a range mark starts: the last proposal marked."""
        self.holders: dict[str, str] = {}
        """Proposal id → who else is looking at it (presence; empty when alone)."""
        self._summary_width = 0

    def compose(self) -> ComposeResult:
        yield QueueTitle("", id="queue-title")
        yield FilterBar(placeholder="filter: kind, id, words… (escape clears)", id="filter")
        yield DataTable(id="queue", cursor_type="row", zebra_stripes=True)

    @property
    def table(self) -> DataTable[Text]:
        """The table of rows."""
        return self.query_one(DataTable)

    @property
    def bar(self) -> FilterBar:
        """The filter box."""
        return self.query_one(FilterBar)

    def on_mount(self) -> None:
        self.bar.display = False
        self._columns_for(self.size.width or 50)
        self._update_title()

    def on_resize(self, event: events.Resize) -> None:
        if event.size.width:
            self.call_after_refresh(self._columns_for, event.size.width)

    # -- what is shown ---------------------------------------------------------

    @property
    def current_id(self) -> str | None:
        """The highlighted proposal's id."""
        cursor = self.table.cursor_row
        if not self.rows or cursor < 0 or cursor >= len(self.rows):
            return None
        return self.rows[cursor].id

    def row(self, proposal_id: str | None) -> QueueRow | None:
        """The loaded row of ``proposal_id``."""
        return next((r for r in self.rows if r.id == proposal_id), None)

    def neighbour_id(self, step: int) -> str | None:
        """The proposal ``step`` rows from the cursor (``None`` past either end)."""
        at = self.table.cursor_row + step
        return self.rows[at].id if 0 <= at < len(self.rows) else None

    def targets(self) -> list[str]:
        """What a verb acts on: the marked proposals, else the highlighted one."""
        if self.marked:
            return [r.id for r in self.rows if r.id in self.marked]
        pid = self.current_id
        return [pid] if pid else []

    def show_page(
        self, rows: list[QueueRow], total: int, pending: int, keep: str | None = None
    ) -> None:
        """Show a freshly read first page; the cursor stays on ``keep`` if it is there.

        When the page is the shown rows less some (others decided them) only those rows
        go and only changed cells are drawn again: every console re-reads its page at
        each decision anyone makes, so a full redraw there is the team's cost."""
        old = self.rows
        self.set_reactive(QueueList.rows, rows)
        self.total, self.pending = total, pending
        if not self._patch(old, rows):
            self._fill()
        ids = [r.id for r in rows]
        if keep in ids:
            self.table.move_cursor(row=ids.index(keep), animate=False)
        self._update_title()
        self.post_message(self.Selected(self.current_id))

    def extend(self, rows: list[QueueRow], total: int, offset: int) -> None:
        """Append the next page (dropped if the queue was reloaded meanwhile)."""
        if offset != len(self.rows):
            return
        known = {r.id for r in self.rows}
        fresh = [r for r in rows if r.id not in known]
        now_ts = self._now_ts()
        for row in fresh:
            cells = queue_cells(row, row.id in self.marked, now_ts, self.holders.get(row.id))
            self.table.add_row(*cells, key=row.id)
        self.set_reactive(QueueList.rows, self.rows + fresh)
        self.total = total

    def remove_rows(self, ids: list[str]) -> str | None:
        """Take decided rows off at once; the next proposal slides under the cursor and
        is returned.  No ``Selected`` is posted: the caller shows it in the same frame
        (:meth:`brainview.tui.triage.screen.TriageScreen.select`), where a message would
        reach the screen a frame or two later."""
        gone = set(ids)
        old = [r.id for r in self.rows]
        cursor = max(0, self.table.cursor_row)
        after = [pid for pid in old[cursor:] if pid not in gone]
        before = [pid for pid in old[:cursor] if pid not in gone]
        target = after[0] if after else (before[-1] if before else None)
        for pid in ids:
            if pid in old:
                self.table.remove_row(pid)
        self.set_reactive(QueueList.rows, [r for r in self.rows if r.id not in gone])
        removed = len(gone & set(old))
        self.total, self.pending = max(0, self.total - removed), max(0, self.pending - removed)
        self.marked = self.marked - gone
        if target is not None:
            self.table.move_cursor(row=[r.id for r in self.rows].index(target), animate=False)
        return self.current_id

    def show_holders(self, holders: dict[str, str]) -> None:
        """Mark the rows others are looking at (``◉ bob``); only changed cells redrawn."""
        old, self.holders = self.holders, dict(holders)
        shown = {r.id: r for r in self.rows}
        for pid in set(old) | set(holders):
            if old.get(pid) != holders.get(pid) and pid in shown:
                self.table.update_cell(pid, "summary", summary_cell(shown[pid], holders.get(pid)))

    # -- the title ---------------------------------------------------------------

    def title_text(self) -> str:
        """``36 pending · sort age · accept applies`` or, filtered, ``8 of 31 …``."""
        shown = len(self.rows)
        count = f"{self.total} of {self.pending}" if self.needle else f"{self.total} pending"
        more = f" ({shown} loaded)" if shown < self.total else ""
        label = {"apply": "accept applies", "record-only": "record-only"}.get(self.mode, self.mode)
        mode = f" · {label}" if label else ""
        if self.writing_paused:
            mode += " · reflections paused"
        needle = f" · filter “{one_line(self.needle, 30)}”" if self.needle else ""
        marked = f" · {len(self.marked)} marked" if self.marked else ""
        health = f" · {self.health}" if self.health else ""
        # What a bulk decision acts on comes first: a narrow pane cuts the end.
        return f"{count}{more}{marked}{needle}{health} · sort {self.sort}{mode}"

    def _update_title(self) -> None:
        if self.is_mounted:
            # one line, always: no layout (a reload at every decision anyone makes)
            title = Text(self.title_text())
            if self.health:  # the alert stands out; the rest stays plain
                title.highlight_words([self.health], style="bold yellow")
            self.query_one(QueueTitle).update(title, layout=False)

    def watch_total(self) -> None:
        self._update_title()

    def watch_mode(self) -> None:
        self._update_title()

    def watch_writing_paused(self) -> None:
        self._update_title()

    def watch_health(self) -> None:
        self._update_title()

    def watch_marked(self, old: frozenset[str], new: frozenset[str]) -> None:
        now = {r.id: r for r in self.rows}
        for pid in old ^ new:
            if pid in now:
                self.table.update_cell(pid, "mark", mark_cell(now[pid], pid in new))
        self._update_title()
        self.post_message(self.MarksChanged(new))

    def watch_sort(self) -> None:
        self._update_title()
        self.post_message(self.QueryChanged(self.sort, self.needle))

    def watch_needle(self) -> None:
        self._update_title()
        self.post_message(self.QueryChanged(self.sort, self.needle))

    # -- marks, cursor, filter -------------------------------------------------

    def toggle_mark(self) -> None:
        """Mark or unmark the highlighted proposal, then move to the next row."""
        pid = self.current_id
        if pid is None:
            return
        self.marked = self.marked ^ {pid}
        if pid in self.marked:
            self.mark_anchor = pid
        self.move(1)

    def range_mark(self) -> None:
        """Mark everything between the last mark and the cursor."""
        pid = self.current_id
        if pid is None:
            return
        ids = [r.id for r in self.rows]
        a = ids.index(self.mark_anchor) if self.mark_anchor in ids else ids.index(pid)
        b = ids.index(pid)
        self.marked = self.marked | set(ids[min(a, b) : max(a, b) + 1])
        self.mark_anchor = pid

    def clear_marks(self) -> None:
        """Unmark everything."""
        self.marked = frozenset()
        self.mark_anchor = None

    def move(self, step: int) -> None:
        """Move the cursor ``step`` rows (clamped)."""
        if self.rows:
            at = max(0, min(len(self.rows) - 1, self.table.cursor_row + step))
            self.table.move_cursor(row=at)

    def move_to(self, row: int) -> None:
        """Put the cursor on ``row`` (``-1``: the last loaded row)."""
        if self.rows:
            self.table.move_cursor(row=len(self.rows) - 1 if row < 0 else row)

    def next_sort(self) -> None:
        """Cycle the sort order."""
        self.sort = SORTS[(SORTS.index(self.sort) + 1) % len(SORTS)]

    def open_filter(self) -> None:
        """Show the filter box and type into it."""
        self.bar.display = True
        self.bar.focus()

    def filter_to(self, needle: str) -> None:
        """Filter to ``needle`` (e.g. a consolidation's id), box shown, table focused."""
        self.bar.display = True
        self.bar.value = needle
        self.needle = needle.strip()
        self.table.focus()

    def clear_filter(self) -> bool:
        """Clear the filter and hide the box; ``False`` if there was nothing to clear."""
        had = bool(self.needle) or self.bar.display
        self.bar.value = ""
        self.bar.display = False
        self.needle = ""
        self.table.focus()
        return had

    @on(Input.Changed, "#filter")
    def _typed(self, event: Input.Changed) -> None:
        event.stop()
        self.needle = event.value.strip()

    @on(Input.Submitted, "#filter")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.table.focus()
        self.bar.typing_on = True

    @on(events.Key)
    def _typed_on(self, event: events.Key) -> None:
        """Text typed on after ``enter`` goes back into the filter, never to a binding."""
        bound = self.screen.active_bindings.get(event.key)
        action = bound.binding.action if bound is not None else None
        if not self.bar.has_focus and self.bar.take_back(event, action):
            event.stop()
            event.prevent_default()

    @on(FilterBar.Cleared)
    def _cleared(self, event: FilterBar.Cleared) -> None:
        event.stop()
        self.clear_filter()

    @on(DataTable.RowHighlighted)
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self.post_message(self.Selected(self.current_id))
        if len(self.rows) < self.total and self.table.cursor_row >= len(self.rows) - 10:
            self.post_message(self.NeedMore(len(self.rows)))

    # -- the table ---------------------------------------------------------------

    def _now_ts(self) -> float:
        from brainview.tui.access import brainview_app

        return brainview_app(self).now().timestamp()

    def _columns_for(self, width: int) -> None:
        """Fixed column widths (deterministic layout); the summary takes what is left."""
        summary = max(12, width - sum(FIXED.values()) - 2 * len(FIXED) - 2 - 3)
        if summary == self._summary_width:
            return
        self._summary_width = summary
        keep = self.current_id
        table = self.table
        table.clear(columns=True)
        for label, key in (("", "mark"), ("summary", "summary")):
            table.add_column(label, key=key, width=summary if key == "summary" else FIXED[key])
        table.add_column("age", key="age", width=FIXED["age"])
        table.add_column("c", key="consulted", width=FIXED["consulted"])
        if self.rows:
            self._fill()
            ids = [r.id for r in self.rows]
            if keep in ids:
                table.move_cursor(row=ids.index(keep), animate=False)

    def _patch(self, old: list[QueueRow], new: list[QueueRow]) -> bool:
        """Turn the table from ``old`` into ``new`` in place when ``new`` is ``old`` less
        some rows, in the same order; ``False`` (nothing touched) otherwise."""
        table = self.table
        kept = {r.id for r in new}
        if not new or [r.id for r in old if r.id in kept] != [r.id for r in new]:
            return False
        if table.row_count != len(old):
            return False
        cursor = table.cursor_row
        for row in old:
            if row.id not in kept:
                table.remove_row(row.id)
        before = {r.id: r for r in old}
        now_ts = self._now_ts()
        keys = ("mark", "summary", "age", "consulted")
        for row in new:
            cells = queue_cells(row, row.id in self.marked, now_ts, self.holders.get(row.id))
            changed = row != before[row.id]
            for key, cell in zip(keys, cells, strict=True):
                if key == "age":  # moves with the clock alone
                    changed_here = str(table.get_cell(row.id, key)) != str(cell)
                else:
                    changed_here = changed
                if changed_here:
                    table.update_cell(row.id, key, cell)
        table.move_cursor(row=max(0, min(cursor, len(new) - 1)), animate=False)
        return True

    def _fill(self) -> None:
        table = self.table
        now_ts = self._now_ts()
        cursor = table.cursor_row
        table.clear()
        for row in self.rows:
            cells = queue_cells(row, row.id in self.marked, now_ts, self.holders.get(row.id))
            table.add_row(*cells, key=row.id)
        if self.rows:
            table.move_cursor(row=max(0, min(cursor, len(self.rows) - 1)), animate=False)
