"""Help: the keys in effect on the screen underneath, then the guide."""

from brainview.tui.help.screen import HelpScreen

__all__ = ["HelpScreen"]
