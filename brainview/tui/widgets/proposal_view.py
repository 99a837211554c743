"""Renderables for one proposal: header + preview, user-brain side, agent-brain side.

Every string from a brain or a proposal goes through :mod:`brainview.core.safe_text`
and is placed in ``Text`` objects, never parsed as markup.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from brainview.core.grading import GRADE_NAMES, decision_grade
from brainview.core.safe_text import first_line, one_line, safe_text

if TYPE_CHECKING:
    from brainview.services.review.detail import ProposalDetail, ReflectionView

STANCE_MARK = {"support": "▲ support", "oppose": "▼ oppose", "annotate": "• annotate"}
SEEN_MARK = "○ seen"
"""A retrieved reflection the curator did not consult (it has no stance)."""
GRADE_MARK = {1: "✗", 2: "~", 3: "✓", 4: "✓✓"}
PREVIEW_LIMIT = 1_200
AGENT_LABELS = {
    "summarize_community": "members",
    "prune_reflection": "reflection to prune",
    "retire_policy": "policy to retire",
}
"""What the consulted list holds for the consolidation kinds."""
REFLECTION_LIMIT = 600


def render_header(d: ProposalDetail) -> RenderableType:
    """Kind, summary, status/stale flag, rationale and the kind-specific preview."""
    head = Text.assemble((d.kind, "bold"), "  ", safe_text(d.summary, multiline=False, limit=200))
    lines: list[RenderableType] = [head]
    made = one_line(d.created_at[:16].replace("T", " "), 16)
    meta = Text(f"{one_line(d.id, 60)} · {one_line(d.skill, 24)} · made {made}", style="dim")
    if d.runtime:
        meta.append(f" · {one_line(d.runtime, 40)}")
    lines.append(meta)
    if d.status != "pending":
        mark = {"accepted": "✓ accepted", "rejected": "✗ rejected"}.get(d.status, d.status)
        lines.append(Text(mark, style="bold"))
    if d.stale:
        lines.append(Text("⚠ stale: " + one_line(d.stale, 200), style="bold"))
    # lazy: imports services
    from brainview.tui.widgets.suspicion import render_leans, render_suspicion

    if d.status == "pending" and d.agent_item is None:
        leans = render_leans([(v.id, v.state) for v in d.consulted if v.state != "live"])
        if leans is not None:
            lines.append(leans)
    flags = render_suspicion(d.suspicion) if d.suspicion else None
    if flags is not None:
        lines.append(flags)
    if d.rationale:
        lines.append(Text.assemble(("why  ", "bold"), safe_text(d.rationale, limit=800)))
    lines.append(Text(""))
    lines.append(render_preview(d))
    return Group(*lines)


def render_preview(d: ProposalDetail) -> RenderableType:
    """The change this proposal would make, as before → after rows."""
    if d.kind == "note":
        return Text("note — nothing to apply", style="italic")
    if d.agent_item is not None:
        from brainview.tui.widgets.agent_item_view import render_agent_item

        return render_agent_item(d)
    if d.kind == "merge_neurons":
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
            safe_text(survivor.content if survivor else "(missing)", limit=PREVIEW_LIMIT // 2),
            right,
        )
        mode = (
            "keeps its own text"
            if d.params.get("content") == "keep"
            else ("gains the merged text (appended)")
        )
        return Group(Text(f"merge → {one_line(keep, 40)} survives and {mode}", style="bold"), table)
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
    table.add_column("change", ratio=3)
    table.add_column("now", ratio=1)
    table.add_column("after", ratio=1)
    for what, before, after in d.preview:
        table.add_row(
            Text(one_line(what, 80)), Text(one_line(before, 40)), Text(one_line(after, 40))
        )
    return table


def render_user_side(d: ProposalDetail) -> RenderableType:
    """The user neurons the proposal touches (for a consolidation item, which touches
    none, the review aids: counter-examples and the previous policy)."""
    if d.agent_item is not None:
        from brainview.tui.widgets.agent_item_view import render_review_side

        return render_review_side(d)
    if not d.neurons:
        return Text("no user neurons named", style="dim italic")
    parts: list[RenderableType] = []
    for nid, n in d.neurons.items():
        flag = "" if n.live else "  ⊘ retired"
        parts.append(
            Text.assemble(
                (one_line(nid, 40), "bold"),
                f"  {one_line(n.domain, 24)} · {one_line(n.type, 16)}{flag}",
            )
        )
        parts.append(safe_text(n.content, limit=300))
        parts.append(Text(""))
    return Group(*parts)


def _reflection(
    v: ReflectionView, verdict_hint: bool, annotate_grade: int | None = None
) -> list[RenderableType]:
    stance = STANCE_MARK.get(v.stance or ("support" if verdict_hint else ""), SEEN_MARK)
    stab = f"S {v.stability:.1f}d" if v.stability is not None else "S —"
    r = f"R {v.retrievability:.2f}" if v.retrievability is not None else "R —"
    grades = " ".join(GRADE_MARK.get(g, "?") for g in v.recent_grades) or "no grades"
    head = Text.assemble(
        (stance, "bold"),
        "  ",
        (one_line(v.id, 24), "dim"),
        f"  {one_line(v.skill, 12)}",
        f"  {stab}  {r}  ",
        ("recent ", "dim"),
        grades,
    )
    if v.state != "live":
        from brainview.tui.widgets.suspicion import state_mark

        head.append("  ")
        head.append(state_mark(v.state))
    if verdict_hint:
        hint = grade_hint(v, annotate_grade)  # one segment: Textual keeps its indent
        head.append("\n  " + hint.plain, style=hint.style)
    body = safe_text(v.display or v.content, limit=REFLECTION_LIMIT)
    out: list[RenderableType] = [head, body]
    if v.note:
        out.append(Text("  note: " + one_line(v.note, 200), style="italic"))
    out.append(Text(""))
    return out


def grade_hint(v: ReflectionView, annotate_grade: int | None = None) -> Text:
    """What each verdict would fire into a consulted reflection — exactly what
    :func:`brainview.services.review.decide` does (:func:`decision_grade`)."""
    if not v.live:  # invalidated, retired or missing: decide skips it
        return Text(f"not graded: {one_line(v.state, 20)} — no verdict fires it", style="bold")
    names = []
    for verdict in ("accept", "reject"):
        grade = decision_grade(v.stance, verdict, live=True, annotate_grade=annotate_grade)
        names.append(f"{verdict} → {GRADE_NAMES.get(grade, 'none') if grade else 'none'}")
    prefix = "still graded while challenged: " if v.state == "challenged" else ""
    return Text(prefix + " · ".join(names), style="dim")


def render_agent_side(d: ProposalDetail, annotate_grade: int | None = None) -> RenderableType:
    """Consulted reflections (with what each verdict would grade), then, apart, the ones
    the curator retrieved but did not consult."""
    label = AGENT_LABELS.get(d.kind, "consulted")
    parts: list[RenderableType] = [Text(f"{label} ({len(d.consulted)})", style="bold underline")]
    consolidation = d.agent_item is not None
    if consolidation:
        parts.append(Text("a consolidation item: deciding it grades nobody", style="dim italic"))
    elif not d.consulted:
        parts.append(Text("none — no reflection will be graded", style="dim italic"))
    for v in d.consulted:
        parts += _reflection(v, not consolidation, annotate_grade)
    if d.retrieved:
        parts += render_retrieved(d.retrieved)
    return Group(*parts)


RETRIEVED_TITLE = "retrieved, not consulted"
RETRIEVED_NOTE = "the curator saw these but did not lean on them — no verdict grades them"


def render_retrieved(views: list[ReflectionView]) -> list[RenderableType]:
    """What the curator's recall showed it but it did not consult: set apart by a rule,
    a title of its own and a note that no verdict grades them, each marked ``○ seen``."""
    parts: list[RenderableType] = [
        Rule(style="dim"),
        Text(f"{RETRIEVED_TITLE} ({len(views)})", style="bold underline"),
        Text(RETRIEVED_NOTE, style="dim italic"),
        Text(""),
    ]
    for v in views:
        parts += _reflection(v, verdict_hint=False)
    return parts


KIND_SHORT = {
    "merge_neurons": "merge",
    "retire_neuron": "retire",
    "add_synapse": "+link",
    "remove_synapse": "-link",
    "set_synapse_weight": "weight",
    "set_domain": "domain",
    "rename_domain": "rename",
    "merge_domains": "mergedom",
    "edit_content": "edit",
    "note": "note",
    "prune_reflection": "prune",
    "decay_synapses": "decay",
    "summarize_community": "policy",
    "retire_policy": "-policy",
}


def _flag(row) -> Text:  # type: ignore[no-untyped-def]
    """⚠ stale or flagged / ☣ suspect, without importing the services for plain rows."""
    suspicion = getattr(row, "suspicion", None)
    leans = getattr(row, "leans", ())
    if not suspicion:
        return Text("⚠" if row.stale or leans else " ")
    from brainview.tui.widgets.suspicion import queue_flag

    return queue_flag(bool(row.stale), suspicion, leans)


def mark_cell(row, marked: bool) -> Text:  # type: ignore[no-untyped-def]
    """``●`` when marked, then ⚠ stale / ☣ suspect: two characters in one column."""
    return Text.assemble("●" if marked else " ", _flag(row))


def queue_cells(row, marked: bool, now_ts: float) -> list[Text]:  # type: ignore[no-untyped-def]
    """One queue line: mark and flag (one column), kind, summary, age, consulted."""
    from brainview.core.fsrs_math import parse_ts

    age_s = max(0.0, now_ts - parse_ts(row.created_at).timestamp())
    age = (
        f"{int(age_s // 60)}m"
        if age_s < 3600
        else f"{int(age_s // 3600)}h"
        if age_s < 86400
        else f"{int(age_s // 86400)}d"
    )
    return [
        mark_cell(row, marked),
        Text(KIND_SHORT.get(row.kind, one_line(row.kind, 8))),
        Text(first_line(row.summary, 60)),
        Text(age, justify="right"),
        Text(str(row.n_consulted), justify="right"),
    ]
