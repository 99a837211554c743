"""Renderables for one reflection: its text with ``[user:…]`` references resolved, the
references table and the FSRS card.

The text is data: it is split on reference tokens and every piece goes through
:func:`brainview.core.safe_text.safe_text` into ``Text`` (never markup). Marks do not
rely on colour, and they are the legend's: ● live, ⊘ retired, ↛ dangling for the user
neurons it cites; ⚠ challenged, ⊖ invalidated, ⊘ retired for the reflection itself.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from brainview.core.fsrs_math import parse_ts
from brainview.core.refs import USER_REF, UserRef
from brainview.core.safe_text import ELLIPSIS, one_line, safe_text, truncate
from brainview.core.vocabulary import GLYPH, mark
from brainview.services.lifecycle import LIVE, MARK, RETIRED

if TYPE_CHECKING:
    from brainview.services.communities.curves import ReflectionDetail

TEXT_LIMIT = 4_000
"""Characters shown before the rest is folded away (``m`` shows all)."""
REF_MARK = {"live": GLYPH["live"], "retired": MARK[RETIRED], "dangling": mark("dangling")}
STATE_NAMES = {0: "New", 1: "Learning", 2: "Review", 3: "Relearning"}
DECISION_TEXT = {
    "rescue": f"{mark('kept')}: schedule no pruning",
    "let_go": f"{mark('let go')}: may be pruned",
}


def _ref_inline(ref: UserRef | None, neuron_id: str) -> Text:
    """A reference token replaced by its target's title (status marked)."""
    if ref is None or ref.status == "dangling":
        return Text(f"⟦{one_line(neuron_id, 40)} {mark('dangling')}⟧", style="bold strike")
    title = one_line(ref.title, 50) or one_line(neuron_id, 40)
    if ref.status == "retired":
        return Text(f"⟦{title} {MARK[RETIRED]}⟧", style="bold italic")
    return Text(f"⟦{title}⟧", style="bold underline")


def render_content(content: str, refs: list[UserRef], *, show_all: bool = False) -> Text:
    """The reflection's text, references resolved inline, folded after ``TEXT_LIMIT``."""
    by_id = {r.neuron_id: r for r in refs}
    body, folded = (content, False) if show_all else truncate(content, TEXT_LIMIT)
    if folded:
        body = body[: -len(ELLIPSIS)]  # cut at a cluster boundary; the note follows
    out = Text()
    pos = 0
    for match in USER_REF.finditer(body):
        out.append_text(safe_text(body[pos : match.start()]))
        out.append_text(_ref_inline(by_id.get(match.group(1)), match.group(1)))
        pos = match.end()
    out.append_text(safe_text(body[pos:]))
    if folded:
        hidden = len(content) - len(body)
        out.append(f"… [+{hidden:,} chars · m shows all]", style="dim")
    return out


def render_refs(refs: list[UserRef]) -> RenderableType:
    """One line per referenced user neuron: status, id, title, domain."""
    if not refs:
        return Text("no [user:…] references", style="dim italic")
    table = Table.grid(padding=(0, 1))
    for _ in range(4):
        table.add_column()
    for ref in refs:
        table.add_row(
            Text(REF_MARK[ref.status], style="bold"),
            Text(one_line(ref.neuron_id, 24), style="dim"),
            Text(one_line(ref.title, 60) or "—"),
            Text(one_line(ref.domain, 20) if ref.domain else ""),
        )
    return table


def _stamp(ts: str | None) -> str:
    """A brain timestamp as ``YYYY-MM-DD HH:MM`` (shown raw, cleaned, if unparsable)."""
    try:
        return f"{parse_ts(ts or ''):%Y-%m-%d %H:%M}"
    except ValueError:
        return one_line(ts, 32)


def _days(dt: datetime, now: datetime) -> str:
    delta = (dt - now).total_seconds() / 86_400
    return f"in {delta:.1f} d" if delta >= 0 else f"{-delta:.1f} d ago"


def render_card(d: ReflectionDetail, now: datetime) -> RenderableType:
    """Identity, FSRS card, R now, crossing day, community and fading decision."""
    n = d.neuron
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold", justify="right")
    grid.add_column()
    grid.add_row("id", Text(one_line(n.id, 60)))
    grid.add_row("skill", Text(one_line(n.domain, 30) or "∅"))
    grid.add_row("status", Text(f"{one_line(n.type, 20)} · {_state(d)}"))
    grid.add_row("created", Text(_stamp(n.created_at)))
    card = d.card
    if card is None or card.stability is None:
        grid.add_row("card", Text("never reviewed (no FSRS card yet)", style="italic"))
    else:
        grid.add_row("card", Text(f"{STATE_NAMES.get(card.state or 0, '?')} · from {card.source}"))
        grid.add_row("stability", Text(f"{card.stability:.2f} d"))
        grid.add_row(
            "difficulty", Text("—" if card.difficulty is None else f"{card.difficulty:.2f}")
        )
        if card.due is not None:
            grid.add_row("due", Text(f"{card.due:%Y-%m-%d %H:%M} ({_days(card.due, now)})"))
        if card.last_review is not None:
            grid.add_row(
                "last review", Text(f"{card.last_review:%Y-%m-%d} ({_days(card.last_review, now)})")
            )
        grid.add_row("R now", Text(f"{d.r_now:.3f}", style="bold"))
    grid.add_row("pruning", Text(_crossing(d)))
    spikuit = "" if n.community_id is None else f" · Spikuit community_id {n.community_id}"
    grid.add_row("community", Text(community_text(d) + spikuit))
    if d.decision is not None:
        grid.add_row(
            "decision",
            Text(
                f"{DECISION_TEXT.get(d.decision.action, d.decision.action)} · "
                f"{one_line(d.decision.decider, 20)} {d.decision.decided_at[:10]}"
            ),
        )
    return Group(grid)


def _crossing(d: ReflectionDetail) -> str:
    if d.crossing is None:
        return f"threshold {d.threshold:.2f}: no card, nothing to forecast"
    if d.crossing <= 0:
        return f"{GLYPH['below threshold']} already below {d.threshold:.2f}"
    return f"falls below {d.threshold:.2f} in {d.crossing:.1f} d"


def _state(d: ReflectionDetail) -> str:
    """``● live``, ``⚠ challenged``, ``⊖ invalidated`` or ``⊘ retired`` (with when)."""
    state = d.status.state if d.status is not None else (LIVE if d.neuron.live else RETIRED)
    mark = MARK.get(state, one_line(state, 20))
    if not d.neuron.live and d.neuron.retired_at:
        mark += f" {_stamp(d.neuron.retired_at)}"
    return mark


def community_text(d: ReflectionDetail) -> str:
    """``#3 of 12 · label`` as the communities list numbers it; or isolated / not yet."""
    c = d.community
    if c is None:
        return "not clustered yet"
    if c.number is None:
        return f"isolated: in none of the {c.communities} communities"
    return f"#{c.number} of {c.communities} · {c.size} members · {one_line(c.label, 60)}"
