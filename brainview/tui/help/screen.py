"""The help modal: every key in effect below it (remaps included), then the guide."""

from __future__ import annotations

from collections.abc import Iterator

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.dom import DOMNode
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Markdown, Static

from brainview.tui.access import brainview_app
from brainview.tui.help.guide import keys_label, render_guide


class HelpScreen(ModalScreen[None]):
    """Effective keys for the screen below plus the guide.

    Both come from the bindings and the user's ``[keys]``; nothing here is typed by
    hand (``docs/keys.md`` is generated the same way).
    """

    BINDINGS = [
        Binding(
            "escape,f1,q,question_mark",
            "close",
            "Close",
            id="help.close",
            tooltip="Back to the screen below",
        )
    ]

    def __init__(self, below: Screen[object]) -> None:
        super().__init__()
        self.below = below

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box"):
            yield Static("Keys here", classes="pane-title")
            yield DataTable(id="help-keys", cursor_type="none", show_cursor=False)
            yield Markdown(render_guide(self.effective_keys()), id="help-guide")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("key", "action", "what it does")
        for keys, binding in self.keys_here():
            table.add_row(
                keys_label(keys), binding.description or binding.action, binding.tooltip or ""
            )

    def effective_keys(self) -> dict[str, str]:
        """Binding id → the keys it answers to now, for every binding brainview has."""
        from brainview.tui.keymap import known_ids

        remap = brainview_app(self).config.keys
        return {bid: remap.get(bid, keys) for bid, keys in known_ids().items()}

    def keys_here(self) -> Iterator[tuple[str, Binding]]:
        """(effective keys, binding) for the focused widget's chain, the screen below
        and the app, each binding id once (a hidden twin shares its verb's id)."""
        remap = brainview_app(self).config.keys
        seen: set[str] = set()
        for node in (*self._focus_chain(), self.below, self.app):
            widget = node not in (self.below, self.app)
            for binding in node.BINDINGS:
                if not isinstance(binding, Binding) or (binding.id or binding.action) in seen:
                    continue
                if widget and not binding.id:  # a stock widget's own keys (Input, tables)
                    continue
                seen.add(binding.id or binding.action)
                yield remap.get(binding.id or "", binding.key), binding

    def _focus_chain(self) -> list[DOMNode]:
        """The focused widget and its containers below the screen: a widget that owns
        bindings (the recall box) has its keys listed too."""
        chain: list[DOMNode] = []
        node: DOMNode | None = self.below.focused
        while node is not None and node is not self.below:
            chain.append(node)
            node = node.parent
        return chain

    def action_close(self) -> None:
        """Back to the screen below."""
        self.dismiss(None)
