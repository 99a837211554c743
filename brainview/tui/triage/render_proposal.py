"""Renderables for one proposal: the header, the change it makes, the user neurons.

The change table comes first after a two-line header: it is what is decided on.  Ids
of user neurons are shown as ``⟦title⟧`` wherever a person reads (summary, change
rows); the ids stay in the meta line and the copied JSON.  Every string from a brain
or a proposal goes through :mod:`brainview.core.safe_text` into ``Text`` objects,
never parsed as markup.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from brainview.core.safe_text import first_line, one_line, safe_text
from brainview.core.vocabulary import GLYPH, STATUS_MARK

if TYPE_CHECKING:
    from brainview.services.review.detail import ProposalDetail

PREVIEW_LIMIT = 1_200
TITLE_CHARS = 40
DOMAIN_KINDS = ("rename_domain", "merge_domains", "set_domain")


def neuron_titles(d: ProposalDetail) -> dict[str, str]:
    """User neuron id → title for every neuron the proposal names or its plan touches
    (the plan's neuron rows carry their content: no extra read)."""
    titles = dict(d.far_titles)  # a synapse's far end, a lineage parent
    titles |= {nid: first_line(n.content, TITLE_CHARS) or nid for nid, n in d.neurons.items()}
    if d.plan is not None:
        for change in d.plan.changes:
            if change.table != "neuron" or not change.key:
                continue
            image = change.before or change.after or {}
            title = first_line(str(image.get("content") or ""), TITLE_CHARS)
            if title:
                titles.setdefault(str(change.key[0]), title)
    return titles


def titled(text: str, titles: dict[str, str]) -> str:
    """``text`` with each known neuron id replaced by ``⟦title⟧`` (longest ids first,
    so an id that prefixes another is never cut)."""
    for nid in sorted(titles, key=len, reverse=True):
        if nid in text:
            text = text.replace(nid, f"⟦{titles[nid]}⟧")
    return text


def render_header(d: ProposalDetail) -> RenderableType:
    """Kind and summary, the meta line, one line per warning, the change, then the
    suspicion flags in full and the rationale (the change stays on a 24-row screen)."""
    titles = neuron_titles(d)
    summary = titled(d.summary, titles)
    head = Text.assemble((d.kind, "bold"), "  ", safe_text(summary, multiline=False, limit=200))
    lines: list[RenderableType] = [head]
    made = one_line(d.created_at[:16].replace("T", " "), 16)
    meta = Text(f"{one_line(d.id, 60)} · {one_line(d.skill, 24)} · made {made}", style="dim")
    if d.runtime:
        meta.append(f" · {one_line(d.runtime, 40)}")
    meta.no_wrap, meta.overflow = True, "ellipsis"
    lines.append(meta)
    if d.status != "pending":
        lines.append(Text(STATUS_MARK.get(d.status, one_line(d.status, 20)), style="bold"))
    if d.stale:
        lines.append(
            Text(f"{GLYPH['stale']} stale: " + one_line(titled(d.stale, titles), 200), style="bold")
        )
    if d.approval is not None and d.status == "pending":
        from brainview.tui.triage.approvals_view import detail_line

        lines.append(detail_line(d.approval))  # type: ignore[arg-type]
    from brainview.tui.widgets.suspicion import render_leans, render_suspicion

    if d.status == "pending" and d.agent_item is None:
        leans = render_leans([(v.id, v.state) for v in d.consulted if v.state != "live"])
        if leans is not None:
            lines.append(leans)
    flags = render_suspicion(d.suspicion) if d.suspicion else None
    if flags is not None:  # one line here: the change table stays on a small screen
        lines.append(Text(f"{GLYPH['suspect']} suspect: the flags follow the change", "bold"))
    lines.append(render_preview(d, titles))
    if flags is not None:
        lines.append(flags)
    if d.rationale:
        why = d.rationale_display or d.rationale
        lines.append(Text.assemble(("why  ", "bold"), safe_text(why, limit=800)))
    return Group(*lines)


def render_preview(d: ProposalDetail, titles: dict[str, str] | None = None) -> RenderableType:
    """The change this proposal would make, as before → after rows."""
    titles = neuron_titles(d) if titles is None else titles
    if d.kind == "note":
        return Text("note — nothing to apply", style="italic")
    if d.agent_item is not None:
        from brainview.tui.triage.render_item import render_agent_item

        return render_agent_item(d)
    if d.kind == "merge_neurons":
        return _merge(d, titles)
    if d.kind == "edit_content":
        table = Table(expand=True, box=None, padding=(0, 1))
        table.add_column("now", ratio=1)
        table.add_column("after", ratio=1)
        for _what, before, after in d.preview:
            table.add_row(
                safe_text(before, limit=PREVIEW_LIMIT), safe_text(after, limit=PREVIEW_LIMIT)
            )
        return table
    table = Table(expand=True, box=None, padding=(0, 1))
    table.add_column("change", ratio=3, no_wrap=True, overflow="ellipsis")
    table.add_column("now", ratio=1, no_wrap=True, overflow="ellipsis")
    table.add_column("after", ratio=1, no_wrap=True, overflow="ellipsis")
    for what, before, after in d.preview:
        table.add_row(
            Text(one_line(titled(what, titles), 120)),
            Text(one_line(before, 40)),
            Text(one_line(after, 40)),
        )
    if not d.preview and d.change_log:
        return Text(one_line(d.change_log, 200), style="dim")
    return table


def _merge(d: ProposalDetail, titles: dict[str, str]) -> RenderableType:
    keep = d.params["keep"]
    table = Table(expand=True, show_lines=False, box=None, padding=(0, 1))
    table.add_column("survives", ratio=1)
    table.add_column("merged (retired)", ratio=1)
    survivor = d.neurons.get(keep)
    merged = [d.neurons.get(m) for m in d.params["merge"]]
    right = Group(
        *[safe_text(m.content if m else "(missing)", limit=PREVIEW_LIMIT // 2) for m in merged]
    )
    table.add_row(
        safe_text(survivor.content if survivor else "(missing)", limit=PREVIEW_LIMIT // 2), right
    )
    mode = (
        "keeps its own text"
        if d.params.get("content") == "keep"
        else "gains the merged text (appended)"
    )
    name = titles.get(keep, keep)
    return Group(Text(f"merge → ⟦{one_line(name, 40)}⟧ survives and {mode}", style="bold"), table)


def render_user_side(d: ProposalDetail) -> RenderableType:
    """The user neurons the proposal touches (for a consolidation item, which touches
    none, the review aids: counter-examples and the previous policy)."""
    if d.agent_item is not None:
        from brainview.tui.triage.render_item import render_review_side

        return render_review_side(d)
    if not d.neurons:
        return _no_neuron_named(d)
    parts: list[RenderableType] = []
    for nid, n in d.neurons.items():
        flag = "" if n.live else "  ⊘ retired"
        title = first_line(n.content, TITLE_CHARS) or nid
        parts.append(Text.assemble((f"⟦{one_line(title, 40)}⟧", "bold"), flag))
        parts.append(
            Text(f"{one_line(nid, 40)} · {one_line(n.domain, 24)} · {one_line(n.type, 16)}", "dim")
        )
        parts.append(safe_text(n.content, limit=300))
        parts.append(Text(""))
    return Group(*parts)


def _no_neuron_named(d: ProposalDetail) -> Text:
    """Why the pane is empty — never "none" while the change table lists neurons."""
    moved = sum(1 for what, _b, _a in d.preview if what.startswith("neuron "))
    if d.kind in DOMAIN_KINDS and moved:
        return Text(
            f"names a domain, not single neurons: the change table lists the {moved} "
            "neuron row(s) it moves",
            style="dim italic",
        )
    if d.kind in DOMAIN_KINDS:
        return Text("names a domain, not single neurons", style="dim italic")
    return Text("names no user neuron", style="dim italic")
