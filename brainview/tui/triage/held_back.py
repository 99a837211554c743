"""The held-back lane: drafts the curator withdrew or rewrote after recall, for a
maintainer to judge (issue 29).

Opened from triage with ``H``; a screen of its own (a short list and the detail of the
highlighted draft) rather than a mode of the proposal queue: a held-back draft is not a
proposal — it has no change to preview and its verdicts are not accept or reject — so
the queue's paging, marks, filters and presence stay as they are.  The lane is small by
design (weakly corroborated lessons plus a sample), so it is read whole, in a worker.

``p`` says the draft should have been proposed (it is queued; the opposing lessons are
graded miss), ``r`` that it was rightly held back (graded strong), ``u`` undoes the
highlighted draft's verdict exactly; ``A`` lists every reported draft, decided or not.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import DataTable, Header, Static

from brainview.core.safe_text import one_line
from brainview.tui.access import session_of
from brainview.tui.footer import Footer
from brainview.tui.triage.render_held_back import EMPTY, render_item, row_cells
from brainview.tui.workers import run_service

if TYPE_CHECKING:
    from brainview.services.held_back import HeldBackItem

BINDINGS: list[BindingType] = [
    Binding(
        "p",
        "verdict('should_have_proposed')",
        "Should propose",
        id="held_back.propose",
        tooltip="Should have been proposed: queue the draft; opposing lessons get ▁ miss",
    ),
    Binding(
        "r",
        "verdict('rightly_held_back')",
        "Rightly held",
        id="held_back.rightly",
        tooltip="Rightly held back: the opposing lessons get █ strong",
    ),
    Binding("u", "undo", "Undo", id="held_back.undo", tooltip="Undo this draft's verdict"),
    Binding(
        "A", "toggle_all", "All", id="held_back.all", tooltip="Every reported draft / the lane"
    ),
    Binding("j", "cursor(1)", "Down", id="held_back.down", show=False),
    Binding("k", "cursor(-1)", "Up", id="held_back.up", show=False),
    Binding("escape,backspace", "back", "Back", id="held_back.back", tooltip="Back to triage"),
]


class HeldBackScreen(Screen[None]):
    """Held-back drafts: the lane, the draft, the lessons that opposed it and why.

    | Key | Action |
    |-----|--------|
    | `p` | Should have been proposed (queued; opposing lessons miss) |
    | `r` | Rightly held back (opposing lessons strong) |
    | `u` | Undo the highlighted draft's verdict |
    | `A` | Every reported draft, or the lane again |
    | `escape` | Back to triage |
    """

    BINDINGS = BINDINGS
    DEFAULT_CSS = """
    HeldBackScreen #held-back-main { height: 1fr; }
    HeldBackScreen #held-back-list {
        width: 40%; min-width: 30; height: 1fr; border: round $primary 50%;
    }
    HeldBackScreen #held-back-detail {
        width: 1fr; border: round $accent 50%; padding: 0 1;
    }
    """

    items: var[list[HeldBackItem] | None] = var(None, init=False, always_update=True)
    """The drafts listed (``None`` until the first read)."""
    everything: var[bool] = var(False, init=False)
    """List every reported draft, not only the lane."""

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="held-back-main"):
            table: DataTable[object] = DataTable(id="held-back-list", cursor_type="row")
            table.border_title = "held back"
            yield table
            with VerticalScroll(id="held-back-detail"):
                yield Static("loading…", id="held-back-body")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("state", "kind", "draft")
        table.focus()
        self.reload()

    @property
    def current(self) -> HeldBackItem | None:
        """The highlighted draft."""
        items = self.items or []
        row = self.query_one(DataTable).cursor_row
        return items[row] if 0 <= row < len(items) else None

    def reload(self) -> None:
        """Read the lane (or every draft) again."""
        everything = self.everything
        run_service(
            self,
            lambda s: s.held_back_lane(everything=everything),
            group="held-back",
            done=self._loaded,
        )

    def _loaded(self, items: list[HeldBackItem]) -> None:
        keep = self.current.id if self.current else None
        self.items = items
        table = self.query_one(DataTable)
        table.clear()
        for item in items:
            table.add_row(*row_cells(item), key=item.id)
        ids = [i.id for i in items]
        if keep in ids:
            table.move_cursor(row=ids.index(keep))
        what = "all reported" if self.everything else "lane"
        table.border_title = f"held back · {what} · {len(items)}"
        self._show()

    def _show(self) -> None:
        body = self.query_one("#held-back-body", Static)
        item = self.current
        body.update(render_item(item) if item is not None else EMPTY)
        self.refresh_bindings()

    @on(DataTable.RowHighlighted)
    def _highlighted(self, _message: DataTable.RowHighlighted) -> None:
        self._show()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        item = self.current if self.items is not None else None
        session = session_of(self)
        if action == "verdict":
            return item is not None and item.verdict is None and session.can("decide_held_back")
        if action == "undo":
            return item is not None and item.verdict is not None and session.can("undo_own")
        return True

    def action_verdict(self, verdict: str) -> None:
        """Record a verdict on the highlighted draft."""
        item = self.current
        if item is None or item.verdict is not None:
            return
        hid = item.id
        run_service(
            self,
            lambda s: s.decide_held_back(hid, verdict),
            group="held-back-decide",
            done=self._decided,
        )

    def _decided(self, done: dict[str, object]) -> None:
        queued = (
            f"; queued as {one_line(str(done['proposal_id']), 44)}" if done["proposal_id"] else ""
        )
        said = str(done["verdict"]).replace("_", " ")
        self.notify(f"{said}: {one_line(str(done['held_back_id']), 40)}{queued}", markup=False)
        self.reload()

    def action_undo(self) -> None:
        """Undo the highlighted draft's verdict exactly."""
        item = self.current
        if item is None or item.verdict is None:
            return
        hid = item.id
        run_service(
            self, lambda s: s.undo_held_back(hid), group="held-back-decide", done=self._undone
        )

    def _undone(self, done: dict[str, object]) -> None:
        self.notify(f"undone: {one_line(str(done['held_back_id']), 40)}", markup=False)
        self.reload()

    def action_toggle_all(self) -> None:
        """Every reported draft, or the lane again."""
        self.everything = not self.everything
        self.reload()

    def action_cursor(self, step: int) -> None:
        """Move the cursor."""
        table = self.query_one(DataTable)
        table.move_cursor(row=max(0, table.cursor_row + step))

    def action_back(self) -> None:
        """Back to triage."""
        self.dismiss(None)
