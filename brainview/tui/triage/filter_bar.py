"""The queue's filter box."""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding
from textual.message import Message
from textual.widgets import Input


class FilterBar(Input):
    """The queue's filter: words, a kind or an id; ``escape`` clears it (the screen's
    ``escape`` does the same when the table has the focus)."""

    BINDINGS = [
        Binding("escape", "clear_filter", "Clear filter", id="triage.filter_clear", show=False)
    ]

    @dataclass
    class Cleared(Message):
        """The maintainer cleared the filter from the bar."""

        bar: FilterBar

        @property
        def control(self) -> FilterBar:
            """The bar that was cleared."""
            return self.bar

    def action_clear_filter(self) -> None:
        """Empty the box and give the queue the whole list back."""
        self.post_message(self.Cleared(self))
