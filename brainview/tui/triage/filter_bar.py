"""The queue's filter box.

``enter`` hands the keys to the queue, but text typed on after it is still meant for
the box: unless the maintainer first moves or marks (``j``/``k``, arrows, ``space``), a
printable key goes back into the box instead of firing the queue's binding, so no
decision key (``a``, ``r``, ``d``) can fire from text meant for the filter.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.widgets import Input


class FilterBar(Input):
    """The queue's filter: words, a kind or an id; ``escape`` clears it (the screen's
    ``escape`` does the same when the table has the focus)."""

    BINDINGS = [
        Binding("escape", "clear_filter", "Clear filter", id="triage.filter_clear", show=False)
    ]

    MOVES = frozenset({"j", "k", "space"})
    """Printable keys that move the cursor or mark a row (never a decision): pressing
    one first after ``enter`` ends typing-on."""

    def __init__(self, *, placeholder: str = "", id: str | None = None) -> None:
        # Not selected on focus: text typed on after enter extends the filter.
        super().__init__(placeholder=placeholder, id=id, select_on_focus=False)
        self.typing_on = False
        """``enter`` just left the box: a printable key still belongs to it."""

    def take_back(self, event: events.Key) -> bool:
        """Whether ``event`` (a key pressed on the queue) went back into the box: a
        printable key that is not a move, right after ``enter`` left the box."""
        if not self.typing_on:
            return False
        if event.is_printable and event.character and event.key not in self.MOVES:
            self.focus()
            self.insert_text_at_cursor(event.character)
            return True
        self.typing_on = False  # the maintainer moved on: keys are the queue's again
        return False

    def on_focus(self) -> None:
        self.typing_on = False

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
        self.typing_on = False
        self.post_message(self.Cleared(self))
