"""Recall in the console: the box (:mod:`.box`), its renderables (:mod:`.render`) and
the screen that hosts it (:mod:`.screen`)."""

from brainview.tui.recall.screen import RecallScreen

__all__ = ["RecallScreen"]
