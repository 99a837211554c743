"""Renderables for the recall box: one hit with why it ranked, the policies over the
hits, what the recall asked about, and the status line.

Every string from a brain or a proposal (lesson text, titles, ids, matched words, the
stance's reason) goes through :mod:`brainview.core.safe_text` into ``Text`` objects:
never parsed as markup, never sent raw to the terminal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from brainview.core.safe_text import one_line, safe_text
from brainview.core.vocabulary import STANCE_MARK
from brainview.tui.widgets.suspicion import state_mark

if TYPE_CHECKING:
    from brainview.services.recall.browse import Browsed, NamedRef, ProposalDraft
    from brainview.services.recall.result import Hit, PolicyHit

TEXT_LIMIT = 240
"""Characters of a lesson shown per hit (the reflection view shows all of it)."""
MAX_LISTED = 4
NOT_LOGGED = "not logged: browsing is not a curator's recall · grades nothing"


def hit_prompt(hit: Hit, shown: str, titles: dict[str, str]) -> Text:
    """A hit in four lines: rank, id, skill, score, state; the lesson; the score's
    components; the suggested stance and why.  ``titles``: neuron id → title."""
    out = Text.assemble(
        (f"{hit.rank:>2}. ", "bold"),
        (one_line(hit.reflection, 28), "bold"),
        f"  {one_line(hit.skill, 12)}",
        ("  score ", "dim"),
        f"{hit.score:.3f}",
    )
    if hit.state != "live":
        out.append("  ")
        out.append_text(state_mark(hit.state))
    out.append("\n    ")
    out.append_text(safe_text(shown or hit.text, multiline=False, limit=TEXT_LIMIT))
    out.append("\n    ")
    out.append_text(components(hit, titles))
    stance = STANCE_MARK.get(hit.stance, one_line(hit.stance, 12))
    out.append("\n    suggest ", style="dim")
    out.append(stance, style="bold")
    if hit.stance_reason:
        out.append(" — ", style="dim")
        out.append(one_line(hit.stance_reason, 120), style="italic")
    return out


def components(hit: Hit, titles: dict[str, str]) -> Text:
    """Why it ranked: lexical (BM25), spreading, R now, words, cites, overturned."""
    r = "—" if hit.retrievability is None else f"{hit.retrievability:.2f}"
    parts = [
        f"lexical {hit.lexical:.2f} (bm25 {hit.bm25:.2f})",
        f"spread {hit.spread:.2f}",
        f"R {r}",
    ]
    if hit.matched_words:
        parts.append("words " + _listed(hit.matched_words, 6))
    if hit.refs_direct:
        parts.append("cites " + _listed([_named(n, titles) for n in hit.refs_direct]))
    if hit.refs_neighbour:
        parts.append("cites a neighbour " + _listed(hit.refs_neighbour))
    if hit.overturned_by:
        parts.append("⤫ overturned by " + _listed(hit.overturned_by))
    return Text(" · ".join(parts), style="dim")


def _named(neuron_id: str, titles: dict[str, str]) -> str:
    title = titles.get(neuron_id)
    return f"⟦{one_line(title, 30)}⟧" if title else one_line(neuron_id, 24)


def _listed(items: list[str], limit: int = MAX_LISTED) -> str:
    shown = ", ".join(one_line(i, 30) for i in items[:limit])
    return shown + (f" +{len(items) - limit}" if len(items) > limit else "")


def policies_text(policies: list[PolicyHit], shown: dict[str, str], ranks: dict[str, int]) -> Text:
    """The policies over the hits, each with the ranks of the hits it covers."""
    if not policies:
        return Text("no policy covers these lessons", style="dim italic")
    out = Text()
    out.append(f"policies over these lessons ({len(policies)})", style="bold underline")
    for p in policies:
        over = " ".join(f"#{r}" for r in sorted(ranks[m] for m in p.members if m in ranks))
        out.append("\n")
        out.append(one_line(p.policy, 24), style="bold")
        out.append(f" · over {over or '—'} · ", style="dim")
        out.append_text(safe_text(shown.get(p.policy, p.text), multiline=False, limit=200))
    return out


def about_text(draft: ProposalDraft | None, browsed: Browsed | None) -> Text:
    """What the recall is for: the proposal under review (if used) and the neurons asked
    about (typed ``n-…`` ids and the draft's), with ids that name no neuron."""
    if draft is not None:
        out = Text.assemble(
            ("for proposal ", "dim"),
            (one_line(draft.proposal_id, 28), "bold"),
            f" · {one_line(draft.kind, 24)}",
        )
        if draft.summary:
            out.append(" — ")
            out.append(one_line(draft.summary, 80))
    else:
        out = Text()
        out.append("for the words and n-… neuron ids typed", style="dim")
    if browsed is None or browsed.draft != draft:
        return out
    if browsed.refs:
        out.append("\nasks about ", style="dim")
        out.append(", ".join(_ref(r) for r in browsed.refs[:6]))
        if len(browsed.refs) > 6:
            out.append(f" +{len(browsed.refs) - 6}")
    if browsed.words:
        out.append("\n", style="dim")
        out.append(_listed(browsed.words), style="bold")
        out.append(" — no such user neuron, searched as words", style="dim")
    return out


def _ref(ref: NamedRef) -> str:
    mark = "" if ref.live else " ⊘ retired"
    return f"⟦{one_line(ref.title, 30)}{mark}⟧ {one_line(ref.neuron_id, 24)}"


def status_text(loading: bool, error: str, browsed: Browsed | None) -> Text:
    """Recalling…, the error (one line), or how many lessons were found."""
    if loading:
        return Text("recalling…", style="italic")
    if error:
        return Text("✗ " + one_line(error, 300), style="bold")
    if browsed is None:
        return Text(
            "type words or n-… neuron ids, enter recalls · ctrl+t: the proposal under review",
            style="dim",
        )
    hits = browsed.result.hits
    info = browsed.result.index
    held = browsed.result.excluded.get("quarantined", 0)
    out = f" · {held} quarantined lesson(s) left out" if held else ""
    if not hits:
        return Text("no live lesson matches" + out, style="italic")
    return Text(
        f"{len(hits)} lesson(s), best first, of {info.get('docs', '?')} indexed"
        f"{out} · enter on one opens it",
        style="dim",
    )
