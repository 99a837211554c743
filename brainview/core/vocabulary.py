"""One vocabulary for the marks the console draws: one glyph, one meaning, one table.

:data:`MARKS` is the table.  Every face that shows a verdict, a grade, a stance, a
lesson's state or a queue flag takes its glyph from here, and the help legend
(:data:`LEGEND`, :func:`legend_lines`) is generated from the same rows, so ``strong``
always reads ``█ strong``, ``✓`` only ever means accepted and ``⚠`` only challenged.
A test scans the console's sources for symbol glyphs that are not in the table.
Meaning never by colour alone.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from brainview.core.grading import FIRE, GRADE_NAMES, MISS, STRONG, WEAK


@dataclass(frozen=True)
class Mark:
    """One glyph and the one thing it means."""

    glyph: str
    word: str
    family: str


MARKS: tuple[Mark, ...] = (
    Mark("✓", "accepted", "verdicts"),
    Mark("✗", "rejected", "verdicts"),
    Mark("↷", "dismissed", "verdicts"),
    Mark("↶", "undone", "verdicts"),
    Mark("◌", "pending", "verdicts"),
    Mark("█", "strong", "grades"),
    Mark("▅", "fire", "grades"),
    Mark("▃", "weak", "grades"),
    Mark("▁", "miss", "grades"),
    Mark("▲", "support", "stances"),
    Mark("▼", "oppose", "stances"),
    Mark("•", "annotate", "stances"),
    Mark("○", "seen", "stances"),
    Mark("●", "live", "lessons"),
    Mark("⚠", "challenged", "lessons"),
    Mark("⊗", "quarantined", "lessons"),
    Mark("⊖", "invalidated", "lessons"),
    Mark("⊘", "retired", "lessons"),
    Mark("⤫", "overturned", "lessons"),
    Mark("↧", "imported", "lessons"),
    Mark("↛", "dangling", "lessons"),
    Mark("↔", "contrasts", "lessons"),
    Mark("▸", "marked", "queue"),
    Mark("↻", "stale", "queue"),
    Mark("⚑", "flagged", "queue"),
    Mark("☣", "suspect", "queue"),
    Mark("◷", "waiting", "queue"),
    Mark("½", "one of two approvals", "queue"),
    Mark("◉", "viewing", "queue"),
    Mark("◆", "policy", "communities"),
    Mark("⛨", "kept", "communities"),
    Mark("↓", "let go", "communities"),
    Mark("▽", "below threshold", "communities"),
    Mark("∅", "none", "communities"),
)
"""Every mark the console draws (family order is the legend's order)."""

GLYPH = {m.word: m.glyph for m in MARKS}
"""A meaning's glyph: ``GLYPH["strong"] == "█"``."""


def mark(word: str) -> str:
    """``✓ accepted``: a meaning with its glyph (``KeyError`` for a word not in the table)."""
    return f"{GLYPH[word]} {word}"


def legend_lines() -> list[str]:
    """The legend, one family a line: ``grades: █ strong · ▅ fire · ▃ weak · ▁ miss``."""
    lines = []
    for family in dict.fromkeys(m.family for m in MARKS):
        words = " · ".join(f"{m.glyph} {m.word}" for m in MARKS if m.family == family)
        lines.append(f"{family}: {words}")
    return lines


GRADE_GLYPH = {g: GLYPH[GRADE_NAMES[g]] for g in (MISS, WEAK, FIRE, STRONG)}
"""A grade as one character: the bar's height is the grade."""

VERDICT_MARK = {
    "accept": mark("accepted"),
    "reject": mark("rejected"),
    "dismiss": mark("dismissed"),
}
"""A verdict once taken (notifications, the proposal's status line)."""

STATUS_MARK = {
    "accepted": VERDICT_MARK["accept"],
    "rejected": VERDICT_MARK["reject"],
    "dismissed": VERDICT_MARK["dismiss"],
}
"""A proposal's stored status as shown (``pending`` shows nothing)."""

STANCE_MARK = {w: mark(w) for w in ("support", "oppose", "annotate")}
"""How a consulted reflection leaned on the proposal."""

SEEN_MARK = mark("seen")
"""A retrieved reflection the curator did not consult (it has no stance)."""

NEVER_REVIEWED = "never reviewed"
"""A reflection with no card yet: no stability, no retrievability to show."""

UNDO_MARK = mark("undone")


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


LEGEND = "  |  ".join(legend_lines())
"""The whole legend in one line (the triage screen's docstring); help shows
:func:`legend_lines`."""
