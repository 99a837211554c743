"""Filtered keyset pages of the queue with each proposal's live decision, and the
decisions and grades of proposals — the reads behind ``proposals list|show`` and the
decision feed (:mod:`brainview.services.readout` shapes them).

Every free-text column is read bounded (a brain may hold a 50 MB ``params_json``):
the cut values in place, their full lengths after the decision's columns.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, text

from brainview.store import bounded
from brainview.store.readmodel import table_exists

DECISION_COLS = (
    "id, verdict, reason, decider, decided_at, seconds_on_screen, new_reflection_id, apply_state"
)
"""The decision columns a listing carries, in this order."""
_BASE = (
    "FROM brainview_proposal p LEFT JOIN brainview_decision d "
    "ON d.proposal_id = p.id AND d.undone_at IS NULL"
)


def in_clause(column: str, values: Sequence[str], name: str, params: dict[str, Any]) -> str:
    """``column IN (:name0, …)`` with the values bound into ``params``."""
    marks = []
    for i, value in enumerate(values):
        params[f"{name}{i}"] = value
        marks.append(f":{name}{i}")
    return f"{column} IN ({', '.join(marks)})"


def _where(
    statuses: Sequence[str] | None,
    kinds: Sequence[str],
    skills: Sequence[str],
    since: str | None,
    until: str | None,
    on: str,
    params: dict[str, Any],
) -> tuple[list[str], str]:
    clauses = ["p.kind <> 'outcome'"]  # tutor / QABot outcomes: `brainview outcome show`
    if statuses is not None:
        clauses.append(in_clause("p.status", statuses, "st", params))
    if kinds:
        clauses.append(in_clause("p.kind", kinds, "k", params))
    if skills:
        clauses.append(in_clause("p.skill", skills, "sk", params))
    ts = "p.created_at" if on == "created" else "COALESCE(d.decided_at, '')"
    if since:
        clauses.append(f"{ts} >= :since")
        params["since"] = since
    if until:
        clauses.append(f"{ts} < :until")
        params["until"] = until
    return clauses, ts


def proposal_page(
    conn: Connection,
    *,
    statuses: Sequence[str] | None,
    kinds: Sequence[str] = (),
    skills: Sequence[str] = (),
    since: str | None = None,
    until: str | None = None,
    on: str = "created",
    after: str | None = None,
    limit: int,
) -> tuple[list[tuple[Any, ...]], int]:
    """Up to ``limit`` rows after the cursor ``after`` (``"<time>|<id>"``) ordered by
    time then id, and the total matching.  ``on`` is ``created`` or ``decided``.

    A row is ``(id, kind, skill, status, summary cut, created_at, received_at, source,
    n_consulted, params_json or None, suspicion cut, time, *DECISION_COLS, summary
    length, params size, reason length)``.
    """
    if not table_exists(conn, "brainview_proposal"):
        return [], 0
    params: dict[str, Any] = {"limit": limit}
    clauses, ts = _where(statuses, kinds, skills, since, until, on, params)
    counted = " AND ".join(clauses) or "1=1"
    page_clauses = list(clauses)
    if after:
        at, _, pid = after.partition("|")
        page_clauses.append(f"({ts} > :at OR ({ts} = :at AND p.id > :aid))")
        params.update(at=at, aid=pid)
    where = " AND ".join(page_clauses) or "1=1"
    total = int(conn.execute(text(f"SELECT COUNT(*) {_BASE} WHERE {counted}"), params).scalar_one())
    dcols = ", ".join(f"d.{c.strip()}" for c in DECISION_COLS.split(","))
    dcols = dcols.replace("d.reason", f"substr(d.reason, 1, {bounded.REASON_CHARS})")
    rows = conn.execute(
        text(
            f"SELECT p.id, p.kind, p.skill, p.status, "
            f"substr(p.summary, 1, {bounded.SUMMARY_CHARS}), "
            "p.created_at, p.received_at, p.source, p.n_consulted, "
            f"{bounded.params('p.params_json')}, "
            f"substr(p.suspicion, 1, {bounded.SUSPICION_CHARS}), {ts}, {dcols}, "
            f"length(p.summary), {bounded.size('p.params_json')}, length(d.reason) "
            f"{_BASE} WHERE {where} ORDER BY {ts}, p.id LIMIT :limit"
        ),
        params,
    ).fetchall()
    return [tuple(r) for r in rows], total


def grade_rows(conn: Connection, decision_ids: Sequence[str]) -> list[tuple[Any, ...]]:
    """``(decision_id, reflection_id, stance, grade, fired_at)`` of the grades the
    decisions fired, in the order they were written."""
    out: list[tuple[Any, ...]] = []
    for start in range(0, len(decision_ids), 500):
        params: dict[str, Any] = {}
        where = in_clause("decision_id", decision_ids[start : start + 500], "d", params)
        out += [
            tuple(r)
            for r in conn.execute(
                text(
                    "SELECT decision_id, reflection_id, stance, grade, fired_at "
                    f"FROM brainview_grade WHERE {where} ORDER BY rowid"
                ),
                params,
            )
        ]
    return out


def decisions_on(conn: Connection, proposal_id: str) -> list[tuple[Any, ...]]:
    """Every decision on one proposal, undone ones too, oldest first:
    ``(*DECISION_COLS with reason cut, undone_at, undone_by, reason length)``."""
    if not table_exists(conn, "brainview_decision"):
        return []
    cols = DECISION_COLS.replace("reason", f"substr(reason, 1, {bounded.REASON_CHARS})")
    rows = conn.execute(
        text(
            f"SELECT {cols}, undone_at, undone_by, length(reason) FROM brainview_decision "
            "WHERE proposal_id = :p ORDER BY decided_at, rowid"
        ),
        {"p": proposal_id},
    ).fetchall()
    return [tuple(r) for r in rows]
