"""The typed door from a widget to the brainview app and its session.

``self.app`` is typed as Textual's ``App``; screens and widgets that need the
:class:`~brainview.tui.app.BrainviewApp` (to open a screen) or its
:class:`~brainview.services.session.Session` (config, clock) ask here, once, instead
of reaching for attributes Textual's type does not know.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.dom import DOMNode

    from brainview.services.session import Session
    from brainview.tui.app import BrainviewApp


def bv_app(node: DOMNode) -> BrainviewApp:
    """The brainview app ``node`` runs in."""
    from brainview.tui.app import BrainviewApp

    app = node.app
    if not isinstance(app, BrainviewApp):  # pragma: no cover - programming error
        raise TypeError("this widget needs the brainview app")
    return app


def session_of(node: DOMNode) -> Session:
    """The app's session (paths, config, clock, decider)."""
    return bv_app(node).session


def pruning_threshold(node: DOMNode) -> float:
    """The configured pruning threshold (R below which a reflection is fading)."""
    return float(session_of(node).config.reflections.pruning_threshold)
