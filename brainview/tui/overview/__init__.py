"""The overview screen: both brains' vital signs, retention and agent metrics."""

from brainview.tui.overview.screen import OverviewScreen

__all__ = ["OverviewScreen"]
