"""The report's figures: what each plots, and plotext renderings for the terminal.

Each figure is one series of :data:`brainview.sim.stats.SERIES` for a set of arms
(means over seeds; the SVG adds ± one standard deviation, :mod:`brainview.sim.svg`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from brainview.sim.stats import Spread

ANSI = re.compile(r"\x1b\[[0-9;]*m")


@dataclass(frozen=True)
class Figure:
    """One figure of the report."""

    name: str
    title: str
    ylabel: str
    series: str
    arms: tuple[str, ...] | None = None
    """Arms shown (``None``: every arm run); ``paired`` figures show differences."""
    scale: float = 1.0
    y_range: tuple[float, float] | None = None
    paired: bool = False


ROUND_ONE = (
    "off",
    "on",
    "no-consolidation",
    "no-stdp",
    "poisoned",
    "poisoned-vigilant",
    "poisoned-watchful",
    "lanes",
    "no-feedback",
)
"""The arms the weekly figures draw (the attack arms have a table of their own)."""
FIGURES: tuple[Figure, ...] = (
    Figure("acceptance", "Acceptance rate by week", "% accepted", "acceptance", ROUND_ONE,
           scale=100, y_range=(0, 100)),
    Figure("repeated", "Repeated-mistake rate by week", "% of decided proposals", "repeated",
           ROUND_ONE, scale=100, y_range=(0, 60)),
    Figure("mac", "MAC by agent-brain age", "median seconds per decision", "mac", ROUND_ONE),
    Figure("cost", "Maintainer time per accepted change", "seconds", "cost", ROUND_ONE),
    Figure("policies", "Policy emergence", "policies accepted", "policies", ROUND_ONE),
    Figure("good_lost", "Good drafts dropped or rewritten (before the lane)", "% of good drafts",
           "good_lost", ("on", "lanes", "lanes-x3"), scale=100, y_range=(0, 60)),
    Figure("poisoning", "Poisoning: acceptance minus loop on (same seed)", "points",
           "acceptance", ("poisoned", "poisoned-vigilant", "poisoned-watchful"), scale=100,
           paired=True),
)  # fmt: skip
BY_NAME = {f.name: f for f in FIGURES}


def terminal(
    figure: Figure, lines: dict[str, list[Spread]], *, width: int = 78, plain: bool = False
) -> str:
    """A plotext rendering (means only); ``plain`` strips colour for a text file."""
    import plotext as plt

    plt.clear_figure()
    plt.theme("clear" if plain else "pro")
    plt.plotsize(width, 20)
    weeks = max((len(v) for v in lines.values()), default=0)
    for label, spreads in lines.items():
        known = [
            (i + 1, s.mean * figure.scale) for i, s in enumerate(spreads) if s.mean is not None
        ]
        if known:
            plt.plot([k for k, _v in known], [v for _k, v in known], label=label, marker="braille")
    plt.title(figure.title)
    plt.xlabel("simulated week")
    plt.xticks(list(range(1, weeks + 1)))
    if figure.y_range is not None:
        plt.ylim(*figure.y_range)
    text = plt.build()
    plt.clear_figure()
    return ANSI.sub("", text) if plain else text
