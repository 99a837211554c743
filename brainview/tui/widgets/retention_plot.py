"""Retention histogram (R now per decile) that follows the app theme."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.reactive import reactive
from textual_plotext import PlotextPlot

# Importing throttled_plot patches plotext's set()-based de-duplication so plots are
# identical from run to run (PYTHONHASHSEED), which snapshot tests rely on.
from brainview.tui.widgets import throttled_plot  # noqa: F401

if TYPE_CHECKING:
    from brainview.services.metrics.retention import RetentionSummary

LABELS = [f"{i / 10:.1f}" for i in range(10)]


class RetentionPlot(PlotextPlot):
    """Bar chart of how many cards sit in each retrievability decile now."""

    summary: reactive[RetentionSummary | None] = reactive(None)
    """The distribution to draw (``None`` while loading)."""

    def watch_summary(self, summary: RetentionSummary | None) -> None:
        plt = self.plt
        plt.clear_data()
        plt.clear_figure()
        if summary is None:
            plt.title("retention: loading…")
        else:
            plt.bar(LABELS, summary.counts, width=0.6, marker="hd")
            mean = f"{summary.mean:.2f}" if summary.mean is not None else "—"
            note = " (sample)" if summary.is_sample else ""
            plt.title(f"R now per decile · mean {mean}{note}")
            plt.xlabel("retrievability")
        self.refresh()
