"""Plots of forgetting: R-now distribution, forecast with the pruning threshold, and a
reflection's stability history with its grades marked.

Marks never rely on colour alone: each grade has its own marker character, the
threshold and crossing day are named in the title.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from textual_plotext.plot import Plot

from brainview.core.grading import GRADE_NAMES
from brainview.core.vocabulary import GLYPH, GRADE_GLYPH
from brainview.tui.widgets.throttled_plot import ThrottledPlot, downsample

if TYPE_CHECKING:
    from brainview.services.communities.curves import HistoryPoint

DECILES = [f"{i / 10:.1f}" for i in range(10)]
GRADE_MARKERS = {g: (GRADE_GLYPH[g], GRADE_NAMES[g]) for g in GRADE_GLYPH}
"""Marker character and name per spike grade."""


ROOMY = 9
"""Rows a plot needs before an axis label is worth a row of its own."""
THRESHOLD_COLOR = "red"
CROSSING_COLOR = "orange"


def _when(days: float | None, threshold: float, horizon: int) -> str:
    if days is None:
        return f"stays ≥ {threshold:.2f} for {horizon} d"
    if days <= 0:
        return f"already < {threshold:.2f}"
    return f"< {threshold:.2f} on day {crossing_day(days)}"


def crossing_day(days: float) -> int:
    """The day (from now, 1 = tomorrow) on which R falls below the threshold."""
    return max(1, math.ceil(days))


def forecast_range(values: np.ndarray, threshold: float) -> tuple[float, float]:
    """The R axis of a forecast: from a tenth below the lowest of the curve and the
    threshold up to 1, so the threshold and its crossing spread over the plot's rows
    instead of sitting in the top few of a 0–1 axis."""
    low = min(float(np.nanmin(values)) if values.size else threshold, threshold)
    return max(0.0, math.floor((low - 0.05) * 10) / 10), 1.0


def forecast_ticks(low: float, high: float, threshold: float, rows: int) -> list[float]:
    """The R axis's ticks on a plot ``rows`` rows tall: the threshold always, then the
    ends and the middle where each has a row of its own.  A tick sharing a row with the
    threshold would label the threshold's line with its value (0.80 on a 0.70 line)."""
    span = (high - low) or 1.0

    def row(y: float) -> int:
        return round((y - low) / span * (rows - 1))

    kept = [round(threshold, 2)]
    for tick in (low, high, round((low + high) / 2, 1)):
        if all(row(tick) != row(k) for k in kept):
            kept.append(tick)
    return sorted(kept)


def fitting(width: int, *titles: str) -> str:
    """The first title that fits ``width`` cells (plotext drops titles that do not)."""
    for title in titles:
        if len(title) <= width - 2:
            return title
    return titles[-1][: max(0, width - 2)]


def _count_ticks(top: int) -> list[float]:
    """A few whole-number ticks from 0 to ``top`` (ints, typed as the axis' floats)."""
    step = max(1, -(-top // 4))
    return list(range(0, top + step, step))


class DistributionPlot(ThrottledPlot):
    """Bar chart: how many reflections sit in each R-now decile."""

    def set_counts(self, counts: Sequence[int] | None, *, unreviewed: int = 0) -> None:
        """Draw ``counts`` (``None`` = loading)."""

        def draw(plt: Plot) -> None:
            if counts is None:
                plt.title("R now: loading…")
                return
            plt.bar(DECILES, list(counts), width=0.6, marker="hd")
            plt.yticks(_count_ticks(max(counts, default=0)))
            note = f" · {unreviewed} never reviewed" if unreviewed else ""
            plt.title(fitting(self.size.width, f"R now per decile{note}", "R now per decile"))
            if self.size.height >= ROOMY:  # on a short plot the bars need the row
                plt.xlabel("retrievability now")

        self.show(draw)


class ForecastPlot(ThrottledPlot):
    """Retrievability over the coming days, the pruning threshold and the crossing day.

    The R axis spans from just below the lower of the curve and the threshold up to 1
    (:func:`forecast_range`), so the crossing is visible on a short plot; the crossing
    day is printed on the plot and in its title."""

    y_range: tuple[float, float] = (0.0, 1.0)
    """The R axis of the last forecast drawn."""

    def set_forecast(
        self,
        values: np.ndarray | None,
        *,
        threshold: float,
        crossing: float | None,
        what: str = "R",
    ) -> None:
        """Draw ``values`` at day offsets 0..n−1 (``None`` = loading, empty = no card)."""

        def draw(plt: Plot) -> None:
            if values is None:
                plt.title("forecast: loading…")
                return
            if values.size == 0:
                plt.title("forecast: never reviewed, nothing to forecast")
                return
            days = values.size - 1
            low, high = self.y_range = forecast_range(values, threshold)
            x, y = downsample(np.arange(values.size), values, self.max_points)
            plt.plot(x.tolist(), y.tolist(), marker="braille")
            plt.hline(threshold, color=THRESHOLD_COLOR)
            if crossing is not None and 0 < crossing < days:
                plt.vline(crossing, color=CROSSING_COLOR)
                plt.text(
                    f"{GLYPH['below threshold']} day {crossing_day(crossing)}",
                    crossing,
                    high,
                    color=CROSSING_COLOR,
                )
            plt.ylim(low, high)
            plt.xlim(0, days)
            ticks = forecast_ticks(low, high, threshold, rows=max(2, self.size.height - 4))
            plt.yticks(ticks, [f"{t:.2f}" for t in ticks])
            when = _when(crossing, threshold, days)
            plt.title(fitting(self.size.width, f"{what} forecast · {when}", f"{what} {when}"))
            if self.size.height >= ROOMY:
                plt.xlabel(f"days from now (threshold {threshold:.2f})")

        self.show(draw)


class StabilityPlot(ThrottledPlot):
    """Stability after each replayed review (a step curve, log scale), grades marked."""

    def set_history(self, points: Sequence[HistoryPoint] | None) -> None:
        """Draw the replayed history (``None`` = loading, empty = never reviewed)."""

        def draw(plt: Plot) -> None:
            if points is None:
                plt.title("stability history: loading…")
                return
            if not points:
                plt.title("stability history: no reviews yet")
                return
            days = np.array([p.days for p in points])
            stab = np.array([p.stability for p in points])
            # Stability holds between reviews: draw it as steps up to now.
            xs = np.repeat(np.append(days, 0.0), 2)[1:-1]
            ys = np.repeat(stab, 2)
            x, y = downsample(xs, ys, self.max_points)
            plt.plot(x.tolist(), y.tolist(), marker="braille")
            shown = []
            for grade, (mark, name) in GRADE_MARKERS.items():
                at = np.array([p.grade == grade for p in points])
                if at.any():
                    gx, gy = downsample(days[at], stab[at], self.max_points)
                    plt.scatter(gx.tolist(), gy.tolist(), marker=mark)
                    shown.append(f"{mark} {name}")
            # Marks are named in the axis label, not a legend box (which would hide points).
            plt.xlabel("days before now · " + "  ".join(shown))
            plt.yscale("log")
            n = len(points)
            plt.title(
                fitting(
                    self.size.width,
                    f"stability after each of {n} review(s), replayed with py-fsrs",
                    f"stability after {n} review(s)",
                )
            )

        self.show(draw)
