"""The list of communities: what a community is, how many there are, one line each."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.reactive import var
from textual.widgets import DataTable, Static

from brainview.tui.communities.cells import (
    ABOUT,
    cluster_cells,
    cluster_columns,
    clusters_title,
)
from brainview.tui.communities.tables import fit_columns

if TYPE_CHECKING:
    from brainview.services.communities import CommunityData, CommunityRow

SORT_NAMES = {"size": "size", "fading": "weakest mean R", "misses": "most misses"}


class About(Static):
    """One line: what a community is."""


class ClustersTitle(Static):
    """How many communities, the sort, the modularity, whether stale."""


class ClusterList(Vertical):
    """The communities of the agent brain, one line each; the cursor picks one."""

    # always_update: the data holds numpy arrays, which do not compare to one bool.
    data: var[CommunityData | None] = var(None, always_update=True)
    """The partition's per-reflection data (``None`` before the first read)."""
    rows: var[list[CommunityRow]] = var(list, always_update=True)
    """The page of communities shown, in ``sort`` order."""
    total: var[int] = var(0)
    """How many rows there are in all (isolated reflections count as one)."""
    sort: var[str] = var("size")
    """``size``, ``fading`` or ``misses``."""
    number: var[int | None] = var(None)
    """The highlighted community (partition number)."""

    @dataclass
    class Highlighted(Message):
        """Another community is highlighted (its members and curves are wanted)."""

        clusters: ClusterList
        number: int

        @property
        def control(self) -> ClusterList:
            return self.clusters

    @dataclass
    class Chosen(Message):
        """``enter`` on a community: go to its members."""

        clusters: ClusterList

        @property
        def control(self) -> ClusterList:
            return self.clusters

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002 - Textual's name
        super().__init__(id=id)
        self._widths: list[int] = []

    def compose(self) -> ComposeResult:
        yield About(Text(ABOUT, style="italic"), id="cluster-about")
        yield ClustersTitle(Text("reading communities…", "dim italic"), id="cluster-title")
        yield DataTable(id="clusters", cursor_type="row", zebra_stripes=True)

    @property
    def table(self) -> DataTable[Text]:
        """The list itself."""
        return self.query_one(DataTable)

    @property
    def with_spikuit(self) -> bool:
        """Whether Spikuit's own communities exist here (then shown for comparison)."""
        return self.data is not None and bool((self.data.spikuit >= 0).any())

    def say(self, text: str) -> None:
        """A line in place of the title (no agent brain, clustering cancelled)."""
        self.query_one(ClustersTitle).update(Text(text, style="italic"))

    def fit(self) -> None:
        """Columns for the table's width now (refilled if they changed)."""
        widths = fit_columns(self.table, cluster_columns(self.with_spikuit), self._widths)
        if widths != self._widths:
            self._widths = widths
            self._fill()

    def on_resize(self) -> None:
        self.call_after_refresh(self.fit)

    def show(self, data: CommunityData, rows: list[CommunityRow], total: int, sort: str) -> None:
        """Show a page of communities; the highlighted one stays if it is still there."""
        keep, had_spikuit = self.number, self.with_spikuit
        self.data, self.rows, self.total, self.sort = data, rows, total, sort
        if had_spikuit != self.with_spikuit:
            self._widths = []
        self.fit()
        self._fill()
        self.query_one(ClustersTitle).update(clusters_title(data, rows, total, SORT_NAMES[sort]))
        numbers = [r.number for r in rows]
        if keep in numbers:
            self.table.move_cursor(row=numbers.index(keep), animate=False)
        self._cursor_moved(force=True)

    def _fill(self) -> None:
        table = self.table
        if not self._widths:
            return
        skills_width = self._widths[3]
        cursor = table.cursor_row
        table.clear()
        for row in self.rows:
            cells = cluster_cells(row, with_spikuit=self.with_spikuit, skills_width=skills_width)
            table.add_row(*cells, key=str(row.number))
        if self.rows:
            table.move_cursor(row=max(0, min(cursor, len(self.rows) - 1)), animate=False)

    @on(DataTable.RowHighlighted)
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self._cursor_moved()

    @on(DataTable.RowSelected)
    def _selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.post_message(self.Chosen(self))

    def _cursor_moved(self, force: bool = False) -> None:
        if self.data is None or not self.rows:
            return
        row = self.rows[max(0, min(self.table.cursor_row, len(self.rows) - 1))]
        if force or row.number != self.number:
            self.number = row.number
            self.post_message(self.Highlighted(self, row.number))

    def member_ids(self) -> list[str]:
        """Every member of the highlighted community (not only the rows on screen)."""
        if self.data is None or self.number is None:
            return []
        return [self.data.ids[k] for k in self.data.members(self.number)]
