"""Which console actions the signed-in person's role allows (hidden when not).

A screen's ``check_action`` asks :func:`allowed` first: a verb the role cannot use is
hidden from the footer, the help and the palette.  Hiding is only a courtesy — the
session refuses the call anyway (:meth:`brainview.services.session.Session.require`),
so a verb reached some other way still ends in the one-line refusal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from brainview.core.roles import LIFECYCLE_VERBS, Action

if TYPE_CHECKING:
    from textual.dom import DOMNode

NEEDS: dict[str, Action] = {
    # triage
    "accept": "decide",
    "reject": "decide",
    "edit_policy": "decide",
    "dismiss_proposal": "dismiss",
    "undo": "undo_own",
    "export": "export",
    # communities: rescue / let go (``decide('rescue')``) and its undo
    "decide": "fading",
    # any screen that shows reflections
    "lifecycle_reinstate": "reinstate",
    "lifecycle_undo": "undo_lifecycle",
    # the app (keys and palette)
    "consolidate": "consolidate",
    "toggle_writing": "writing",
    "queue": "consolidate",
}
"""Console action name → the role-table action it performs."""


def action_of(action: str, parameters: tuple[object, ...] = ()) -> Action | None:
    """The role-table action behind a console action (``None``: a read, always allowed)."""
    if action == "lifecycle":
        verb = str(parameters[0]) if parameters else ""
        return LIFECYCLE_VERBS.get(verb, "invalidate")
    return NEEDS.get(action)


def allowed(node: DOMNode, action: str, parameters: tuple[object, ...] = ()) -> bool:
    """Whether the person at ``node``'s console may use ``action`` (a binding's name)."""
    from brainview.tui.access import session_of

    needed = action_of(action, parameters)
    return needed is None or session_of(node).can(needed)


def refusal(node: DOMNode, action: str, parameters: tuple[object, ...] = ()) -> str | None:
    """The role refusal for ``action`` here, ``None`` when the role allows it."""
    from brainview.core.roles import refusal as said
    from brainview.tui.access import session_of

    needed = action_of(action, parameters)
    if needed is None:
        return None
    session = session_of(node)
    return said(needed, session.decider, session.role)
