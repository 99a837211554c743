"""The consolidate modal: plan, read the outline, queue the items as proposals."""

from brainview.tui.consolidate.screen import ConsolidateScreen

__all__ = ["ConsolidateScreen"]
