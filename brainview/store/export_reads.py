"""Keyset batches of the whole queue and of every decision, for exports: memory stays
bounded on big queues (``brainview export proposals|decisions`` shape the rows)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from sqlalchemy import Connection, text

from brainview.store.proposal_listing import in_clause
from brainview.store.readmodel import table_exists

BATCH = 1_000


def _since_until(
    column: str, since: str | None, until: str | None, params: dict[str, Any], rowid: str = "rowid"
) -> str:
    clauses = [f"{rowid} > :last"]
    if since:
        clauses.append(f"{column} >= :since")
        params["since"] = since
    if until:
        clauses.append(f"{column} < :until")
        params["until"] = until
    return " AND ".join(clauses)


def _batches(conn: Connection, sql: str, params: dict[str, Any]) -> Iterator[Sequence[Any]]:
    """Keyset batches by rowid (the first selected column must be ``rowid``)."""
    last = -1
    while True:
        rows = conn.execute(text(sql), {**params, "last": last, "n": BATCH}).fetchall()
        if not rows:
            return
        yield rows
        last = rows[-1][0]


def proposal_batches(
    conn: Connection, since: str | None = None, until: str | None = None
) -> Iterator[Sequence[Any]]:
    """Every proposal created in ``[since, until)``, in batches: ``(rowid, id, skill,
    kind, status, summary, rationale, params_json, created_at, received_at, source,
    runtime, n_consulted)``."""
    if not table_exists(conn, "brainview_proposal"):
        return
    params: dict[str, Any] = {}
    where = _since_until("created_at", since, until, params)
    yield from _batches(
        conn,
        "SELECT rowid, id, skill, kind, status, summary, rationale, params_json, created_at, "
        "received_at, source, runtime, n_consulted FROM brainview_proposal "
        f"WHERE {where} ORDER BY rowid LIMIT :n",
        params,
    )


def consult_rows(conn: Connection, proposal_ids: Sequence[str]) -> list[tuple[Any, ...]]:
    """``(proposal_id, reflection_id, role, stance, note)`` of the proposals, by
    proposal, role and consult order."""
    params: dict[str, Any] = {}
    where = in_clause("proposal_id", proposal_ids, "p", params)
    return [
        tuple(r)
        for r in conn.execute(
            text(
                "SELECT proposal_id, reflection_id, role, stance, note FROM brainview_consult "
                f"WHERE {where} ORDER BY proposal_id, role, seq"
            ),
            params,
        )
    ]


def decision_batches(
    conn: Connection, since: str | None = None, until: str | None = None
) -> Iterator[Sequence[Any]]:
    """Every decision made in ``[since, until)``, undone ones included, in batches:
    ``(rowid, id, proposal_id, kind, skill, verdict, reason, decider, decided_at,
    seconds_on_screen, new_reflection_id, apply_state, undone_at, undone_by)``."""
    if not table_exists(conn, "brainview_decision"):
        return
    params: dict[str, Any] = {}
    where = _since_until("d.decided_at", since, until, params, rowid="d.rowid")
    yield from _batches(
        conn,
        "SELECT d.rowid, d.id, d.proposal_id, p.kind, p.skill, d.verdict, d.reason, d.decider, "
        "d.decided_at, d.seconds_on_screen, d.new_reflection_id, d.apply_state, d.undone_at, "
        "d.undone_by FROM brainview_decision d LEFT JOIN brainview_proposal p "
        f"ON p.id = d.proposal_id WHERE {where} ORDER BY d.rowid LIMIT :n",
        params,
    )
