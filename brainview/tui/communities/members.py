"""The members of the highlighted community, weakest first, with their states."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, TypeVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.reactive import var
from textual.widgets import DataTable, Static

from brainview.tui.communities.cells import MEMBER_COLUMNS, member_cells, members_title, title_cell
from brainview.tui.communities.tables import fit_columns

if TYPE_CHECKING:
    from brainview.services.communities import CommunityRow, MemberRow
    from brainview.services.communities.curves import FadingRow


class MembersTitle(Static):
    """Which community, its label, how many members, its policies."""


class MemberList(Vertical):
    """Members of one community; ``enter`` opens the highlighted reflection."""

    number: var[int | None] = var(None)
    """The community shown (partition number)."""
    members: var[list[MemberRow]] = var(list, always_update=True)
    """The rows shown, weakest first."""
    total: var[int] = var(0)
    """How many members the community has (more than shown for a big one)."""

    @dataclass
    class Open(Message):
        """Open a reflection (``enter`` on a member)."""

        members: MemberList
        reflection_id: str

        @property
        def control(self) -> MemberList:
            return self.members

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002 - Textual's name
        super().__init__(id=id)
        self._widths: list[int] = []

    def compose(self) -> ComposeResult:
        yield MembersTitle("", id="members-title")
        yield DataTable(id="members", cursor_type="row")

    @property
    def table(self) -> DataTable[Text]:
        """The members table."""
        return self.query_one(DataTable)

    @property
    def highlighted(self) -> str | None:
        """The reflection under the cursor (``None``: no rows)."""
        row = self.table.cursor_row
        return self.members[row].id if 0 <= row < len(self.members) else None

    def fit(self) -> None:
        """Columns for the table's width now (refilled if they changed)."""
        widths = fit_columns(self.table, MEMBER_COLUMNS, self._widths)
        if widths != self._widths:
            self._widths = widths
            self._fill()

    def on_resize(self) -> None:
        self.call_after_refresh(self.fit)

    def show(
        self, number: int, row: CommunityRow | None, members: list[MemberRow], total: int
    ) -> None:
        """Show the members of community ``number`` (``row``: its line in the list)."""
        self.number, self.members, self.total = number, members, total
        self.fit()
        self._fill()
        self.query_one(MembersTitle).update(members_title(number, row, len(members), total))

    def _fill(self) -> None:
        table = self.table
        if not self._widths:
            return
        table.clear()
        for m in self.members:
            table.add_row(*member_cells(m), key=m.id)

    def restate(self, states: dict[str, str]) -> bool:
        """New lifecycle states; only the title cells that changed are redrawn.  Whether
        every row on screen was in ``states``."""
        self.members = restate(self.table, self.members, states)
        return all(m.id in states for m in self.members)

    @on(DataTable.RowSelected)
    def _selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if event.row_key.value:
            self.post_message(self.Open(self, str(event.row_key.value)))


Row = TypeVar("Row", "MemberRow", "FadingRow")


def restate(table: DataTable[Text], rows: list[Row], states: dict[str, str]) -> list[Row]:
    """``rows`` with their new ``state``; the changed title cells are updated in place."""
    out = []
    for row in rows:
        state = states.get(row.id, row.state)
        if state != row.state:
            row = replace(row, state=state)
            if row.id in table.rows:
                table.update_cell(row.id, "title", title_cell(row.title, state))
        out.append(row)
    return out
