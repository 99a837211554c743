"""One vocabulary for what a decision does: verdicts, grades, stances, review state.

Defined once and used by every face that shows them (the triage panes, its
notifications, the help legend), so ``strong`` always reads ``█ strong`` and an
accepted proposal always reads ``✓ accepted``.  Verdict glyphs (✓ ✗ ↷) and grade
glyphs (a bar whose height is the grade: ▁ ▃ ▅ █) never share a character, and
neither shares one with the lifecycle marks (● live, ⚠ challenged, ⊘ invalidated,
⊘ retired — :data:`brainview.services.lifecycle.MARK`).  Meaning never by colour alone.
"""

from __future__ import annotations

from collections.abc import Iterable

from brainview.core.grading import FIRE, GRADE_NAMES, MISS, STRONG, WEAK

GRADE_GLYPH = {MISS: "▁", WEAK: "▃", FIRE: "▅", STRONG: "█"}
"""A grade as one character: the bar's height is the grade."""

VERDICT_MARK = {"accept": "✓ accepted", "reject": "✗ rejected", "dismiss": "↷ dismissed"}
"""A verdict once taken (notifications, the proposal's status line)."""

STATUS_MARK = {
    "accepted": VERDICT_MARK["accept"],
    "rejected": VERDICT_MARK["reject"],
    "dismissed": VERDICT_MARK["dismiss"],
}
"""A proposal's stored status as shown (``pending`` shows nothing)."""

STANCE_MARK = {"support": "▲ support", "oppose": "▼ oppose", "annotate": "• annotate"}
"""How a consulted reflection leaned on the proposal."""

SEEN_MARK = "○ seen"
"""A retrieved reflection the curator did not consult (it has no stance)."""

NEVER_REVIEWED = "never reviewed"
"""A reflection with no card yet: no stability, no retrievability to show."""

UNDO_MARK = "↶ undone"


def grade_label(grade: int | None) -> str:
    """``█ strong``, ``▁ miss`` …; ``no grade`` when a verdict fires nothing."""
    if grade is None or grade not in GRADE_NAMES:
        return "no grade"
    return f"{GRADE_GLYPH[grade]} {GRADE_NAMES[grade]}"


def grade_run(grades: Iterable[int]) -> str:
    """Recent grades, oldest first, as bars (``▅█▁``); empty when there are none."""
    return "".join(GRADE_GLYPH.get(g, "?") for g in grades)


def review_state(stability: float | None, retrievability: float | None) -> str:
    """``S 2.6d · R 0.89`` for a reviewed reflection, ``never reviewed`` otherwise."""
    if stability is None:
        return NEVER_REVIEWED
    r = "R —" if retrievability is None else f"R {retrievability:.2f}"
    return f"S {stability:.1f}d · {r}"


LEGEND = (
    "verdicts: ✓ accepted · ✗ rejected · ↷ dismissed  |  grades: █ strong · ▅ fire · "
    "▃ weak · ▁ miss  |  reflections: ● live · ⚠ challenged · ⊘ invalidated · ⊘ retired  |  "
    "queue: ● marked · ⚠ stale or leaning on a non-live lesson · ☣ suspect"
)
"""The whole legend in one line (help, the triage screen's docstring)."""
