"""Reads about recorded outcomes (tutor / QABot), agent brain: the rows an outcome
wrote, and counts for stats.  Outcomes are ``brainview_proposal`` rows of kind
``outcome`` (:mod:`brainview.core.outcomes`); every function here runs inside the
caller's connection or transaction, and treats missing tables as no outcomes.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Connection

from brainview.store.readmodel import table_exists
from brainview.store.rows import driver, select_in

OUTCOME_KIND = "outcome"
"""Mirrors :data:`brainview.core.outcomes.OUTCOME_KIND` (store does not import core)."""


def consulted_of(conn: Connection, proposal_id: str) -> list[tuple[str, str, str | None]]:
    """``(reflection, stance, note)`` an outcome consulted, in the order reported."""
    rows = driver(conn).execute(
        "SELECT reflection_id, stance, note FROM brainview_consult "
        "WHERE proposal_id = ? AND role = 'consulted' ORDER BY seq",
        (proposal_id,),
    )
    return [(str(r), str(s or "support"), n) for r, s, n in rows]


def grades_of(conn: Connection, decision_id: str) -> list[tuple[str, str, int]]:
    """``(reflection, stance, grade)`` a decision fired, in the order fired."""
    rows = driver(conn).execute(
        "SELECT reflection_id, stance, grade FROM brainview_grade WHERE decision_id = ? "
        "ORDER BY spike_id, rowid",
        (decision_id,),
    )
    return [(str(r), str(s), int(g)) for r, s, g in rows]


def outcome_ids(conn: Connection, proposal_ids: Sequence[str]) -> set[str]:
    """Which of ``proposal_ids`` are recorded outcomes."""
    if not proposal_ids or not table_exists(conn, "brainview_proposal"):
        return set()
    sql = "SELECT id FROM brainview_proposal WHERE kind = 'outcome' AND id IN ({marks})"
    return {str(pid) for (pid,) in select_in(driver(conn), sql, list(proposal_ids))}


def outcome_counts(conn: Connection) -> dict[tuple[str, str], int]:
    """Standing outcomes by ``(skill, status)`` (an undone outcome leaves no row)."""
    if not table_exists(conn, "brainview_proposal"):
        return {}
    rows = driver(conn).execute(
        "SELECT skill, status, COUNT(*) FROM brainview_proposal WHERE kind = ? "
        "GROUP BY skill, status",
        (OUTCOME_KIND,),
    )
    return {(str(skill), str(status)): int(n) for skill, status, n in rows}
