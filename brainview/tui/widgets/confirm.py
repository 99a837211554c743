"""A modal that asks before a consequential step (a flagged accept, an undo of a
decision this session did not take); nothing is written unless it is confirmed."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from brainview.core.safe_text import safe_text

MAX_LINES = 12


class ConfirmScreen(ModalScreen[bool]):
    """Ask a yes/no question; dismisses with ``True`` only on confirm.

    | Key | Action |
    |-----|--------|
    | `y`, `enter` | Confirm |
    | `n`, `escape` | Cancel: nothing is written |
    """

    BINDINGS = [
        Binding("y,enter", "confirm", "Confirm", id="confirm.yes", tooltip="Go ahead"),
        Binding("n,escape", "cancel", "Cancel", id="confirm.cancel", tooltip="Write nothing"),
    ]

    def __init__(self, title: str, lines: Sequence[str], *, verb: str = "confirm") -> None:
        super().__init__()
        self._title = title
        self._lines = list(lines)
        self._verb = verb

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="confirm-box"):
            yield Label(self._title, id="confirm-title", markup=False)
            body = Text()
            for n, line in enumerate(self._lines[:MAX_LINES]):  # brain text: inert
                body.append("\n" if n else "")
                body.append_text(safe_text(line, multiline=False, limit=240))
            if len(self._lines) > MAX_LINES:
                body.append(f"\n… {len(self._lines) - MAX_LINES} more")
            yield Static(body, id="confirm-body")
            yield Label(f"y / enter: {self._verb} · n / escape: cancel", classes="hint")

    def action_confirm(self) -> None:
        """Go ahead."""
        self.dismiss(True)

    def action_cancel(self) -> None:
        """Close; nothing is written."""
        self.dismiss(False)
