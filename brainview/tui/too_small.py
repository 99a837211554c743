"""A notice instead of a broken layout when the terminal is too small."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.screen import ModalScreen
from textual.widgets import Static

MIN_WIDTH, MIN_HEIGHT = 60, 16


class TooSmallScreen(ModalScreen[None]):
    """Shown while the terminal is smaller than the minimum; dismissed on growth."""

    def compose(self) -> ComposeResult:
        yield Static(
            f"Terminal too small.\nbrainview needs at least {MIN_WIDTH}×{MIN_HEIGHT}.\n"
            "Enlarge the window (q or ctrl+q quits).",
            id="too-small",
        )
