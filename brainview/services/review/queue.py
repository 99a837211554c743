"""The proposal queue as the triage screen reads it: light rows, one page at a time.

A page costs a constant number of queries: one count, one page read, the batched
staleness checks of :func:`brainview.services.apply.stale.stale_for` for that page and the
lifecycle states of the reflections its proposals consulted.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from sqlalchemy import text

from brainview.services.apply.stale import QueuedRef, stale_for
from brainview.services.project import Project
from brainview.services.review.flags import leaning
from brainview.store import bounded
from brainview.store.readmodel import table_exists

SORTS = {
    "age": "created_at ASC, id ASC",
    "newest": "created_at DESC, id DESC",
    "kind": "kind ASC, created_at ASC, id ASC",
    "consulted": "n_consulted DESC, created_at ASC, id ASC",
}
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
        if not table_exists(conn, "brainview_proposal"):
            return 0
        return int(
            conn.execute(
                text("SELECT COUNT(*) FROM brainview_proposal WHERE status = 'pending'")
            ).scalar_one()
        )


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
    where = ["status = :status", "kind <> 'outcome'"]  # outcomes are never queued
    params: dict[str, object] = {"status": status, "limit": limit, "offset": offset}
    if needle:
        where.append(
            "(id LIKE :q ESCAPE '\\' OR kind LIKE :q ESCAPE '\\' OR summary LIKE :q ESCAPE '\\' "
            "OR rationale LIKE :q ESCAPE '\\' OR skill LIKE :q ESCAPE '\\')"
        )
        escaped = needle.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        params["q"] = f"%{escaped}%"
    clause = " AND ".join(where)
    order = SORTS.get(sort, SORTS["age"])
    with project.agent.read() as conn:
        if not table_exists(conn, "brainview_proposal"):
            return [], 0
        total = int(
            conn.execute(
                text(f"SELECT COUNT(*) FROM brainview_proposal WHERE {clause}"), params
            ).scalar_one()
        )
        read = conn.execute(
            text(
                f"SELECT id, kind, skill, substr(summary, 1, {bounded.SUMMARY_CHARS}), "
                f"created_at, n_consulted, status, {bounded.params()}, "
                f"substr(suspicion, 1, {bounded.SUSPICION_CHARS}), {bounded.size('params_json')} "
                f"FROM brainview_proposal WHERE {clause} "
                f"ORDER BY {order} LIMIT :limit OFFSET :offset"
            ),
            params,
        ).fetchall()
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
        if not table_exists(conn, "brainview_proposal"):
            return (0, 0, 0)
        row = conn.execute(
            text(
                "SELECT COUNT(*), COALESCE(MAX(rowid), 0), COALESCE(SUM(version), 0) "
                "FROM brainview_proposal"
            )
        ).one()
    return (int(row[0]), int(row[1]), int(row[2]))
