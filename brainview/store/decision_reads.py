"""Queries behind deciding and undoing: the decision rows of one undo unit, bulk
grouping, the undo stamp, and the small reads a decision checks first.

Called by :mod:`brainview.services.review` inside the transaction it opened; nothing
here commits.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, text

from brainview.store.rows import driver, select_in


def decision(conn: Connection, decision_id: str) -> dict[str, Any] | None:
    """The decision row ``decision_id`` (undone or not), ``None`` when there is none."""
    row = (
        conn.execute(text("SELECT * FROM brainview_decision WHERE id = :id"), {"id": decision_id})
        .mappings()
        .first()
    )
    return None if row is None else dict(row)


def newest_live_decision(conn: Connection) -> dict[str, Any] | None:
    """The most recent decision not undone, ``None`` when every one is."""
    row = (
        conn.execute(
            text(
                "SELECT * FROM brainview_decision WHERE undone_at IS NULL "
                "ORDER BY decided_at DESC, rowid DESC LIMIT 1"
            )
        )
        .mappings()
        .first()
    )
    return None if row is None else dict(row)


def live_group_members(conn: Connection, group_id: str) -> list[dict[str, Any]]:
    """The decisions of one bulk decision not undone yet, newest first."""
    rows = conn.execute(
        text(
            "SELECT * FROM brainview_decision WHERE group_id = :g AND undone_at IS NULL "
            "ORDER BY decided_at DESC, rowid DESC"
        ),
        {"g": group_id},
    ).mappings()
    return [dict(r) for r in rows]


def set_group(conn: Connection, group_id: str, decision_ids: Sequence[str]) -> None:
    """Tie ``decision_ids`` together as one bulk decision (column must exist)."""
    driver(conn).executemany(
        "UPDATE brainview_decision SET group_id = ? WHERE id = ?",
        [(group_id, did) for did in decision_ids],
    )


def mark_undone(conn: Connection, decision_id: str, *, at: str, by: str) -> None:
    """Stamp a decision undone."""
    conn.execute(
        text("UPDATE brainview_decision SET undone_at = :at, undone_by = :by WHERE id = :id"),
        {"at": at, "by": by, "id": decision_id},
    )


def retired_neurons(conn: Connection, ids: Sequence[str]) -> list[str]:
    """Which of ``ids`` are retired neurons (``retired_at`` set)."""
    sql = "SELECT id FROM neuron WHERE id IN ({marks}) AND retired_at IS NOT NULL"
    return [str(r[0]) for r in select_in(driver(conn), sql, ids)]


def proposal_kinds(conn: Connection, ids: Sequence[str]) -> list[str] | None:
    """The kinds of the proposals ``ids`` found (``None``: there is no queue yet)."""
    sql = "SELECT kind FROM brainview_proposal WHERE id IN ({marks})"
    try:
        return [str(k) for (k,) in select_in(driver(conn), sql, ids)]
    except sqlite3.OperationalError:  # no brainview_proposal table
        return None


def proposal_runtimes(conn: Connection, ids: Sequence[str]) -> dict[str, str | None]:
    """Proposal id → its recorded ``runtime`` (its author), for the ``ids`` that exist."""
    sql = "SELECT id, runtime FROM brainview_proposal WHERE id IN ({marks})"
    try:
        return {str(p): r for p, r in select_in(driver(conn), sql, list(dict.fromkeys(ids)))}
    except sqlite3.OperationalError:  # no brainview_proposal table
        return {}


def proposal_suspicions(conn: Connection, ids: Sequence[str]) -> dict[str, str | None]:
    """Proposal id → its stored suspicion flags, for the ``ids`` that exist."""
    sql = "SELECT id, suspicion FROM brainview_proposal WHERE id IN ({marks})"
    return {str(p): s for p, s in select_in(driver(conn), sql, ids)}


def consulted_pairs(conn: Connection, proposal_ids: Sequence[str]) -> list[tuple[str, str]]:
    """``(proposal_id, reflection_id)`` of every consulted reflection, in consult order."""
    sql = (
        "SELECT proposal_id, reflection_id FROM brainview_consult "
        "WHERE role = 'consulted' AND proposal_id IN ({marks}) ORDER BY proposal_id, seq"
    )
    return [(str(p), str(r)) for p, r in select_in(driver(conn), sql, proposal_ids)]


def policy_proposer(conn: Connection, policy_id: str) -> str | None:
    """The ``summarize_community`` proposal that would create policy ``policy_id``."""
    row = conn.execute(
        text(
            "SELECT id FROM brainview_proposal WHERE kind = 'summarize_community' "
            "AND json_extract(params_json, '$.policy') = :p LIMIT 1"
        ),
        {"p": policy_id},
    ).first()
    return None if row is None else str(row[0])
