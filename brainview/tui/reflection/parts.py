"""The reflection view's widgets that own what they show: the text (folded or whole)
and the FSRS card."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from rich.console import RenderableType
from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from brainview.tui.reflection.render import render_card, render_content

if TYPE_CHECKING:
    from brainview.services.communities.curves import ReflectionDetail


class ReflectionText(Static):
    """The reflection's text, ``[user:…]`` resolved inline, folded after a limit."""

    DEFAULT_CSS = """
    ReflectionText { height: auto; }
    """

    # always_update: a detail holds numpy arrays, which do not compare to one bool.
    detail: reactive[ReflectionDetail | None] = reactive(None, layout=True, always_update=True)
    """The reflection shown (``None``: loading)."""
    show_all: reactive[bool] = reactive(False, layout=True)
    """Whether the whole text shows (``m``), not only its start."""
    error: reactive[str] = reactive("", layout=True)
    """One line when reading failed."""

    def render(self) -> RenderableType:
        if self.error:
            return Text(self.error, style="bold")
        if self.detail is None:
            return Text("loading…", style="dim italic")
        return render_content(self.detail.neuron.content, self.detail.refs, show_all=self.show_all)


class FsrsCard(Static):
    """Identity, lifecycle state, FSRS card, crossing day, community, fading decision."""

    DEFAULT_CSS = """
    FsrsCard { height: auto; }
    """

    detail: reactive[ReflectionDetail | None] = reactive(None, layout=True, always_update=True)
    """The reflection whose card shows (``None``: loading)."""
    now: datetime | None = None
    """The clock reading the card's relative days count from."""

    def render(self) -> RenderableType:
        if self.detail is None or self.now is None:
            return Text("")
        return render_card(self.detail, self.now)


class References(Static):
    """One line per user neuron the reflection cites: mark, id, title, domain."""

    DEFAULT_CSS = """
    References { height: auto; }
    """
