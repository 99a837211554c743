"""The blast radius as marks: one option per pending proposal (flag it stale), decided
proposal (shown, not markable) and neighbour (invalidate / challenge it too).

Every text from a brain is shown inert; ``[user:…]`` references read ``⟦title⟧`` like
everywhere else (the stored text stays exact).  Marks never rely on colour: the box of
each option reads ``▸`` (marked), blank, or ``–`` (not markable).
"""

from __future__ import annotations

from rich.segment import Segment
from rich.text import Text
from textual.strip import Strip
from textual.widgets import SelectionList
from textual.widgets._toggle_button import ToggleButton
from textual.widgets.option_list import OptionDoesNotExist
from textual.widgets.selection_list import Selection

from brainview.core.refs import name_refs
from brainview.core.safe_text import first_line, one_line, safe_text
from brainview.core.vocabulary import GLYPH, STATUS_MARK
from brainview.services.lifecycle import RETIRED
from brainview.services.lifecycle.blast import BlastRadius, ProposalHit
from brainview.tui.widgets.suspicion import state_mark

RETIRED_REF = "⊘ retired"
"""How a retired user neuron reads inside ``⟦…⟧`` (the legend's glyph)."""
Titles = dict[str, tuple[str, bool]]


def named(text: str, titles: Titles) -> str:
    """``text`` with its ``[user:…]`` references named (for display only)."""
    return name_refs(text or "", titles, retired=RETIRED_REF)


def movable(verb: str) -> tuple[str, ...]:
    """The states ``verb`` can move a reflection out of."""
    if verb == "challenge":
        return ("live",)
    if verb == "quarantine":
        return ("live", "challenged")
    return ("live", "challenged", "quarantined", "retired")


def by_proposal(hits: list[ProposalHit]) -> dict[str, list[ProposalHit]]:
    """Hits grouped by proposal, in first-seen order."""
    out: dict[str, list[ProposalHit]] = {}
    for h in hits:
        out.setdefault(h.proposal_id, []).append(h)
    return out


def proposal_text(hits: list[ProposalHit], titles: Titles) -> Text:
    """One proposal of the radius: kind, the roles it gave the targets, summary (user
    neurons named), who decided; its id last and dim (for `proposals show`)."""
    h = hits[0]
    stances = ", ".join(sorted({f"{x.role}/{x.stance or 'support'}" for x in hits}))
    line = Text(f"{one_line(h.kind, 16)} ({stances})  ")
    line.append_text(safe_text(named(h.summary, titles), multiline=False, limit=80))
    if h.decider:
        line.append(f"  by {one_line(h.decider, 24)}", style="dim")
    line.append(f"  · {one_line(h.proposal_id, 28)}", style="dim")  # for `proposals show`
    return line


def radius_options(radius: BlastRadius, verb: str, titles: Titles) -> list[Selection[str]]:
    """The options of the marks list (values ``p:``, ``d:``, ``n:`` + id)."""
    flagged = set(radius.default_flags())
    options: list[Selection[str]] = []
    for pid, hits in by_proposal(radius.pending).items():
        text = Text("flag stale  ", style="bold").append_text(proposal_text(hits, titles))
        options.append(Selection(text, f"p:{pid}", pid in flagged))
    for pid, hits in by_proposal(radius.decided).items():
        text = Text(STATUS_MARK.get(hits[0].status, hits[0].status) + "  ", style="dim")
        text.append_text(proposal_text(hits, titles))
        options.append(Selection(text, f"d:{pid}", disabled=True))
    for n in radius.neighbours:
        usable = n.state in movable(verb) and n.state != RETIRED
        head = Text("policy  " if n.is_policy else "neighbour  ", style="bold")
        mark = state_mark(n.state)
        if mark.plain:
            head.append_text(mark).append(" ")
        head.append_text(safe_text(first_line(named(n.content, titles), 60), multiline=False))
        head.append(f" · {one_line('; '.join(n.relations), 80)}")
        head.append(f" · {one_line(n.neuron_id, 24)}", style="dim")
        options.append(Selection(head, f"n:{n.neuron_id}", disabled=not usable))
    return options


def radius_summary(radius: BlastRadius) -> Text:
    """``blast radius: 2 pending, 3 decided proposal(s), 4 neighbour(s) — space marks``."""
    more = f" · {radius.more_neighbours} more not shown" if radius.more_neighbours else ""
    return Text(
        f"blast radius: {len(by_proposal(radius.pending))} pending, "
        f"{len(by_proposal(radius.decided))} decided proposal(s), "
        f"{len(radius.neighbours)} neighbour(s){more} — space marks",
        style="bold",
    )


class MarkList(SelectionList[str]):
    """A selection list whose box reads ``▸`` (marked), blank, or ``–`` (not markable),
    so a mark never relies on colour alone."""

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        segments = list(strip)
        try:
            option = self.get_option_at_index(self.scroll_offset.y + y)
        except OptionDoesNotExist:
            return strip
        if len(segments) < 2 or segments[1].text != ToggleButton.BUTTON_INNER:
            return strip
        mark = (
            GLYPH["marked"] if option.value in self._selected else ("–" if option.disabled else " ")
        )
        segments[1] = Segment(mark, segments[1].style)
        return Strip(segments, strip.cell_length)
