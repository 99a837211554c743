"""The one typed door from any widget or screen to the brainview app.

``self.app`` is typed ``App[object]`` by Textual, so reaching ``session``, ``config``,
``paths`` or ``services`` through it needs a cast.  Do it here, once::

    from brainview.tui.access import brainview_app

    app = brainview_app(self)
    app.session.project()  # typed: Session
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.dom import DOMNode

    from brainview.services.session import Session
    from brainview.tui.app import BrainviewApp


def brainview_app(node: DOMNode) -> BrainviewApp:
    """``node``'s app as a :class:`BrainviewApp` (``TypeError`` under any other app)."""
    from brainview.tui.app import BrainviewApp

    app = node.app
    if not isinstance(app, BrainviewApp):  # pragma: no cover - programming error
        raise TypeError(f"{type(node).__name__} runs outside the brainview app")
    return app


def session_of(node: DOMNode) -> Session:
    """The app's :class:`~brainview.services.session.Session` (the services door)."""
    return brainview_app(node).session


def pruning_threshold(node: DOMNode) -> float:
    """The configured pruning threshold (R below which a reflection is fading)."""
    return float(session_of(node).config.reflections.pruning_threshold)
