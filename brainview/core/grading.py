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
