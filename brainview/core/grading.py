"""The stance → grade policy (contracts §3 and §5).

support+accept or oppose+reject → strong; support+reject or oppose+accept → miss;
annotate → nothing unless configured; retrieved-only reflections → nothing.
"""

from __future__ import annotations

from typing import Literal

Verdict = Literal["accept", "reject"]
Stance = Literal["support", "oppose", "annotate"]

MISS, WEAK, FIRE, STRONG = 1, 2, 3, 4
GRADE_NAMES = {MISS: "miss", WEAK: "weak", FIRE: "fire", STRONG: "strong"}
STANCES: tuple[Stance, ...] = ("support", "oppose", "annotate")


def grade_for(stance: str, verdict: Verdict, *, annotate_grade: int | None = None) -> int | None:
    """The grade a consulted reflection receives for a verdict, or ``None`` for no event."""
    if stance == "annotate":
        return annotate_grade
    agrees = (stance == "support") == (verdict == "accept")
    return STRONG if agrees else MISS


def decision_grade(
    stance: str | None,
    verdict: str,
    *,
    live: bool,
    consolidation: bool = False,
    annotate_grade: int | None = None,
) -> int | None:
    """The grade a decision actually fires into one *consulted* reflection, or ``None``.

    Mirrors :func:`brainview.services.review.decide`: a dismissal, a consolidation
    item (it is about its reflections, not advice they gave) and a reflection that is
    not live (invalidated, retired, missing) get nothing; a missing stance counts as
    ``support``; a challenged reflection is still graded.
    """
    if verdict not in ("accept", "reject") or consolidation or not live:
        return None
    return grade_for(stance or "support", verdict, annotate_grade=annotate_grade)  # type: ignore[arg-type]
