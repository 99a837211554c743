"""Renderables for the held-back lane: one draft the curator held back, why the lane
shows it, the lessons that opposed it (with their confirmations) and what each verdict
would grade.  Every string from a brain is shown literally (:func:`safe_text`,
:func:`one_line`): content is data, never markup.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.rule import Rule
from rich.text import Text

from brainview.core.held_back import grade_of
from brainview.core.safe_text import one_line, safe_text
from brainview.core.vocabulary import GLYPH, STANCE_MARK, grade_label

if TYPE_CHECKING:
    from brainview.services.held_back import HeldBackItem, Lesson

LESSON_LIMIT = 600
DRAFT_LIMIT = 2_000
VERDICT_NAMES = {
    "should_have_proposed": "✓ should have been proposed",
    "rightly_held_back": "✗ rightly held back",
}
"""A verdict in words (never by colour alone)."""
EMPTY = (
    "No held-back draft to look at. Drafts the curator withdrew or rewrote after recall "
    "appear here when a weakly corroborated lesson opposed them, or as a random check."
)


def row_cells(item: HeldBackItem) -> tuple[Text, Text, Text]:
    """The list's cells: state, kind and action, summary (plain text, never markup)."""
    if item.verdict:
        state = VERDICT_NAMES.get(str(item.verdict.get("verdict")), "·")[:1] + " decided"
    else:
        state = f"{GLYPH['pending']} in lane" if item.why else "  —"
    return (
        Text(state),
        Text(f"{one_line(item.kind, 20)} · {one_line(item.action, 10)}"),
        Text(one_line(item.summary, 60)),
    )


def render_item(item: HeldBackItem) -> RenderableType:
    """The whole detail of one held-back draft."""
    head = Text()
    if not item.summary.startswith(item.kind):
        head.append(f"{one_line(item.kind, 30)} ", style="bold")
    head.append(one_line(item.summary, 200), style="bold")
    parts: list[RenderableType] = [head]
    said = Text(f"{one_line(item.action, 12)} by {one_line(item.runtime, 40)} at ")
    said.append(one_line(item.reported_at, 30))
    if item.rewritten_as:
        said.append(f" · became {one_line(item.rewritten_as, 44)}")
    if item.recall_id:
        said.append(f" · recall {one_line(item.recall_id, 40)}")
    parts.append(said)
    why = Text("why shown: ", style="bold")
    why.append(one_line(item.why, 200) if item.why else "not in the lane (listed with all)")
    parts.append(why)
    if item.verdict:
        v = item.verdict
        done = Text(VERDICT_NAMES.get(str(v["verdict"]), one_line(str(v["verdict"]), 30)))
        done.append(
            f" by {one_line(str(v['decider']), 40)} at {one_line(str(v['decided_at']), 30)}"
        )
        if v.get("proposal_id"):
            done.append(f" · queued as {one_line(str(v['proposal_id']), 44)}")
        parts.append(done)
    if item.reason:
        parts.append(safe_text(f"curator: {item.reason}", limit=400))
    parts.append(Rule("lessons", style="dim"))
    for lesson in item.lessons:
        parts.extend(_lesson(lesson))
    parts.append(Rule("the draft", style="dim"))
    rationale = str(item.draft.get("rationale") or "")
    if rationale:
        parts.append(safe_text(rationale, limit=DRAFT_LIMIT))
    params = json.dumps(item.draft.get("params", {}), ensure_ascii=False, indent=1)
    parts.append(safe_text(params, style="dim", limit=DRAFT_LIMIT))
    return Group(*parts)


def _lesson(lesson: Lesson) -> list[RenderableType]:
    line = Text()
    line.append(STANCE_MARK.get(lesson.stance, one_line(lesson.stance, 10)), style="bold")
    line.append(f"  {one_line(lesson.id, 30)}  {one_line(lesson.state, 14)}  ")
    n = len(lesson.deciders)
    line.append(f"{n} confirmation{'s' if n != 1 else ''}")
    if lesson.deciders:
        line.append(" (" + ", ".join(one_line(d, 20) for d in lesson.deciders[:3]) + ")")
    grades = [
        f"{word} → {grade_label(grade_of(verdict, lesson.stance))}"
        for verdict, word in (("should_have_proposed", "p"), ("rightly_held_back", "r"))
    ]
    hint = Text("  " + " · ".join(grades), style="dim")
    body = safe_text(lesson.content or "(missing)", limit=LESSON_LIMIT)
    return [line, hint, body]
