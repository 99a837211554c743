"""The footer every brainview screen docks: never cut mid-word.

Textual's footer lays every shown binding in one row and lets the row run off the
right edge ("^q Qui▏").  This one shows only the keys that fit whole, in the screen's
declared binding order (a remapped key keeps its place), keeping the help key (which
lists everything else) always in view.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.cells import cell_len
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Footer as TextualFooter
from textual.widgets._footer import FooterKey

if TYPE_CHECKING:
    from textual.screen import Screen

HELP_ACTIONS = frozenset({"help", "app.help"})
"""The binding kept in view whatever the width: it lists every key."""
PALETTE_CELLS = 12
"""Room kept on the right for the palette key (``▏^p palette`` and its padding)."""


def _cells(key: FooterKey) -> int:
    """Cells a footer key takes: the key padded by one each side, then its description
    and one space (Textual's ``FooterKey`` padding)."""
    return cell_len(key.key_display) + 2 + (cell_len(key.description) + 1 if key.description else 0)


class Footer(TextualFooter):
    """A footer showing the keys that fit whole; ``?`` lists the rest."""

    def __init__(self, *, show_command_palette: bool = True) -> None:
        super().__init__(show_command_palette=show_command_palette)
        self._width = 0
        self._shown: tuple[object, ...] | None = None
        """What the keys showed when last composed (``None``: not composed yet)."""

    def bindings_changed(self, screen: Screen) -> None:
        """Recompose only when the keys the footer would show changed.

        Textual recomposes the footer on every ``refresh_bindings()``; triage refreshes
        its bindings several times per decision (the queue, the marks, the panes), and
        rebuilding a dozen footer keys each time was most of a decision's CPU in the
        console (ten people on one server run ten consoles on a few cores)."""
        shown = _signature(screen)
        ready = screen.app.app_focus and self.is_attached and screen is self.screen
        if ready and shown == self._shown:
            self._bindings_ready = True
            return
        if ready:
            self._shown = shown
        super().bindings_changed(screen)

    def compose(self) -> ComposeResult:
        items = list(super().compose())
        palette = [i for i in items if i.has_class("-command-palette")]
        keys = [i for i in items if isinstance(i, FooterKey) and i not in palette]
        # In declared order: a key remapped in [keys] comes last in Textual's active
        # bindings, and would be the first to drop off a narrow footer.
        order = _declared(self.screen)
        keys.sort(key=lambda k: order.get(k.action, len(order)))
        room = (self._width or self.app.size.width) - (PALETTE_CELLS if palette else 0)
        keep = [k for k in keys if k.action in HELP_ACTIONS][:1]
        room -= sum(_cells(k) for k in keep)
        for key in keys:
            if key in keep:
                continue
            if _cells(key) > room:
                break
            keep.append(key)
            room -= _cells(key)
        yield from (k for k in keys if k in keep)
        yield from palette

    def on_resize(self, event: events.Resize) -> None:
        """Refit on a new width (the keys that fit change)."""
        if event.size.width != self._width:
            self._width = event.size.width
            self.call_after_refresh(self.recompose)


def _declared(screen: Screen) -> dict[str, int]:
    """Action → its place among the screen's declared bindings (review verbs first)."""
    order: dict[str, int] = {}
    for n, b in enumerate(getattr(screen, "BINDINGS", [])):
        if isinstance(b, Binding):
            order.setdefault(b.action, n)
    return order


def _signature(screen: Screen) -> tuple[object, ...]:
    """Everything about the screen's active bindings a footer key shows."""
    return tuple(
        (key, b.binding.action, b.binding.description, b.binding.key_display, b.binding.show)
        + (b.enabled, b.tooltip)
        for key, b in screen.active_bindings.items()
    )
