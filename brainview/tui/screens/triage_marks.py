"""Triage cursor and marks: move through the queue, mark proposals for a bulk decision.

A mixin of :class:`~brainview.tui.screens.triage.TriageScreen` (no ``@on`` handlers:
Textual only collects those from widget classes).
"""

from __future__ import annotations

from typing import Any

from textual.widgets import DataTable, Input

from brainview.tui.widgets.proposal_view import mark_cell


class TriageMarks:
    """The queue cursor and the marks."""

    # Provided by the screen.
    rows: list[Any]
    marked: set[str]
    anchor: str | None

    def action_skip(self) -> None:
        """Move on without deciding."""
        self.action_cursor(1)

    def action_cursor_last(self) -> None:
        """Jump to the last loaded proposal (loads the next page if there is one)."""
        if self.rows:
            self.query_one("#queue", DataTable).move_cursor(row=len(self.rows) - 1)

    def action_cursor_first(self) -> None:
        """Jump to the first proposal."""
        if self.rows:
            self.query_one("#queue", DataTable).move_cursor(row=0)

    def action_cursor(self, step: int) -> None:
        """Move the queue cursor."""
        table = self.query_one("#queue", DataTable)
        if self.rows:
            table.move_cursor(row=max(0, min(len(self.rows) - 1, table.cursor_row + step)))

    def action_mark(self) -> None:
        """Toggle the mark on the highlighted proposal."""
        pid = self.current_id
        if pid is None:
            return
        self.marked ^= {pid}
        self.anchor = pid if pid in self.marked else self.anchor
        self._redraw_marks()
        self.action_cursor(1)

    def action_range_mark(self) -> None:
        """Mark everything between the last mark and the cursor."""
        pid = self.current_id
        if pid is None:
            return
        ids = [r.id for r in self.rows]
        a = ids.index(self.anchor) if self.anchor in ids else ids.index(pid)
        b = ids.index(pid)
        self.marked |= set(ids[min(a, b) : max(a, b) + 1])
        self.anchor = pid
        self._redraw_marks()

    def _redraw_marks(self) -> None:
        table = self.query_one("#queue", DataTable)
        for row in self.rows:
            table.update_cell(row.id, "mark", mark_cell(row, row.id in self.marked))
        self._update_title()

    def action_clear(self) -> None:
        """Clear marks and hide the filter."""
        self.marked.clear()
        self.anchor = None
        self._redraw_marks()
        box = self.query_one("#filter", Input)
        if box.display:
            box.display = False
            self.query_one("#queue").focus()
