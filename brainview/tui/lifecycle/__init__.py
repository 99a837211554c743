"""Lifecycle of reflections in the console: the invalidate / challenge dialog with its
blast radius (:mod:`.modal`, :mod:`.radius`), the actions a screen composes
(:class:`~.actions.LifecycleActions`) and the watch that notices changes made by any
process (:class:`~.watch.LifecycleWatch`)."""

from brainview.tui.lifecycle.actions import LIFECYCLE_BINDINGS, LifecycleActions
from brainview.tui.lifecycle.modal import InvalidateScreen
from brainview.tui.lifecycle.watch import LifecycleWatch

__all__ = ["LIFECYCLE_BINDINGS", "InvalidateScreen", "LifecycleActions", "LifecycleWatch"]
