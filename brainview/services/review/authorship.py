"""The no-self-approval rule at the decision door (:meth:`brainview.services.session.
Session.decide` and :meth:`~brainview.services.session.Session.dismiss`).

Read before anything is opened for writing: a refused batch writes no row.  The rule
is :func:`brainview.core.authorship.self_approval`; a project lifts it with
``review.allow_self_approval = true``.
"""

from __future__ import annotations

from collections.abc import Sequence

from brainview.core.authorship import self_approval
from brainview.errors import SelfApprovalError
from brainview.services.project import Project
from brainview.store.decision_reads import proposal_runtimes


def refuse_self_approval(project: Project, ids: Sequence[str], decider: str, verdict: str) -> None:
    """Raise :class:`SelfApprovalError` when ``decider`` proposed any of ``ids``."""
    if project.agent is None or not ids:
        return
    with project.agent.read() as conn:
        found = proposal_runtimes(conn, ids)
    unique = list(dict.fromkeys(ids))
    why = self_approval(decider, ((p, found.get(p)) for p in unique), verdict, len(unique))
    if why is not None:
        raise SelfApprovalError(why)
