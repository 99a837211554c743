"""Streamed exports of the queue for scripts (``brainview export proposals|decisions``).

Rows come in keyset batches by rowid, so memory stays bounded on big queues; shapes are
plain dicts of JSON values, documented in ``docs/cli.md``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from sqlalchemy import Connection, text

from brainview.core.json_strict import finite, loads_stored
from brainview.services.readout import grades_of, in_clause
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


def _batches(conn: Connection, sql: str, params: dict[str, Any]) -> Iterator[list[Any]]:
    """Keyset batches by rowid (the first selected column must be ``rowid``)."""
    last = -1
    while True:
        rows = conn.execute(text(sql), {**params, "last": last, "n": BATCH}).fetchall()
        if not rows:
            return
        yield rows
        last = rows[-1][0]


def iter_proposals(
    conn: Connection, since: str | None = None, until: str | None = None
) -> Iterator[dict[str, Any]]:
    """Every proposal (filtered on ``created_at``) with its consulted/retrieved lists."""
    if not table_exists(conn, "brainview_proposal"):
        return
    params: dict[str, Any] = {}
    where = _since_until("created_at", since, until, params)
    sql = (
        "SELECT rowid, id, skill, kind, status, summary, rationale, params_json, created_at, "
        "received_at, source, runtime, n_consulted FROM brainview_proposal "
        f"WHERE {where} ORDER BY rowid LIMIT :n"
    )
    for rows in _batches(conn, sql, params):
        links = _links(conn, [r[1] for r in rows])
        for r in rows:
            consulted, retrieved = links.get(r[1], ([], []))
            yield {
                "id": r[1],
                "skill": r[2],
                "kind": r[3],
                "status": r[4],
                "summary": r[5],
                "rationale": r[6],
                "params": loads_stored(r[7]),
                "created_at": r[8],
                "received_at": r[9],
                "source": r[10],
                "runtime": r[11],
                "n_consulted": int(r[12]),
                "consulted": consulted,
                "retrieved": retrieved,
            }


def _links(conn: Connection, ids: list[str]) -> dict[str, tuple[list[dict[str, Any]], list[str]]]:
    out: dict[str, tuple[list[dict[str, Any]], list[str]]] = {}
    params: dict[str, Any] = {}
    where = in_clause("proposal_id", ids, "p", params)
    for pid, rid, role, stance, note in conn.execute(
        text(
            "SELECT proposal_id, reflection_id, role, stance, note FROM brainview_consult "
            f"WHERE {where} ORDER BY proposal_id, role, seq"
        ),
        params,
    ):
        consulted, retrieved = out.setdefault(pid, ([], []))
        if role == "consulted":
            consulted.append({"reflection": rid, "stance": stance, "note": note})
        else:
            retrieved.append(rid)
    return out


def iter_decisions(
    conn: Connection, since: str | None = None, until: str | None = None
) -> Iterator[dict[str, Any]]:
    """Every decision, undone ones included (filtered on ``decided_at``), with its grades."""
    if not table_exists(conn, "brainview_decision"):
        return
    params: dict[str, Any] = {}
    where = _since_until("d.decided_at", since, until, params, rowid="d.rowid")
    sql = (
        "SELECT d.rowid, d.id, d.proposal_id, p.kind, p.skill, d.verdict, d.reason, d.decider, "
        "d.decided_at, d.seconds_on_screen, d.new_reflection_id, d.apply_state, d.undone_at, "
        "d.undone_by FROM brainview_decision d LEFT JOIN brainview_proposal p "
        f"ON p.id = d.proposal_id WHERE {where} ORDER BY d.rowid LIMIT :n"
    )
    keys = ("decision_id", "proposal_id", "kind", "skill", "verdict", "reason", "decider")
    keys += ("decided_at", "seconds_on_screen", "new_reflection_id", "apply_state")
    keys += ("undone_at", "undone_by")
    for rows in _batches(conn, sql, params):
        grades = grades_of(conn, [r[1] for r in rows])
        for r in rows:
            item = dict(zip(keys, r[1:], strict=True))
            item["grades"] = [
                {k: g[k] for k in ("reflection", "stance", "grade")} for g in grades[r[1]]
            ]
            yield finite(item)
