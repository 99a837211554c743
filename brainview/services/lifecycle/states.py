"""Where a reflection stands in its lifecycle (``live → challenged → quarantined →
invalidated``, or ``retired`` by something else), read from the neuron and the
lifecycle log."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import Connection

from brainview.core.suspicion import CHALLENGED, INVALIDATED, LIVE, QUARANTINED, RETIRED
from brainview.errors import NotFoundError
from brainview.services.project import Project
from brainview.store import lifecycle_log
from brainview.store.era import Era
from brainview.store.readmodel import neurons_by_ids

MISSING = "missing"
"""What a screen shows for a reflection that is no longer in the brain at all."""
TARGET = {
    "challenge": CHALLENGED,
    "quarantine": QUARANTINED,
    "invalidate": INVALIDATED,
    "reinstate": LIVE,
    "release": LIVE,
}
"""Verb → the state it leads to."""
NO_REASON = ("reinstate", "release")
"""Verbs whose reason is optional."""
RECALLABLE = (LIVE, CHALLENGED)
"""States recall may return (a challenged lesson marked and down-ranked)."""
MAX_REASON = 10_000
MAX_BATCH = 50_000


@dataclass(frozen=True)
class Status:
    """Where one agent-brain neuron stands."""

    reflection_id: str
    state: str
    reason: str = ""
    actor: str | None = None
    at: str | None = None
    batch_id: str | None = None
    retired_at: str | None = None


def statuses(conn: Connection, era: Era, ids: Sequence[str]) -> dict[str, Status]:
    """Current status of each existing id (unknown ids are absent)."""
    found = neurons_by_ids(conn, era, list(ids))
    latest = lifecycle_log.latest_states(conn, list(found))
    out: dict[str, Status] = {}
    for rid, n in found.items():
        state, reason, actor, at, batch = latest.get(rid, (LIVE, "", None, None, None))
        if n.retired_at is not None and state != INVALIDATED:
            state = RETIRED
        out[rid] = Status(rid, state, reason, actor, at, batch, n.retired_at)
    return out


def status_of(project: Project, rid: str) -> Status:
    """One reflection's status (NotFoundError when it does not exist)."""
    agent = project.require_agent()
    with agent.read() as conn:
        found = statuses(conn, agent.era, [rid])
    if rid not in found:
        raise NotFoundError(f"no reflection {rid!r} in the agent brain")
    return found[rid]
