"""Edit a policy's text before accepting it (a modal with a text area).

The draft arrives as plain text and is edited as plain text: ``TextArea`` never
interprets markup, and what the maintainer types is stored as the policy neuron's
content verbatim — except that ``[user:…]`` references are shown as ``⟦title⟧``
(:mod:`brainview.core.ref_tokens`) and stored back as the exact references.
"""

from __future__ import annotations

from collections.abc import Mapping

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, TextArea

from brainview.core.kinds_agent import MAX_POLICY_TEXT
from brainview.core.ref_tokens import shown_text, stored_text
from brainview.core.safe_text import clean, one_line


class PolicyEditor(ModalScreen[str | None]):
    """Dismisses with the edited text (accept with it) or ``None`` (cancel).

    | Key | Action |
    |-----|--------|
    | `ctrl+s` | Accept the policy with this text |
    | `ctrl+a` | Select all (type to replace the draft) |
    | `escape` | Cancel (nothing decided) |
    """

    BINDINGS = [
        Binding(
            "ctrl+s",
            "save",
            "Accept with this text",
            id="policy.accept",
            tooltip="Accept the policy proposal with the edited text",
            priority=True,
        ),
        Binding(
            "ctrl+a",
            "select_all",
            "Select all",
            id="policy.select_all",
            tooltip="Select the whole text (type to replace it)",
            priority=True,
        ),
        Binding("escape", "cancel", "Cancel", id="policy.cancel", tooltip="Close, decide nothing"),
    ]

    def __init__(self, policy_id: str, draft: str, titles: Mapping[str, str] | None = None) -> None:
        super().__init__()
        self._policy_id = policy_id
        self._draft = draft
        # Shown cleaned: a TextArea passes control characters to the terminal as is.
        self._shown, self._tokens = shown_text(clean(draft), titles or {})

    def compose(self) -> ComposeResult:
        with Vertical(id="policy-box"):
            title = f"Edit policy {one_line(self._policy_id, 40)}, then accept it"
            yield Label(title, id="policy-title", markup=False)
            yield TextArea(self._shown, id="policy-text", soft_wrap=True, show_line_numbers=False)
            yield Label(
                "ctrl+s accepts with this text · ctrl+a selects all · escape cancels",
                classes="hint",
                markup=False,
            )

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()

    def action_save(self) -> None:
        """Accept with the text as it stands (refused when empty or too long)."""
        edited = self.query_one(TextArea).text
        text = stored_text(clean(edited), self._tokens)  # pasted controls: inert
        if not text.strip():
            self.notify("A policy needs some text.", severity="warning")
            return
        if len(text) > MAX_POLICY_TEXT:
            self.notify(f"At most {MAX_POLICY_TEXT} characters.", severity="warning")
            return
        self.dismiss(text)

    def action_select_all(self) -> None:
        """Select the whole text."""
        self.query_one(TextArea).select_all()

    def action_cancel(self) -> None:
        """Close without deciding."""
        self.dismiss(None)
