"""The fading list: reflections about to fall below the pruning threshold, and the
maintainer's rescue (keep) / let-go decisions on them, withdrawable this session."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.reactive import var
from textual.widgets import DataTable, Static

from brainview.core.vocabulary import mark
from brainview.tui.communities.cells import FADING_COLUMNS, fading_cells, fading_title
from brainview.tui.communities.members import restate
from brainview.tui.communities.tables import fit_columns
from brainview.tui.workers import run_service

if TYPE_CHECKING:
    from brainview.services.communities.curves import FadingList
    from brainview.services.session import Session


class FadingTitle(Static):
    """How many fade within the horizon, how many are already below, the keys."""


class FadingPane(Vertical):
    """The fading list; ``K`` / ``L`` (on the screen) decide, ``u`` withdraws."""

    fading: var[FadingList | None] = var(None, always_update=True)
    """The list read last (``None``: not read yet)."""
    decisions: var[tuple[tuple[int, str], ...]] = var(())
    """This session's decisions ``(decision id, reflection id)``, oldest first."""

    @dataclass
    class Loaded(Message):
        """The fading list was read; ``mark`` is the lifecycle fingerprint before it."""

        pane: FadingPane
        mark: int

        @property
        def control(self) -> FadingPane:
            return self.pane

    @dataclass
    class Open(Message):
        """Open a reflection (``enter`` on a row)."""

        pane: FadingPane
        reflection_id: str

        @property
        def control(self) -> FadingPane:
            return self.pane

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002 - Textual's name
        super().__init__(id=id)
        self._widths: list[int] = []

    def compose(self) -> ComposeResult:
        yield FadingTitle("", id="fading-title")
        yield DataTable(id="fading", cursor_type="row", zebra_stripes=True)

    @property
    def table(self) -> DataTable[Text]:
        """The fading table."""
        return self.query_one(DataTable)

    @property
    def highlighted(self) -> str | None:
        """The reflection under the cursor (``None``: no rows)."""
        rows = self.fading.rows if self.fading else []
        k = self.table.cursor_row
        return rows[k].id if 0 <= k < len(rows) else None

    def fit(self) -> None:
        """Columns for the table's width now (refilled if they changed)."""
        widths = fit_columns(self.table, FADING_COLUMNS, self._widths)
        if widths != self._widths:
            self._widths = widths
            self._fill()

    def on_resize(self) -> None:
        self.call_after_refresh(self.fit)

    # -- reading -----------------------------------------------------------------------

    def load(self, *, threshold: float, days: int) -> None:
        """Read the fading list (and the lifecycle mark before it)."""
        if self.fading is None:
            self.query_one(FadingTitle).update(Text("reading…", "dim italic"))

        def read(session: Session) -> tuple[FadingList, int] | None:
            from brainview.services.communities.curves import fading
            from brainview.services.review.flags import lifecycle_mark

            with session.project() as project:
                if project.agent is None:
                    return None
                mark = lifecycle_mark(project)  # first: a later change is noticed again
                return fading(project, session.clock(), threshold=threshold, days=days), mark

        run_service(self, read, group="communities-fading", done=self._loaded)

    def _loaded(self, result: tuple[FadingList, int] | None) -> None:
        if result is None:
            return
        self.fading, mark = result
        self.fit()
        self._fill()
        self.query_one(FadingTitle).update(fading_title(self.fading))
        self.post_message(self.Loaded(self, mark))

    def _fill(self) -> None:
        if self.fading is None or not self._widths:
            return
        table = self.table
        cursor = table.cursor_row
        table.clear()
        for row in self.fading.rows:
            table.add_row(*fading_cells(row), key=row.id)
        if self.fading.rows:
            table.move_cursor(row=max(0, min(cursor, len(self.fading.rows) - 1)), animate=False)

    def restate(self, states: dict[str, str]) -> bool:
        """New lifecycle states (title cells redrawn in place); whether every row on
        screen was in ``states``."""
        if self.fading is None:
            return True
        rows = restate(self.table, self.fading.rows, states)
        self.fading = replace(self.fading, rows=rows)
        return all(r.id in states for r in rows)

    # -- deciding ----------------------------------------------------------------------

    def decide(self, action: str, *, threshold: float, days: int) -> None:
        """Rescue (``rescue``) or let go (``let_go``) the highlighted reflection."""
        rid = self.highlighted
        if rid is None:
            return

        def record(session: Session) -> int:
            return session.decide_fading(rid, action, threshold=threshold)

        def done(decision_id: int) -> None:
            self.decisions = (*self.decisions, (decision_id, rid))
            self.notify(
                f"{mark('kept')}: no pruning" if action == "rescue" else mark("let go"), timeout=2
            )
            self.table.action_cursor_down()
            self.load(threshold=threshold, days=days)

        run_service(self, record, group="communities-decide", done=done)

    def undo(self, *, threshold: float, days: int) -> None:
        """Withdraw this session's most recent rescue / let-go."""
        if not self.decisions:
            return
        decision_id, _rid = self.decisions[-1]

        def withdraw(session: Session) -> None:
            session.undo_fading(decision_id)

        def done(_: None) -> None:
            self.decisions = self.decisions[:-1]
            self.notify("↶ decision withdrawn", timeout=2)
            self.load(threshold=threshold, days=days)

        run_service(self, withdraw, group="communities-decide", done=done)

    @on(DataTable.RowSelected)
    def _selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if event.row_key.value:
            self.post_message(self.Open(self, str(event.row_key.value)))
