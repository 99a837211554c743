"""Renderables for a consolidation item (an agent-brain kind) in the triage detail.

A policy (``summarize_community``) shows its text (the draft, or the maintainer's edit
once accepted), the diff against the community's previous policy, the
counter-examples, then the rows accepting it writes.  Prune, decay and retire items
show what they change and why.  Every string from the brain goes through
:mod:`brainview.core.safe_text` into ``Text`` objects.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from brainview.core.safe_text import one_line, safe_text
from brainview.core.vocabulary import GLYPH

if TYPE_CHECKING:
    from brainview.services.review.detail import ProposalDetail

TEXT_LIMIT = 4_000
REVIEW_HINTS = {
    "prune_reflection": "Accepting soft-retires the reflection and its links (history kept; "
    "undo restores it). Rejecting keeps it and records why; later consolidations leave it "
    "alone.",
    "decay_synapses": "Accepting weakens these links between lessons nobody used lately; "
    "links below the floor are retired. Rejecting leaves every weight as it is.",
    "retire_policy": "Accepting soft-retires the policy and its summarizes links: the "
    "lessons it summarised are gone. Rejecting keeps it.",
}
DIFF_LINES = 40
PREVIEW_ROWS = 14


def _policy(d: ProposalDetail) -> list[RenderableType]:
    item = d.agent_item
    assert item is not None
    edited = item.draft is not None
    title = "policy text (edited by the maintainer)" if edited else "policy text (draft)"
    if d.status == "pending":
        title += " — E edits it before accepting"
    return [
        Text(title, style="bold underline"),
        safe_text(item.display_text or str(d.params.get("text", "")), limit=TEXT_LIMIT),
        Text(""),
    ]


def render_review_side(d: ProposalDetail) -> RenderableType:
    """Review aids: a policy's counter-examples and previous policy; for other items,
    what accepting or rejecting them means."""
    item = d.agent_item
    if item is None or d.kind != "summarize_community":
        return Text(REVIEW_HINTS.get(d.kind, ""), style="dim italic")
    counter = item.counter_examples
    out: list[RenderableType] = [Text(f"counter-examples ({len(counter)})", style="bold underline")]
    if not counter:
        out.append(Text("none: no member failed when used, no contrasting lesson", style="dim"))
    for c in counter:
        mark = f"{GLYPH['miss']} " if "miss" in c.why else f"{GLYPH['contrasts']} "
        out.append(Text.assemble((mark, "bold"), one_line(c.reflection_id, 24)))
        out.append(Text("  " + one_line(c.why, 100), style="italic"))
        out.append(Text("  " + one_line(c.title, 120), style="dim"))
    out.append(Text(""))
    if item.previous_id is not None and item.diff is not None:
        diff = item.diff
        out.append(
            Text(
                f"replaces {one_line(item.previous_id, 30)}: {diff.kept} member(s) kept, "
                f"+{len(diff.added)} added, −{len(diff.removed)} left out",
                style="bold underline",
            )
        )
        for line in diff.text_lines[:DIFF_LINES]:
            style = {"+": "green", "-": "red"}.get(line[:1], "dim")
            mark = {"+": "+ ", "-": "− "}.get(line[:1], "  ")
            out.append(Text(mark + one_line(line[2:], 160), style=style))
    return Group(*out)


def _decay(d: ProposalDetail) -> list[RenderableType]:
    table = Table(expand=True, box=None, padding=(0, 1))
    table.add_column("weak link", ratio=3)
    table.add_column("now", ratio=1)
    table.add_column("after", ratio=1)
    for s in d.params.get("synapses", [])[: PREVIEW_ROWS * 4]:
        arrow = f"{one_line(s['pre'], 20)} -{one_line(s['type'], 12)}→ {one_line(s['post'], 20)}"
        after = "retired (< floor)" if s["to"] is None else f"{s['to']:.3f}"
        table.add_row(Text(arrow), Text(f"{float(s['weight']):.3f}"), Text(after))
    factor, floor = d.params.get("factor", 0.8), d.params.get("floor", 0.05)
    head = Text(f"SHY: weight × {factor:g}; below {floor:g} the link is retired", style="bold")
    return [head, table, Text("")]


def _rows(d: ProposalDetail) -> list[RenderableType]:
    if not d.preview:
        return [Text(one_line(d.change_log, 200) or "nothing to change", style="dim")]
    table = Table(expand=True, box=None, padding=(0, 1))
    table.add_column("agent-brain change", ratio=3)
    table.add_column("now", ratio=1)
    table.add_column("after", ratio=1)
    for what, before, after in d.preview[:PREVIEW_ROWS]:
        cells = (one_line(what, 80), one_line(before, 30), one_line(after, 30))
        table.add_row(*(Text(c) for c in cells))
    out: list[RenderableType] = [table]
    if len(d.preview) > PREVIEW_ROWS:
        out.append(Text(f"… and {len(d.preview) - PREVIEW_ROWS} more row(s)", style="dim"))
    out.append(Text(one_line(d.change_log, 200), style="dim"))
    return out


def render_agent_item(d: ProposalDetail) -> RenderableType:
    """The whole agent-brain preview of one consolidation item."""
    item = d.agent_item
    parts: list[RenderableType] = []
    if item is not None and item.consolidation:
        parts.append(Text("from consolidation " + one_line(item.consolidation, 60), style="dim"))
    if d.kind == "summarize_community" and item is not None:
        parts += _policy(d)
    elif d.kind == "decay_synapses":
        parts += _decay(d)
    parts += _rows(d)
    return Group(*parts)
