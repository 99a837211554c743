"""A textual-plotext plot that redraws at most every ``THROTTLE`` seconds and caches
its rendering, plus the downsampling every long series goes through.

A plotext repaint of a few hundred points costs ~100 ms here, so bursts of updates
(cursor moving down a list) collapse into one redraw, and a frame is rebuilt only when
the figure, the size or the theme changed. ``theme="auto"`` (the PlotextPlot default)
follows the app theme, light ones included.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence

import numpy as np
import plotext._utility as plotext_utility
from textual.app import RenderResult
from textual_plotext import PlotextPlot
from textual_plotext.plot import Plot

Draw = Callable[[Plot], None]


def _ordered_unique(data: Iterable[object]) -> list[object]:
    """Order-preserving de-duplication (what plotext's ``no_duplicates`` should be)."""
    return list(dict.fromkeys(data))


# plotext de-duplicates points and ticks with ``list(set(...))``: the drawing order, so
# which mark wins a cell, then depends on PYTHONHASHSEED and frames differ from run to
# run. An order-preserving version makes every plot (snapshots included) reproducible.
plotext_utility.no_duplicates = _ordered_unique


def downsample(
    x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray, max_points: int
) -> tuple[np.ndarray, np.ndarray]:
    """At most ~``max_points`` points, keeping every bucket's min and max (shape kept).

    The first and last points always survive, so a curve keeps its ends.
    """
    xs, ys = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if xs.size <= max_points or max_points < 4:
        return xs, ys
    keep: set[int] = {0, xs.size - 1}
    for bucket in np.array_split(np.arange(xs.size), max(1, (max_points - 2) // 2)):
        keep.add(int(bucket[np.argmin(ys[bucket])]))
        keep.add(int(bucket[np.argmax(ys[bucket])]))
    idx = np.fromiter(sorted(keep), dtype=np.int64)
    return xs[idx], ys[idx]


class ThrottledPlot(PlotextPlot):
    """PlotextPlot with throttled redraws and a cached frame.

    Call :meth:`show` with a function that draws on the plotext figure; the latest one
    wins when several arrive within ``THROTTLE`` seconds.
    """

    THROTTLE = 0.1
    """Minimum seconds between two redraws."""

    def __init__(
        self,
        *,
        name: str | None = None,
        id: str | None = None,  # noqa: A002 - Textual's parameter name
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._draw: Draw | None = None
        self._pending = False
        self._last = 0.0
        self._drawn = 0
        """How many figures were drawn (part of the frame cache key)."""
        self._frame_key: tuple[object, ...] | None = None
        self._frame: RenderResult | None = None

    @property
    def max_points(self) -> int:
        """How many points a series needs at this width (braille: 2 per cell)."""
        return max(40, 2 * self.size.width)

    def show(self, draw: Draw) -> None:
        """Draw with ``draw`` now, or once the throttle interval has passed."""
        self._draw = draw
        if self._pending:
            return
        wait = self._last + self.THROTTLE - time.monotonic()
        if wait <= 0:
            self._apply()
        else:
            self._pending = True
            self.set_timer(wait, self._apply)

    @property
    def pending(self) -> bool:
        """Whether a redraw is waiting for the throttle interval."""
        return self._pending

    def _apply(self) -> None:
        self._pending = False
        self._last = time.monotonic()
        self._drawn += 1
        self.refresh()

    def render(self) -> RenderResult:
        key = (self._drawn, self.size, self.app.theme)
        if key != self._frame_key or self._frame is None:
            # Redraw the figure from scratch for this size: plotext keeps layout state
            # between builds, so a frame must not depend on the sizes rendered before.
            plt = self.plt
            plt.clear_data()
            plt.clear_figure()
            if self._draw is not None:
                self._draw(plt)
            self._frame = super().render()
            self._frame_key = key
        return self._frame
