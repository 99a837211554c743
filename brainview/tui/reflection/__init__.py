"""The reflection view: text, card, history, forecast, audit trail, lifecycle actions."""

from brainview.tui.reflection.screen import ReflectionScreen

__all__ = ["ReflectionScreen"]
