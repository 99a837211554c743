"""Communities in the agent brain: the reads behind the communities views, and fading
decisions (rescue / let go, ``brainview_fading_decision``).

Spikuit's own tables (and its ``neuron.community_id``) are never touched. Fading
decisions are an append-only log whose rows are undone, never deleted. Writers run
inside the caller's ``Brain.write()`` transaction; readers run inside the caller's read
transaction and treat missing tables as empty. Reflection texts are cut in SQL
(``substr``) so huge texts stay cheap.

The community partition is *not* kept here: reading never writes a brain, so it is
cached outside both brains (:mod:`brainview.services.communities.cache`); the
``brainview_community_run`` / ``_member`` / ``_policy`` tables older versions wrote
are left as they are and no longer read.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from sqlalchemy import Connection, text

from brainview.store.era import Era
from brainview.store.readmodel import table_exists
from brainview.store.rows import driver, select_in

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


# -- reads behind the communities views ---------------------------------------------


def live_reflections(conn: Connection, era: Era) -> list[tuple[str, str | None, int | None]]:
    """``(id, domain, Spikuit community_id)`` of every live reflection, by id."""
    spk = "n.community_id" if era.has_community else "NULL"
    sql = (
        f"SELECT n.id, n.domain, {spk} FROM neuron n "
        f"WHERE n.type = 'reflection' AND {era.live('n')} ORDER BY n.id"
    )
    return [(str(r[0]), r[1], r[2]) for r in driver(conn).execute(sql)]


def standing_grade_counts(conn: Connection) -> Iterator[tuple[str, int, int]]:
    """``(reflection, strong grades, miss grades)`` from decisions and held-back verdicts
    not undone."""
    if not (table_exists(conn, "brainview_grade") and table_exists(conn, "brainview_decision")):
        return
    standing = "SELECT id FROM brainview_decision WHERE undone_at IS NULL"
    if table_exists(conn, "brainview_held_back_verdict"):  # held-back verdicts grade too
        standing += " UNION ALL SELECT decision_id FROM brainview_held_back_verdict "
        standing += "WHERE undone_at IS NULL"
    for rid, strong, miss in driver(conn).execute(
        "SELECT g.reflection_id, SUM(CASE WHEN g.grade = 4 THEN 1 ELSE 0 END), "
        "SUM(CASE WHEN g.grade = 1 THEN 1 ELSE 0 END) FROM brainview_grade g "
        f"WHERE g.decision_id IN ({standing}) GROUP BY g.reflection_id"
    ):
        yield str(rid), int(strong or 0), int(miss or 0)


def sampled_heads(conn: Connection, era: Era, *, stride: int, chars: int) -> Iterator[str]:
    """The first ``chars`` characters of every ``stride``-th live reflection (by rowid)."""
    sql = (
        f"SELECT substr(content, 1, {int(chars)}) FROM neuron n "
        f"WHERE n.type = 'reflection' AND {era.live('n')} AND (n.rowid % ?) = 0"
    )
    for (head,) in driver(conn).execute(sql, (max(1, int(stride)),)):
        yield head or ""


def heads(conn: Connection, ids: list[str], *, chars: int) -> dict[str, str]:
    """The first ``chars`` characters of each neuron's text."""
    sql = f"SELECT id, substr(content, 1, {int(chars)}) FROM neuron WHERE id IN ({{marks}})"
    return {str(rid): head or "" for rid, head in select_in(driver(conn), sql, ids)}


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
    return int(result.lastrowid)


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
