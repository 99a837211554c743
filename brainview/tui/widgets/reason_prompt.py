"""A small modal that asks for an optional reason (reject) or a required one."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label


class ReasonPrompt(ModalScreen[str | None]):
    """Ask for a reason; dismisses with the text (maybe empty) or ``None`` on cancel.

    | Key | Action |
    |-----|--------|
    | `enter` | Confirm |
    | `escape` | Cancel |
    """

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="prompt.cancel")]

    def __init__(
        self, title: str, *, required: bool = False, placeholder: str | None = None
    ) -> None:
        super().__init__()
        self._title = title
        self._required = required
        self._placeholder = placeholder

    def compose(self) -> ComposeResult:
        with Vertical(id="prompt-box"):
            yield Label(self._title, id="prompt-title", markup=False)
            yield Input(
                placeholder=self._placeholder
                or ("reason (required)" if self._required else "reason (optional)"),
                id="prompt-input",
            )
            yield Label("enter to confirm · escape to cancel", classes="hint", markup=False)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        value = event.value.strip()
        if self._required and not value:
            self.notify("A reason is required.", severity="warning")
            return
        self.dismiss(value)

    def action_cancel(self) -> None:
        """Close without deciding."""
        self.dismiss(None)
