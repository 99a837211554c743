"""Read-only views of the queue and its decisions for scripts and agents (the CLI's
``proposals list`` and ``proposals show``): filtered keyset pages.

Shapes are plain dicts of JSON values, documented in ``docs/cli.md``; every query is
parameterised and reads at most one page (or one export batch) at a time.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, text

from brainview.core.grading import GRADE_NAMES
from brainview.core.json_strict import loads_stored
from brainview.services.apply.stale import QueuedRef, stale_for
from brainview.services.project import Project
from brainview.store import bounded
from brainview.store.readmodel import table_exists

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
_DECISION_COLS = (
    "id, verdict, reason, decider, decided_at, seconds_on_screen, new_reflection_id, apply_state"
)


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


def in_clause(column: str, values: Sequence[str], name: str, params: dict[str, Any]) -> str:
    marks = []
    for i, value in enumerate(values):
        params[f"{name}{i}"] = value
        marks.append(f":{name}{i}")
    return f"{column} IN ({', '.join(marks)})"


def _where(q: ProposalQuery, params: dict[str, Any]) -> tuple[list[str], str]:
    statuses = STATUS_SETS[q.status]
    clauses = ["p.kind <> 'outcome'"]  # tutor / QABot outcomes: `brainview outcome show`
    if statuses is not None:
        clauses.append(in_clause("p.status", statuses, "st", params))
    if q.kinds:
        clauses.append(in_clause("p.kind", q.kinds, "k", params))
    if q.skills:
        clauses.append(in_clause("p.skill", q.skills, "sk", params))
    ts = "p.created_at" if q.on == "created" else "COALESCE(d.decided_at, '')"
    if q.since:
        clauses.append(f"{ts} >= :since")
        params["since"] = q.since
    if q.until:
        clauses.append(f"{ts} < :until")
        params["until"] = q.until
    return clauses, ts


def _decision(row: Sequence[Any]) -> dict[str, Any] | None:
    if row[0] is None:
        return None
    keys = ["decision_id"] + [k.strip() for k in _DECISION_COLS.split(",")][1:]
    return dict(zip(keys, row, strict=True))


def grades_of(conn: Connection, decision_ids: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
    """The grades each decision fired, in consulted order."""
    out: dict[str, list[dict[str, Any]]] = {d: [] for d in decision_ids}
    for start in range(0, len(decision_ids), 500):
        params: dict[str, Any] = {}
        where = in_clause("decision_id", decision_ids[start : start + 500], "d", params)
        for did, rid, stance, grade, fired in conn.execute(
            text(
                "SELECT decision_id, reflection_id, stance, grade, fired_at FROM brainview_grade "
                f"WHERE {where} ORDER BY rowid"
            ),
            params,
        ):
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
    if not table_exists(conn, "brainview_decision"):
        return []
    cols = _DECISION_COLS.replace("reason", f"substr(reason, 1, {bounded.REASON_CHARS})")
    rows = conn.execute(
        text(
            f"SELECT {cols}, undone_at, undone_by, length(reason) FROM brainview_decision "
            "WHERE proposal_id = :p ORDER BY decided_at, rowid"
        ),
        {"p": proposal_id},
    ).fetchall()
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
    params: dict[str, Any] = {"limit": max(1, min(q.limit, MAX_LIMIT)) + 1}
    clauses, ts = _where(q, params)
    base = (
        "FROM brainview_proposal p LEFT JOIN brainview_decision d "
        "ON d.proposal_id = p.id AND d.undone_at IS NULL"
    )
    counted = " AND ".join(clauses) or "1=1"
    page_clauses = list(clauses)
    if q.after:
        at, _, pid = q.after.partition("|")
        page_clauses.append(f"({ts} > :at OR ({ts} = :at AND p.id > :aid))")
        params.update(at=at, aid=pid)
    where = " AND ".join(page_clauses) or "1=1"
    with project.agent.read() as conn:
        if not table_exists(conn, "brainview_proposal"):
            return [], 0, None
        total = int(conn.execute(text(f"SELECT COUNT(*) {base} WHERE {counted}"), params).scalar())
        dcols = ", ".join(f"d.{c.strip()}" for c in _DECISION_COLS.split(","))
        dcols = dcols.replace("d.reason", f"substr(d.reason, 1, {bounded.REASON_CHARS})")
        # Every free-text column is read bounded (a brain may hold a 50 MB params_json):
        # the cut values in place, their lengths after the decision's columns.
        rows = conn.execute(
            text(
                f"SELECT p.id, p.kind, p.skill, p.status, substr(p.summary, 1, {SUMMARY}), "
                "p.created_at, p.received_at, p.source, p.n_consulted, "
                f"{bounded.params('p.params_json')}, "
                f"substr(p.suspicion, 1, {bounded.SUSPICION_CHARS}), {ts}, {dcols}, "
                f"length(p.summary), {bounded.size('p.params_json')}, length(d.reason) "
                f"{base} WHERE {where} ORDER BY {ts}, p.id LIMIT :limit"
            ),
            params,
        ).fetchall()
        more = len(rows) >= params["limit"]
        rows = rows[: params["limit"] - 1]
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


def _suspicion(value: str | None) -> list[Any]:
    """The ``suspicion`` column (a JSON list of flags; other text is one note)."""
    if not value:
        return []
    try:
        data = json.loads(value)
    except ValueError:
        return [{"kind": "note", "detail": value}]
    return data if isinstance(data, list) else [{"kind": "note", "detail": value}]


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
        "suspicion": _suspicion(r[10]),
        "decision": decision,
        "grades": grades.get(decision["decision_id"], []) if decision else [],
    }
