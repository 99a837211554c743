"""Reads of the proposal queue (``brainview_proposal`` and ``brainview_consult``) for
the triage list and one proposal's detail, with every large text bounded
(:mod:`brainview.store.bounded`).

A queue page is two queries whatever the queue's size: one count, one keyset-ordered
page.  Nothing here writes.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from sqlalchemy import Connection, text

from brainview.store import bounded
from brainview.store.readmodel import table_exists

SORTS = {
    "age": "created_at ASC, id ASC",
    "newest": "created_at DESC, id DESC",
    "kind": "kind ASC, created_at ASC, id ASC",
    "consulted": "n_consulted DESC, created_at ASC, id ASC",
}
"""Queue orders by name (unknown names read as ``age``)."""


def has_queue(conn: Connection) -> bool:
    """Whether the agent brain has brainview's proposal table yet."""
    return table_exists(conn, "brainview_proposal")


def pending_total(conn: Connection) -> int:
    """How many proposals wait for a decision (outcomes included, as stored)."""
    if not has_queue(conn):
        return 0
    return int(
        conn.execute(
            text("SELECT COUNT(*) FROM brainview_proposal WHERE status = 'pending'")
        ).scalar_one()
    )


def _where(status: str, needle: str) -> tuple[str, dict[str, object]]:
    where = ["status = :status", "kind <> 'outcome'"]  # outcomes are never queued
    params: dict[str, object] = {"status": status}
    if needle:
        where.append(
            "(id LIKE :q ESCAPE '\\' OR kind LIKE :q ESCAPE '\\' OR summary LIKE :q ESCAPE '\\' "
            "OR rationale LIKE :q ESCAPE '\\' OR skill LIKE :q ESCAPE '\\')"
        )
        escaped = needle.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        params["q"] = f"%{escaped}%"
    return " AND ".join(where), params


def queue_page(
    conn: Connection, *, status: str, sort: str, needle: str, offset: int, limit: int
) -> tuple[list[tuple[Any, ...]], int]:
    """One page of the queue and the total matching ``status`` and ``needle`` (a
    substring of id, kind, summary, rationale or skill).  Each row is ``(id, kind,
    skill, summary, created_at, n_consulted, status, params_json or None, suspicion,
    params_json size)``."""
    if not has_queue(conn):
        return [], 0
    clause, params = _where(status, needle)
    total = int(
        conn.execute(
            text(f"SELECT COUNT(*) FROM brainview_proposal WHERE {clause}"), params
        ).scalar_one()
    )
    order = SORTS.get(sort, SORTS["age"])
    rows = conn.execute(
        text(
            f"SELECT id, kind, skill, substr(summary, 1, {bounded.SUMMARY_CHARS}), "
            f"created_at, n_consulted, status, {bounded.params()}, "
            f"substr(suspicion, 1, {bounded.SUSPICION_CHARS}), {bounded.size('params_json')} "
            f"FROM brainview_proposal WHERE {clause} "
            f"ORDER BY {order} LIMIT :limit OFFSET :offset"
        ),
        {**params, "limit": limit, "offset": offset},
    ).fetchall()
    return [tuple(r) for r in rows], total


def queue_signature(conn: Connection) -> tuple[int, int, int]:
    """Count, highest rowid and summed versions: changes when proposals arrive or are
    decided."""
    if not has_queue(conn):
        return (0, 0, 0)
    row = conn.execute(
        text(
            "SELECT COUNT(*), COALESCE(MAX(rowid), 0), COALESCE(SUM(version), 0) "
            "FROM brainview_proposal"
        )
    ).one()
    return (int(row[0]), int(row[1]), int(row[2]))


class ShownProposal(NamedTuple):
    """One proposal as the detail pane shows it; long texts cut and marked
    (:func:`brainview.store.bounded.shown`)."""

    id: str
    kind: str
    skill: str
    status: str
    summary: str
    rationale: str
    created_at: str
    params_json: str | None
    """``None`` when too large to load (``params_size`` says how large)."""
    runtime: str | None
    suspicion: str | None
    params_size: int


def proposal_shown(conn: Connection, proposal_id: str) -> ShownProposal | None:
    """One proposal with its texts bounded, ``None`` when there is none."""
    row = conn.execute(
        text(
            f"SELECT id, kind, skill, status, {bounded.cut('summary', bounded.SUMMARY_CHARS)}, "
            f"{bounded.cut('rationale', bounded.RATIONALE_CHARS)}, created_at, "
            f"{bounded.params()}, runtime, "
            f"substr(suspicion, 1, {bounded.SUSPICION_CHARS}), {bounded.size('params_json')} "
            "FROM brainview_proposal WHERE id = :id"
        ),
        {"id": proposal_id},
    ).first()
    if row is None:
        return None
    summary = bounded.shown(row[4], row[5], bounded.SUMMARY_CHARS)
    rationale = bounded.shown(row[6], row[7], bounded.RATIONALE_CHARS)
    return ShownProposal(
        row[0], row[1], row[2], row[3], summary, rationale,
        row[8], row[9], row[10], row[11], int(row[12] or 0),
    )  # fmt: skip


def consult_links(conn: Connection, proposal_id: str) -> list[tuple[str, str, str, Any]]:
    """``(reflection_id, role, stance, note shown)`` of one proposal, by role then
    consult order; long notes are cut (:func:`brainview.store.bounded.shown`)."""
    note = bounded.cut("note", bounded.NOTE_CHARS)
    return [
        (rid, role, stance, bounded.shown(text_, n, bounded.NOTE_CHARS))
        for rid, role, stance, text_, n in conn.execute(
            text(
                f"SELECT reflection_id, role, stance, {note} FROM brainview_consult "
                "WHERE proposal_id = :id ORDER BY role, seq"
            ),
            {"id": proposal_id},
        )
    ]


def recent_grades(conn: Connection, neuron_id: str, n: int = 5) -> list[int]:
    """The last ``n`` grades a neuron was fired with, oldest first."""
    return [
        int(g)
        for (g,) in conn.execute(
            text(
                "SELECT grade FROM spike WHERE neuron_id = :id "
                "ORDER BY fired_at DESC, id DESC LIMIT :n"
            ),
            {"id": neuron_id, "n": n},
        )
    ][::-1]
