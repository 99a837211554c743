"""The queue's filter box.

``enter`` hands the keys to the queue, but text typed on after it is still meant for
the box: the first key after ``enter``, when it is bound to nothing or to a decision
(``a``, ``r``, ``d``, ``E``, ``u``, ``s``), goes back into the box as a letter (and the
rest of the word with it), so no decision fires from text meant for the filter.  A
move (``j``/``k``, ``space``, an arrow) or another verb (``w``, ``z``…) acts at once.
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
    """Printable keys that move the cursor or mark a row: pressing one ends typing-on."""
    DECISIONS = frozenset({"accept", "reject", "dismiss_proposal", "edit_policy", "undo", "skip"})
    """Actions that decide (or pass a proposal by): their keys, after ``enter``, are text."""

    def __init__(self, *, placeholder: str = "", id: str | None = None) -> None:
        # Not selected on focus: text typed on after enter extends the filter.
        super().__init__(placeholder=placeholder, id=id, select_on_focus=False)
        self.typing_on = False
        """``enter`` just left the box: a decision key still belongs to it."""

    def take_back(self, event: events.Key, action: str | None) -> bool:
        """Whether ``event`` (a key pressed on the queue, bound to ``action``) went back
        into the box.  Right after ``enter`` left it, a printable key that is bound to
        nothing, or to a decision or a skip, is the next letter of the filter; a move
        (``j``, ``k``, ``space``, an arrow) or another verb (``w``, ``z``…) is the
        queue's, and ends this."""
        if not self.typing_on:
            return False
        text = event.is_printable and event.character and event.key not in self.MOVES
        if text and (action is None or action in self.DECISIONS):
            self.focus()
            self.insert_text_at_cursor(event.character or "")
            return True
        self.typing_on = False  # the maintainer moved on: keys are the queue's
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
