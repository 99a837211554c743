"""The decision feed (agent brain): every decision in the order it last changed.

A decision changes at most twice: when it is made (``decided_at``) and when an undo
takes it back (``undone_at``); ``changed_at`` is the later of the two.  Both stamps
go through the clock floor (``store/clock_floor.py``), so a later change never has an
earlier stamp — but the same stamp can recur (a bulk decision, a clock that stood
still), and ids are random.  So a reader's position is ``(changed_at, decision_id,
n)``: the last decision it saw and the number :func:`boundary_events` counted at that
instant.  Next time, an unchanged count means nothing new happened at that instant
before the id, and reading resumes strictly after the position; a different count
means something did, and the instant is read again in full (a decision already seen
may then come back unchanged).  Both stamps are indexed (``ix_bv_decision_at``,
``ix_bv_decision_undone``), so a poll reads only what changed from the position on.

Plain portable SQL (no alias in ``WHERE``), read-only.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Connection

from brainview.store.readmodel import table_exists
from brainview.store.rows import Row, dicts, driver

CHANGED = "COALESCE(d.undone_at, d.decided_at)"
MAX_SKILLS = 100


def changed_decisions(
    conn: Connection,
    *,
    since: str = "",
    after: tuple[str, str] | None = None,
    skills: Sequence[str] = (),
    limit: int = 100,
) -> list[Row]:
    """Up to ``limit`` decisions that changed at or after ``since`` and strictly after
    the position ``after`` (``(changed_at, decision_id)``), oldest change first.

    Each row: ``decision_id, proposal_id, kind, skill, summary, proposal_status,
    verdict, reason, decider, decided_at, seconds_on_screen, new_reflection_id,
    apply_state, undone_at, undone_by, changed_at``; ``skills`` keeps only decisions on
    proposals of those skills.  ``[]`` when the agent brain has no queue yet.
    """
    if not (table_exists(conn, "brainview_decision") and table_exists(conn, "brainview_proposal")):
        return []
    lower = max(since, after[0]) if after is not None else since
    clauses = ["(d.decided_at >= ? OR d.undone_at >= ?)"]
    args: list[object] = [lower, lower]
    if after is not None:
        clauses.append(f"({CHANGED} > ? OR ({CHANGED} = ? AND d.id > ?))")
        args += [after[0], after[0], after[1]]
    if skills:
        clauses.append(f"p.skill IN ({', '.join('?' * len(skills[:MAX_SKILLS]))})")
        args += list(skills[:MAX_SKILLS])
    sql = (
        "SELECT d.id AS decision_id, d.proposal_id, p.kind, p.skill, p.summary, "
        "p.status AS proposal_status, d.verdict, d.reason, d.decider, d.decided_at, "
        "d.seconds_on_screen, d.new_reflection_id, d.apply_state, d.undone_at, d.undone_by, "
        f"{CHANGED} AS changed_at FROM brainview_decision d "
        "LEFT JOIN brainview_proposal p ON p.id = d.proposal_id "
        f"WHERE {' AND '.join(clauses)} ORDER BY {CHANGED}, d.id LIMIT ?"
    )
    return dicts(driver(conn).execute(sql, [*args, max(1, limit)]))


def boundary_events(conn: Connection, at: str, decision_id: str) -> int:
    """How many changes happened at the instant ``at`` to decisions whose id sorts at
    or before ``decision_id``: each decision counts once, and once more when undone."""
    if not table_exists(conn, "brainview_decision"):
        return 0
    sql = (
        "SELECT COUNT(*) + COUNT(d.undone_at) FROM brainview_decision d "
        f"WHERE (d.decided_at = ? OR d.undone_at = ?) AND {CHANGED} = ? AND d.id <= ?"
    )
    (count,) = driver(conn).execute(sql, (at, at, at, decision_id)).fetchone()
    return int(count)
