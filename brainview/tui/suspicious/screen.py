"""The suspicious view (see :mod:`brainview.tui.suspicious`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import DataTable, Header, Static

from brainview.core.safe_text import one_line, safe_text
from brainview.core.vocabulary import GLYPH
from brainview.tui.footer import Footer
from brainview.tui.workers import WorkFailed, run_service

if TYPE_CHECKING:
    from brainview.services.influence.suspects import Suspect
    from brainview.services.session import Session

SHOWN = 500
"""Rows in the table (the ranking is computed whole; the table shows its head)."""
ORDERS = {"rank": "influence × suspicion", "influence": "influence"}


class SuspiciousScreen(Screen[None]):
    """Lessons worth a second look, most dangerous first.

    | Key | Action |
    |-----|--------|
    | `escape` | Back |
    | `enter` | Open the reflection |
    | `o` | Order by influence × suspicion / by influence |
    | `ctrl+r` | Read again |
    """

    DEFAULT_CSS = """
    SuspiciousScreen DataTable { height: 1fr; }
    SuspiciousScreen #suspicious-reasons {
        height: auto; max-height: 40%; border-top: solid $primary; padding: 0 1;
    }
    """
    BINDINGS = [
        Binding(
            "escape,backspace", "back", "Back", id="suspicious.back", tooltip="Previous screen"
        ),
        Binding("enter", "open", "Open", id="suspicious.open", tooltip="The reflection view"),
        Binding("o", "order", "Order", id="suspicious.order", tooltip="Rank or influence"),
        Binding("ctrl+r,f5", "reload", "Reload", id="suspicious.reload", tooltip="Read again"),
    ]

    order: var[str] = var("rank")
    """``rank`` (influence × suspicion) or ``influence``."""
    suspects: var[list[Suspect] | None] = var(None, always_update=True)
    """What was read last (``None``: loading)."""

    def compose(self) -> ComposeResult:
        yield Header()
        table: DataTable[Text] = DataTable(id="suspicious-table", cursor_type="row")
        table.border_title = "suspicious lessons"
        yield table
        yield Static(Text("loading…", style="dim italic"), id="suspicious-reasons")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        for label, key in (("rank", "rank"), ("infl", "influence"), ("signals", "kinds"),
                           ("lesson", "lesson")):  # fmt: skip
            table.add_column(label, key=key)
        self.sub_title = f"by {ORDERS[self.order]}"
        self.call_after_refresh(self.action_reload)

    def action_reload(self) -> None:
        """Rank the lessons again (one pass over the agent brain, in a thread)."""

        def read(session: Session) -> list[Suspect]:
            from brainview.services.influence import settings_of
            from brainview.services.influence.suspects import suspects

            with session.project() as project:
                if project.agent is None:
                    return []
                return suspects(project, settings_of(session.config.signals))

        run_service(self, read, group="suspicious-load", done=self._loaded)

    def _loaded(self, found: list[Suspect]) -> None:
        self.suspects = found

    def watch_suspects(self) -> None:
        self._fill()

    def watch_order(self) -> None:
        self.sub_title = f"by {ORDERS[self.order]}"
        self._fill()

    def _rows(self) -> list[Suspect]:
        rows = list(self.suspects or [])
        if self.order == "influence":
            rows.sort(key=lambda x: (-x.influence.score, -x.rank, x.id))
        return rows[:SHOWN]

    def _fill(self) -> None:
        if not self.is_mounted:
            return
        table = self.query_one(DataTable)
        table.clear()
        for x in self._rows():
            kinds = ",".join(dict.fromkeys(s.kind for s in x.signals))
            table.add_row(
                Text(f"{x.rank:.1f}"), Text(str(x.influence.score)), Text(kinds),
                safe_text(one_line(x.preview, 90)), key=x.id,
            )  # fmt: skip
        if self.suspects is not None and not self.suspects:
            self._say(Text("no lesson carries a suspicion signal"))
        elif self.suspects is not None:
            self._show(0)

    def _say(self, text: Text) -> None:
        self.query_one("#suspicious-reasons", Static).update(text)

    def _show(self, row: int) -> None:
        rows = self._rows()
        if not 0 <= row < len(rows):
            return
        x = rows[row]
        out = Text(f"{one_line(x.id, 40)} · influence {x.influence.score} · ", style="bold")
        out.append(f"suspicion {x.suspicion:.1f}\n")
        for sig in x.signals:
            out.append(f"{GLYPH['flagged']} ")
            out.append_text(safe_text(one_line(sig.reason, 300)))
            out.append("\n")
        out.rstrip()
        self._say(out)

    @on(DataTable.RowHighlighted)
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show(event.cursor_row)

    @on(DataTable.RowSelected)
    def _selected(self) -> None:
        self.action_open()

    @on(WorkFailed)
    def _failed(self, message: WorkFailed) -> None:
        if message.group == "suspicious-load":
            self._say(Text(message.text, style="bold"))

    def action_open(self) -> None:
        """Open the highlighted lesson in the reflection view."""
        rows = self._rows()
        row = self.query_one(DataTable).cursor_row
        if 0 <= row < len(rows):
            self.app.open_reflection(rows[row].id)  # type: ignore[attr-defined]

    def action_order(self) -> None:
        """Switch between influence × suspicion and influence alone."""
        self.order = "influence" if self.order == "rank" else "rank"

    def action_back(self) -> None:
        """Back to the screen underneath."""
        self.dismiss(None)
