"""Retention (retrievability now) distribution of a brain, from a bounded sample."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import numpy as np

from brainview.core import fsrs_math
from brainview.store.brain import Brain
from brainview.store.cards import SAMPLE_LIMIT, sample_cards

BINS = 10


@dataclass(frozen=True)
class RetentionSummary:
    """Share of reviewed cards per R decile, plus what was left out."""

    counts: list[int]
    """Cards per R bin [0,0.1), …, [0.9,1.0]."""
    never_reviewed: int
    sampled: int
    population: int
    mean: float | None
    below_threshold: int
    threshold: float
    sample_limit: int = SAMPLE_LIMIT

    @property
    def is_sample(self) -> bool:
        """Whether the figures come from a sample rather than every card."""
        return self.population > self.sample_limit


def retention(
    brain: Brain, now: datetime, *, threshold: float = 0.5, limit: int = SAMPLE_LIMIT
) -> RetentionSummary:
    """R now for (a stride sample of) the brain's live cards, binned."""
    with brain.read() as conn:
        stab, last, population = sample_cards(conn, brain.era, limit=limit)
    reviewed = ~(np.isnan(stab) | np.isnan(last))
    r = fsrs_math.retrievability(stab[reviewed], last[reviewed], now)
    counts, _ = np.histogram(r, bins=BINS, range=(0.0, 1.0))
    return RetentionSummary(
        counts=[int(c) for c in counts],
        never_reviewed=int((~reviewed).sum()),
        sampled=int(len(stab)),
        population=population,
        mean=float(r.mean()) if len(r) else None,
        below_threshold=int((r < threshold).sum()),
        threshold=threshold,
        sample_limit=limit,
    )
