"""Fading decisions (rescue / let go) on reflections, in the agent brain (``brainview_*``).

Spikuit's own tables (and its ``neuron.community_id``) are never touched. Fading
decisions are an append-only log whose rows are undone, never deleted. Writers run
inside the caller's ``Brain.write()`` transaction; readers treat missing tables as
empty. The community partition is *not* kept here: reading never writes a brain, so
it is cached outside both brains (:mod:`brainview.services.community_cache`); the
``brainview_community_run`` / ``_member`` / ``_policy`` tables older versions wrote
are left as they are and no longer read.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import Connection, text

from brainview.store.readmodel import table_exists

COMMUNITY_DDL = [
    """CREATE TABLE IF NOT EXISTS brainview_fading_decision (
        id INTEGER PRIMARY KEY AUTOINCREMENT, reflection_id TEXT NOT NULL,
        action TEXT NOT NULL, decider TEXT NOT NULL, decided_at TEXT NOT NULL,
        threshold REAL NOT NULL, retrievability REAL, crossing_days REAL,
        undone_at TEXT, undone_by TEXT)""",
    """CREATE INDEX IF NOT EXISTS ix_bv_fading_refl
        ON brainview_fading_decision(reflection_id)""",
]

FADING_ACTIONS = ("rescue", "let_go")
"""``rescue`` = keep, schedule no pruning; ``let_go`` = may be pruned."""


def ensure_community_schema(conn: Connection) -> None:
    """Create the decision table if missing (in the caller's transaction)."""
    for ddl in COMMUNITY_DDL:
        conn.exec_driver_sql(ddl)


# -- fading decisions -----------------------------------------------------------------


@dataclass(frozen=True)
class FadingDecision:
    """One rescue / let-go decision (the latest standing one per reflection counts)."""

    id: int
    reflection_id: str
    action: str
    decider: str
    decided_at: str


def record_fading(
    conn: Connection,
    reflection_id: str,
    action: str,
    *,
    decider: str,
    at: str,
    threshold: float,
    retrievability: float | None,
    crossing_days: float | None,
) -> int:
    """Append a decision; returns its id."""
    if action not in FADING_ACTIONS:
        raise ValueError(f"fading action must be one of {FADING_ACTIONS}, got {action!r}")
    ensure_community_schema(conn)
    result = conn.execute(
        text(
            "INSERT INTO brainview_fading_decision (reflection_id, action, decider, decided_at, "
            "threshold, retrievability, crossing_days) VALUES (:r, :a, :d, :at, :t, :rv, :c)"
        ),
        {
            "r": reflection_id,
            "a": action,
            "d": decider,
            "at": at,
            "t": threshold,
            "rv": retrievability,
            "c": crossing_days,
        },
    )
    return int(result.lastrowid)  # type: ignore[arg-type]


def undo_fading(conn: Connection, decision_id: int, *, at: str, by: str) -> bool:
    """Mark a standing decision undone; ``False`` if unknown or already undone."""
    if not table_exists(conn, "brainview_fading_decision"):
        return False
    result = conn.execute(
        text(
            "UPDATE brainview_fading_decision SET undone_at = :at, undone_by = :by "
            "WHERE id = :id AND undone_at IS NULL"
        ),
        {"at": at, "by": by, "id": decision_id},
    )
    return result.rowcount == 1


def standing_fading(
    conn: Connection, ids: Iterable[str] | None = None
) -> dict[str, FadingDecision]:
    """Latest not-undone decision per reflection (all reflections, or only ``ids``)."""
    if not table_exists(conn, "brainview_fading_decision"):
        return {}
    sql = (
        "SELECT id, reflection_id, action, decider, decided_at FROM brainview_fading_decision "
        "WHERE undone_at IS NULL ORDER BY id"
    )
    wanted = set(ids) if ids is not None else None
    out: dict[str, FadingDecision] = {}
    for row in conn.execute(text(sql)):
        if wanted is None or row[1] in wanted:
            out[str(row[1])] = FadingDecision(int(row[0]), str(row[1]), *map(str, row[2:]))
    return out
