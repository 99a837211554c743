"""Renderables for the agent side of a proposal: what each verdict grades.

First every consulted reflection in two lines (stance, title, what accept and reject
would fire, its review state), so all of them show at once; then their texts; then,
set apart, the ones the curator retrieved but did not consult.  Grades, stances and
states use :mod:`brainview.core.vocabulary` and the lifecycle marks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from brainview.core.grading import decision_grade
from brainview.core.safe_text import first_line, one_line, safe_text
from brainview.core.vocabulary import (
    SEEN_MARK,
    STANCE_MARK,
    grade_label,
    grade_run,
    review_state,
)
from brainview.tui.widgets.suspicion import state_mark

if TYPE_CHECKING:
    from brainview.services.review.detail import ProposalDetail, ReflectionView

AGENT_LABELS = {
    "summarize_community": "members",
    "prune_reflection": "reflection to prune",
    "retire_policy": "policy to retire",
}
"""What the consulted list holds for the consolidation kinds."""
REFLECTION_LIMIT = 600
RETRIEVED_TITLE = "retrieved, not consulted"
RETRIEVED_NOTE = "the curator saw these but did not lean on them — no verdict grades them"


def grade_hint(v: ReflectionView, annotate_grade: int | None = None) -> Text:
    """What each verdict would fire into a consulted reflection — exactly what
    :func:`brainview.services.review.decide` does (:func:`decision_grade`)."""
    if not v.live:  # invalidated, retired or missing: decide skips it
        return Text(f"not graded: {one_line(v.state, 20)} — no verdict fires it", style="bold")
    names = []
    for verdict in ("accept", "reject"):
        grade = decision_grade(v.stance, verdict, live=True, annotate_grade=annotate_grade)
        names.append(f"{verdict} → {grade_label(grade)}")
    prefix = "still graded while challenged: " if v.state == "challenged" else ""
    return Text(prefix + " · ".join(names))


def _title(v: ReflectionView) -> str:
    return first_line(v.display or v.content, 60) or v.id


def _line(v: ReflectionView, stance: str) -> Table:
    """``▲ support ⊘ invalidated ⟦title…⟧ r-…`` on one line: a narrow pane cuts
    the title, never the stance, the state or the id."""
    line = Table.grid(expand=True, padding=(0, 1))
    line.add_column(no_wrap=True)
    line.add_column(ratio=1, no_wrap=True, overflow="ellipsis")
    line.add_column(no_wrap=True, justify="right")
    head = Text(stance, style="bold")
    if v.state != "live":
        head.append(" ")
        head.append_text(state_mark(v.state))
    meta = Text(one_line(v.id, 24), style="dim")
    line.add_row(head, safe_text(_title(v), multiline=False, limit=60), meta)
    return line


def _facts(v: ReflectionView) -> str:
    """Review state, recent grades, skill: ``S 2.6d · R 0.89 · recent ▅█▁ · tutor``."""
    recent = grade_run(v.recent_grades)
    parts = [review_state(v.stability, v.retrievability)]
    parts.append(f"recent {recent}" if recent else "no grades yet")
    if v.skill:
        parts.append(one_line(v.skill, 16))
    return " · ".join(parts)


def _summary(v: ReflectionView, graded: bool, annotate_grade: int | None) -> list[RenderableType]:
    """Two lines: stance, title, id, state; then what each verdict fires and the card."""
    stance = STANCE_MARK.get(v.stance or ("support" if graded else ""), SEEN_MARK)
    second = Text("  ")
    if graded:
        hint = grade_hint(v, annotate_grade)
        second.append(hint.plain, style=hint.style or "")
        second.append(" · ", style="dim")
    second.append(_facts(v), style="dim")
    second.no_wrap, second.overflow = True, "ellipsis"  # the grades come first: never cut
    return [_line(v, stance), second]


def _body(v: ReflectionView) -> list[RenderableType]:
    out: list[RenderableType] = [safe_text(v.display or v.content, limit=REFLECTION_LIMIT)]
    if v.note:
        out.append(Text("  note: " + one_line(v.note, 200), style="italic"))
    out.append(Text(""))
    return out


def render_agent_side(d: ProposalDetail, annotate_grade: int | None = None) -> RenderableType:
    """Consulted reflections (what each verdict would grade, all at once), their texts,
    then, apart, the retrieved-only ones."""
    label = AGENT_LABELS.get(d.kind, "consulted")
    parts: list[RenderableType] = [Text(f"{label} ({len(d.consulted)})", style="bold underline")]
    consolidation = d.agent_item is not None
    if consolidation:
        parts.append(Text("a consolidation item: deciding it grades nobody", style="dim italic"))
    elif not d.consulted:
        parts.append(Text("none — no reflection will be graded", style="dim italic"))
    for v in d.consulted:
        parts += _summary(v, not consolidation, annotate_grade)
    if d.consulted:
        parts.append(Rule("texts", style="dim"))
        for v in d.consulted:
            parts += _body(v)
    if d.retrieved:
        parts += render_retrieved(d.retrieved)
    return Group(*parts)


def render_retrieved(views: list[ReflectionView]) -> list[RenderableType]:
    """What the curator's recall showed it but it did not consult: set apart by a rule,
    a title of its own and a note that no verdict grades them, each marked ``○ seen``."""
    parts: list[RenderableType] = [
        Rule(style="dim"),
        Text(f"{RETRIEVED_TITLE} ({len(views)})", style="bold underline"),
        Text(RETRIEVED_NOTE, style="dim italic"),
    ]
    for v in views:
        parts += [*_summary(v, False, None), *_body(v)]
    return parts
