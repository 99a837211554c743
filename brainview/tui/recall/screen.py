"""Recall: the lessons the agent brain holds for some words, some user neurons or the
proposal under review, ranked, each with why — the :class:`RecallBox` on a screen.

Opened with ``l`` from the communities screen (free text) and from triage (prefilled
with the highlighted proposal's draft: kind, params, rationale).  Choosing a hit opens
the reflection view; ``escape`` goes back.  Nothing is logged or graded.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Header, Input

from brainview.tui.access import brainview_app
from brainview.tui.footer import Footer
from brainview.tui.recall.box import RecallBox
from brainview.tui.styles_dir import STYLES

if TYPE_CHECKING:
    from brainview.services.recall.browse import ProposalDraft


class RecallScreen(Screen[None]):
    """Browse what recall would bring a curator, and why.

    | Key | Action |
    |-----|--------|
    | `enter` | Recall / open the highlighted lesson |
    | `ctrl+t` | Use the proposal under review / drop it |
    | `ctrl+r` | Recall again |
    | `escape` | Back |
    """

    CSS_PATH = [STYLES / "recall.tcss"]
    BINDINGS = [
        Binding("escape", "back", "Back", id="recall.back", tooltip="Previous screen"),
        Binding("ctrl+r,f5", "again", "Again", id="recall.again", tooltip="Recall again"),
    ]

    def __init__(
        self, draft: ProposalDraft | None = None, offer: ProposalDraft | None = None
    ) -> None:
        super().__init__()
        self._draft = draft
        self._offer = offer or draft

    def compose(self) -> ComposeResult:
        yield Header()
        yield RecallBox(id="recall-box")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = "recall (read-only)"
        box = self.query_one(RecallBox)
        box.offer = self._offer
        box.draft = self._draft
        box.query_one(Input).focus()
        if self._draft is not None:
            box.recall()

    @property
    def box(self) -> RecallBox:
        """The recall box."""
        return self.query_one(RecallBox)

    @on(RecallBox.Chosen)
    def _open(self, message: RecallBox.Chosen) -> None:
        brainview_app(self).open_reflection(message.reflection_id)

    def action_again(self) -> None:
        """Recall again (the agent brain may have changed)."""
        self.box.recall()

    def action_back(self) -> None:
        """Back to the screen underneath."""
        self.dismiss(None)
