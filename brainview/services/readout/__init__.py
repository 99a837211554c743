"""Read-only views of the queue and its decisions for scripts and agents (the CLI's
``proposals list`` and ``proposals show``): filtered keyset pages.

Shapes are plain dicts of JSON values, documented in ``docs/cli.md``; every query is
parameterised and reads at most one page (or one export batch) at a time.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection

from brainview.core.grading import GRADE_NAMES
from brainview.core.json_strict import loads_stored
from brainview.core.suspicion import decode_suspicion
from brainview.services.apply.stale import QueuedRef, stale_for
from brainview.services.project import Project
from brainview.store import bounded, decision_reads, proposal_listing, proposal_reads

STATUS_SETS: dict[str, tuple[str, ...] | None] = {
    "pending": ("pending",),
    "accepted": ("accepted",),
    "rejected": ("rejected",),
    "dismissed": ("dismissed",),
    "decided": ("accepted", "rejected"),
    "all": None,
}
MAX_LIMIT = 10_000
SUMMARY = bounded.SUMMARY_CHARS
_DECISION_COLS = proposal_listing.DECISION_COLS


@dataclass(frozen=True)
class ProposalQuery:
    """Filters for :func:`list_proposals` (times are stored-format ISO strings)."""

    status: str = "pending"
    kinds: tuple[str, ...] = ()
    skills: tuple[str, ...] = ()
    since: str | None = None
    until: str | None = None
    on: str = "created"
    """``created`` (``created_at``) or ``decided`` (the live decision's ``decided_at``)."""
    after: str | None = None
    """Keyset cursor from the previous page (``"<time>|<id>"``)."""
    limit: int = 100


def _decision(row: Sequence[Any]) -> dict[str, Any] | None:
    if row[0] is None:
        return None
    keys = ["decision_id"] + [k.strip() for k in _DECISION_COLS.split(",")][1:]
    return dict(zip(keys, row, strict=True))


def grades_of(conn: Connection, decision_ids: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
    """The grades each decision fired, in consulted order."""
    out: dict[str, list[dict[str, Any]]] = {d: [] for d in decision_ids}
    for did, rid, stance, grade, fired in proposal_listing.grade_rows(conn, decision_ids):
        out[did].append(
            {
                "reflection": rid,
                "stance": stance,
                "grade": int(grade),
                "grade_name": GRADE_NAMES.get(int(grade), str(grade)),
                "fired_at": fired,
            }
        )
    return out


def decisions_of(conn: Connection, proposal_id: str) -> list[dict[str, Any]]:
    """Every decision on one proposal (undone ones too), oldest first, with grades."""
    rows = proposal_listing.decisions_on(conn, proposal_id)
    grades = grades_of(conn, [r[0] for r in rows])
    out = []
    for r in rows:
        item = _decision(r[:8]) or {}
        item["reason"] = bounded.shown(item["reason"], r[10], bounded.REASON_CHARS)
        item.update(undone_at=r[8], undone_by=r[9], grades=grades[r[0]])
        out.append(item)
    return out


def list_proposals(
    project: Project, q: ProposalQuery
) -> tuple[list[dict[str, Any]], int, str | None]:
    """One page of proposals, the total matching, and the cursor of the next page."""
    if project.agent is None:
        return [], 0, None
    limit = max(1, min(q.limit, MAX_LIMIT)) + 1
    with project.agent.read() as conn:
        rows, total = proposal_listing.proposal_page(
            conn, statuses=STATUS_SETS[q.status], kinds=q.kinds, skills=q.skills,
            since=q.since, until=q.until, on=q.on, after=q.after, limit=limit,
        )  # fmt: skip
        more = len(rows) >= limit
        rows = rows[: limit - 1]
        decided = [r[12] for r in rows if r[12] is not None]
        grades = grades_of(conn, decided) if decided else {}
    out = [_proposal_row(r, grades) for r in rows]
    pending = [QueuedRef(r[0], r[1], r[9], r[5], r[21]) for r in rows if r[3] == "pending"]
    if pending:
        reasons = stale_for(project, pending)  # every check the accept gate makes
        for item in out:
            item["stale"] = reasons.get(item["id"]) if item["status"] == "pending" else None
    cursor = f"{rows[-1][11]}|{rows[-1][0]}" if more and rows else None
    return out, total, cursor


def _proposal_row(r: Sequence[Any], grades: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    decision = _decision(r[12:20])
    if decision is not None:
        decision["reason"] = bounded.shown(decision["reason"], r[22], bounded.REASON_CHARS)
    return {
        "id": r[0],
        "kind": r[1],
        "skill": r[2],
        "status": r[3],
        "summary": bounded.shown(r[4], r[20], SUMMARY),
        "created_at": r[5],
        "received_at": r[6],
        "source": r[7],
        "n_consulted": int(r[8]),
        "params": None if r[9] is None else loads_stored(r[9]),
        "stale": None,
        "suspicion": decode_suspicion(r[10]),  # the flags the console shows, no other items
        "decision": decision,
        "grades": grades.get(decision["decision_id"], []) if decision else [],
    }


def policy_proposer(project: Project, policy_id: str) -> str | None:
    """The ``summarize_community`` proposal that would create policy ``policy_id`` (so
    "no proposal X" can point at it), ``None`` when there is none."""
    if project.agent is None:
        return None
    with project.agent.read() as conn:
        if not proposal_reads.has_queue(conn):
            return None
        return decision_reads.policy_proposer(conn, policy_id)
