"""Streamed exports of the queue for scripts (``brainview export proposals|decisions``).

Rows come in keyset batches by rowid, so memory stays bounded on big queues; shapes are
plain dicts of JSON values, documented in ``docs/cli.md``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from sqlalchemy import Connection

from brainview.core.json_strict import finite, loads_stored
from brainview.services.readout import grades_of
from brainview.store import export_reads


def iter_proposals(
    conn: Connection, since: str | None = None, until: str | None = None
) -> Iterator[dict[str, Any]]:
    """Every proposal (filtered on ``created_at``) with its consulted/retrieved lists."""
    for rows in export_reads.proposal_batches(conn, since, until):
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
    for pid, rid, role, stance, note in export_reads.consult_rows(conn, ids):
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
    keys: tuple[str, ...] = ("decision_id", "proposal_id", "kind", "skill", "verdict")
    keys += ("reason", "decider")
    keys += ("decided_at", "seconds_on_screen", "new_reflection_id", "apply_state")
    keys += ("undone_at", "undone_by")
    for rows in export_reads.decision_batches(conn, since, until):
        grades = grades_of(conn, [r[1] for r in rows])
        for r in rows:
            item = dict(zip(keys, r[1:], strict=True))
            item["grades"] = [
                {k: g[k] for k in ("reflection", "stance", "grade")} for g in grades[r[1]]
            ]
            yield finite(item)
