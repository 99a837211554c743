"""The proposal queue as the triage screen reads it: light rows, one page at a time.

A page costs a constant number of queries: one count, one page read, the batched
staleness checks of :func:`brainview.services.apply.stale.stale_for` for that page and the
lifecycle states of the reflections its proposals consulted.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from brainview.services.apply.stale import QueuedRef, stale_for
from brainview.services.project import Project
from brainview.services.review.flags import leaning
from brainview.store import proposal_reads

PAGE = 200


@dataclass(frozen=True)
class QueueRow:
    """What one line of the queue shows."""

    id: str
    kind: str
    skill: str
    summary: str
    created_at: str
    n_consulted: int
    status: str
    params_json: str | None
    """``None`` when too large to load (:mod:`brainview.store.bounded`)."""
    stale: str | None = None
    """Why the proposal no longer fits the brain (pending rows only), or ``None``."""
    suspicion: str | None = None
    """``brainview_proposal.suspicion``: a JSON list of flags (see
    :func:`brainview.services.lifecycle.blast.decode_suspicion`), or ``None``."""
    leans: tuple[tuple[str, str], ...] = ()
    """Consulted reflections that are not live now, ``(id, state)`` (pending rows only;
    :func:`brainview.services.review.flags.leaning`)."""


def pending_total(project: Project) -> int:
    """How many proposals wait for a decision."""
    if project.agent is None:
        return 0
    with project.agent.read() as conn:
        return proposal_reads.pending_total(conn)


def page(
    project: Project,
    *,
    status: str = "pending",
    sort: str = "age",
    needle: str = "",
    offset: int = 0,
    limit: int = PAGE,
) -> tuple[list[QueueRow], int]:
    """One page of the queue and the total matching; stale flags for that page only."""
    if project.agent is None:
        return [], 0
    with project.agent.read() as conn:
        read, total = proposal_reads.queue_page(
            conn, status=status, sort=sort, needle=needle, offset=offset, limit=limit
        )
        rows = [QueueRow(*r[:8], suspicion=r[8]) for r in read]
        chars = {r[0]: int(r[9] or 0) for r in read}
        if status == "pending" and rows:
            refs = [QueuedRef(r.id, r.kind, r.params_json, r.created_at, chars[r.id]) for r in rows]
            reasons = stale_for(project, refs, agent_conn=conn)
            leans = leaning(conn, project.agent.era, [r.id for r in rows])
            rows = [replace(r, stale=reasons.get(r.id), leans=leans.get(r.id, ())) for r in rows]
    return rows, total


def signature(project: Project) -> tuple[int, int, int]:
    """A cheap fingerprint of the queue: changes when proposals arrive or are decided."""
    if project.agent is None:
        return (0, 0, 0)
    with project.agent.read() as conn:
        return proposal_reads.queue_signature(conn)
