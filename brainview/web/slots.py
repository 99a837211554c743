"""Console slots of ``brainview serve`` per role: who may open the next console.

``--max-sessions N`` bounds the consoles (app processes) a server runs.  With sign-in,
the slots are not first come, first served, or one viewer's tabs could take them all
and the maintainers would be turned away (close 1013):

* with ``N >= 3`` one slot is kept for a **maintainer** (reviewers and viewers never
  take the last one);
* with ``N >= 2`` one more is kept for a **reviewer or maintainer** (viewers never
  take it);
* **viewers** together hold at most half the slots (at least one).

A server without sign-in has one person (on loopback), who may take every slot.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from brainview.core.identity import Role


def kept_for_maintainers(max_sessions: int) -> int:
    """Slots only a maintainer may take."""
    return 1 if max_sessions >= 3 else 0


def kept_for_reviewers(max_sessions: int) -> int:
    """Further slots only a reviewer or maintainer may take."""
    return 1 if max_sessions >= 2 else 0


def viewer_share(max_sessions: int) -> int:
    """How many consoles viewers may hold together."""
    return max(1, max_sessions // 2)


def admits(role: Role | None, held: Iterable[Role | None], max_sessions: int) -> bool:
    """Whether a console for ``role`` may start while consoles for ``held`` run
    (``None``: a server without sign-in, where the one person takes any slot)."""
    counts = Counter(held)
    total = sum(counts.values())
    if total >= max_sessions:
        return False
    if role is None or role == "maintainer":
        return True
    room = max_sessions - kept_for_maintainers(max_sessions)
    if role == "reviewer":
        return total < room
    room -= kept_for_reviewers(max_sessions)
    return total < room and counts["viewer"] < viewer_share(max_sessions)


def refusal(role: Role | None, max_sessions: int) -> str:
    """The one line (≤ 123 bytes: a websocket close reason) when ``role`` is refused."""
    if role is None or role == "maintainer":
        return f"all {max_sessions} consoles are in use: close a tab, reload"
    return f"every console a {role} may open is in use: close a tab, reload"
