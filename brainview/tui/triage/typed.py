"""The app, typed: triage widgets reach the session, clock and config through here."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.dom import DOMNode

    from brainview.tui.app import BrainviewApp


def brainview_app(node: DOMNode) -> BrainviewApp:
    """``node.app`` as the brainview app (the one cast, checked)."""
    from brainview.tui.app import BrainviewApp

    app = node.app
    if not isinstance(app, BrainviewApp):  # pragma: no cover - programming error
        raise TypeError("the triage screen runs inside the brainview app")
    return app
