"""What each role may do: a pure table and the check every write goes through.

Three roles, weakest first (:data:`brainview.core.identity.ROLES`):

* ``viewer`` reads: no write of any kind (not even recovering an interrupted change);
* ``reviewer`` also decides proposals (accept, reject, dismiss), queues proposals (a
  curator's batch, a ``spkt`` plan, tier moves), undoes their own decisions, rescues
  or lets go of fading reflections, records outcomes, reports and decides held-back
  drafts and exports the queue view to a file;
* ``maintainer`` may also challenge, invalidate and reinstate reflections (and
  quarantine or release them), act on a
  blast radius, undo a lifecycle batch, import a ``.learnings/`` tree, consolidate
  (plan, queue, and decide the consolidation's proposals), pause or resume reflection
  writing and undo someone else's decision.

:data:`NEEDS` maps each action to the weakest role allowed; :func:`refusal` is the
one line said when a person's role is below it (``None`` when allowed).  A console
started by hand runs as ``maintainer``.
"""

from __future__ import annotations

from typing import Literal

from brainview.core.identity import ROLES, Role

Action = Literal[
    "decide",
    "dismiss",
    "undo_own",
    "undo_other",
    "fading",
    "outcome",
    "export",
    "recover",
    "challenge",
    "invalidate",
    "reinstate",
    "quarantine",
    "release",
    "blast",
    "undo_lifecycle",
    "consolidate",
    "decide_consolidation",
    "writing",
    "propose",
    "import",
    "report_held_back",
    "decide_held_back",
]

NEEDS: dict[Action, Role] = {
    "decide": "reviewer",
    "dismiss": "reviewer",
    "undo_own": "reviewer",
    "fading": "reviewer",
    "outcome": "reviewer",
    "export": "reviewer",
    "recover": "reviewer",
    "propose": "reviewer",
    "undo_other": "maintainer",
    "challenge": "maintainer",
    "invalidate": "maintainer",
    "reinstate": "maintainer",
    "quarantine": "maintainer",
    "release": "maintainer",
    "blast": "maintainer",
    "undo_lifecycle": "maintainer",
    "consolidate": "maintainer",
    "decide_consolidation": "maintainer",
    "writing": "maintainer",
    "import": "maintainer",
    "report_held_back": "reviewer",
    "decide_held_back": "reviewer",
}
"""The weakest role allowed each action."""

DOING: dict[Action, str] = {
    "decide": "deciding proposals",
    "dismiss": "dismissing proposals",
    "undo_own": "undoing a decision",
    "undo_other": "undoing someone else's decision",
    "fading": "rescuing or letting go of fading reflections",
    "outcome": "recording outcomes",
    "export": "exporting to a file",
    "recover": "finishing interrupted changes",
    "challenge": "challenging reflections",
    "invalidate": "invalidating reflections",
    "reinstate": "reinstating reflections",
    "quarantine": "quarantining reflections",
    "release": "releasing reflections from quarantine",
    "blast": "acting on a blast radius",
    "undo_lifecycle": "undoing a lifecycle batch",
    "consolidate": "consolidating the agent brain",
    "decide_consolidation": "deciding consolidation proposals",
    "writing": "pausing or resuming reflection writing",
    "propose": "queueing proposals",
    "import": "importing a .learnings/ tree",
    "report_held_back": "reporting held-back drafts",
    "decide_held_back": "deciding held-back drafts",
}
"""What each action is called in a refusal."""

LIFECYCLE_VERBS: dict[str, Action] = {
    "challenge": "challenge",
    "invalidate": "invalidate",
    "reinstate": "reinstate",
    "quarantine": "quarantine",
    "release": "release",
}
"""A lifecycle verb's action (an unknown verb is left to the lifecycle service)."""


def rank(role: Role) -> int:
    """``role``'s place, weakest first (viewer 0, reviewer 1, maintainer 2)."""
    return ROLES.index(role)


def allows(role: Role, action: Action) -> bool:
    """Whether ``role`` may do ``action``."""
    return rank(role) >= rank(NEEDS[action])


def refusal(action: Action, name: str, role: Role) -> str | None:
    """The one-line refusal when ``name`` (holding ``role``) may not do ``action``, e.g.
    ``invalidating reflections needs the maintainer role (alice is a reviewer)``;
    ``None`` when allowed."""
    if allows(role, action):
        return None
    return f"{DOING[action]} needs the {NEEDS[action]} role ({name} is a {role})"


def may_do(role: Role) -> list[Action]:
    """Every action ``role`` may do, in table order."""
    return [a for a in NEEDS if allows(role, a)]
