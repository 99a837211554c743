"""The detail panes of triage: the proposal and its change, the agent side (what each
verdict grades), the user neurons it names.

Each pane owns what it shows as a reactive ``detail`` and redraws itself when it
changes; the screen only hands details over.  A new proposal scrolls each pane home.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from rich.console import Console, RenderableType
from rich.segment import Segment
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.reactive import var
from textual.widgets import Static

from brainview.tui.triage.render_agent import render_agent_side
from brainview.tui.triage.render_proposal import render_header, render_user_side

if TYPE_CHECKING:
    from brainview.services.review.detail import ProposalDetail

_MEASURE = Console(width=80, color_system="truecolor", force_terminal=True, record=False)
"""Renders a pane's content off screen to compare it with what is shown."""


def _lines(renderable: RenderableType, width: int) -> list[list[Segment]]:
    """``renderable`` as lines of segments at ``width``."""
    return _MEASURE.render_lines(renderable, _MEASURE.options.update_width(width), pad=False)


EMPTY = "Nothing pending. New proposals appear here as the curator sends them."


class _Body(Static):
    """A pane's text."""


class DetailPane(VerticalScroll):
    """A scrolling pane that shows one aspect of the current proposal."""

    ALLOW_MAXIMIZE = True

    detail: var[ProposalDetail | None] = var(None, init=False, always_update=True)
    """The proposal shown (``None``: nothing to show)."""

    placeholder: var[str] = var("", init=False)
    """Shown, dim, while there is no detail (``loading…``, an empty queue)."""

    def __init__(self, *, id: str, body_id: str, title: str = "") -> None:
        super().__init__(id=id)
        self._body_id = body_id
        self.border_title = title
        self._shown: str | None = None
        self._rendered: ProposalDetail | None = None
        self._lines: tuple[int, list[list[Segment]]] | None = None
        """The shown detail's lines at a width (measured once it is read again)."""
        """The detail the body shows (a value equal to it is not rendered again)."""

    def compose(self) -> ComposeResult:
        yield _Body("", id=self._body_id)

    @property
    def body(self) -> Static:
        """The pane's text widget."""
        return self.query_one(_Body)

    def render_detail(self, detail: ProposalDetail) -> RenderableType:
        """What this pane shows for ``detail``."""
        raise NotImplementedError

    def view(self, detail: ProposalDetail) -> object:
        """The part of ``detail`` this pane's text depends on (equal: nothing to draw)."""
        return detail

    def watch_detail(self, detail: ProposalDetail | None) -> None:
        if detail is None:
            self._shown, self._rendered, self._lines = None, None, None
            self.body.update(Text(self.placeholder, style="dim italic"))
            return
        old, self._rendered = self._rendered, detail
        if old is not None and old.id == detail.id and self.view(old) == self.view(detail):
            return  # read again, nothing this pane shows moved (a decision elsewhere)
        renderable = self.render_detail(detail)
        width = self.body.size.width
        if old is not None and old.id == detail.id == self._shown and width > 0:
            # The same proposal read again: a decision elsewhere moved something
            # (often only another pane's part).  Draw only if what this pane shows
            # changed, and lay the screen out again only if its height changed: each
            # console of a team re-reads at every decision anyone makes.
            known = self._lines
            before = known[1] if known and known[0] == width else None
            if before is None:
                before = _lines(self.render_detail(old), width)
            seen = _lines(renderable, width)
            self._lines = (width, seen)
            if seen != before:
                self.body.update(renderable, layout=len(seen) != len(before))
            return
        self._lines = None
        self.scroll_home(animate=False)  # a new proposal: from the top
        self._shown = detail.id
        self.body.update(renderable)

    def watch_placeholder(self, text: str) -> None:
        if self.detail is None:
            self.body.update(Text(text, style="dim italic"))


class ProposalPane(DetailPane):
    """Kind, summary, flags, rationale and the change table."""

    def __init__(self) -> None:
        super().__init__(id="triage-proposal", body_id="proposal", title="proposal")

    def render_detail(self, detail: ProposalDetail) -> RenderableType:
        return render_header(detail)

    def view(self, detail: ProposalDetail) -> object:
        # of the lessons, only which are not live (the "leans on" line): a grade
        # fired elsewhere moves their cards, not this pane
        leans = tuple((v.id, v.state) for v in detail.consulted)
        return replace(detail, consulted=[], retrieved=[]), leans


class AgentPane(DetailPane):
    """The consulted reflections: what accept and reject would grade, all at once."""

    annotate_grade: var[int | None] = var(None, init=False)
    """The grade an ``annotate`` stance gets (config ``review.annotate_grade``)."""

    def __init__(self) -> None:
        super().__init__(id="triage-agent", body_id="reflections", title="agent brain · lessons")

    def render_detail(self, detail: ProposalDetail) -> RenderableType:
        return render_agent_side(detail, self.annotate_grade)


class UserPane(DetailPane):
    """The user neurons the proposal names (for a consolidation item: review aids)."""

    def __init__(self) -> None:
        super().__init__(id="triage-user", body_id="user-neurons", title="user brain")

    def render_detail(self, detail: ProposalDetail) -> RenderableType:
        self.border_title = "review" if detail.agent_item is not None else "user brain"
        return render_user_side(detail)

    def view(self, detail: ProposalDetail) -> object:
        return replace(detail, consulted=[], retrieved=[])  # the lessons are not shown here
