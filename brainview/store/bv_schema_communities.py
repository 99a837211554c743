"""brainview's community cache and fading decisions, in the agent brain (``brainview_*``).

Spikuit's own tables (and its ``neuron.community_id``) are never touched. The cache
keeps exactly one partition, keyed by the graph fingerprint it was computed from;
fading decisions are an append-only log whose rows are undone, never deleted.
Writers run inside the caller's ``Brain.write()`` transaction; readers treat missing
tables as empty.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from sqlalchemy import Connection, text

from brainview.core.clustering import Partition
from brainview.store.readmodel import table_exists

COMMUNITY_DDL = [
    """CREATE TABLE IF NOT EXISTS brainview_community_run (
        fingerprint TEXT PRIMARY KEY, algorithm TEXT NOT NULL, computed_at TEXT NOT NULL,
        n_nodes INTEGER NOT NULL, n_edges INTEGER NOT NULL, n_communities INTEGER NOT NULL,
        modularity REAL NOT NULL, seconds REAL NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS brainview_community_member (
        fingerprint TEXT NOT NULL, reflection_id TEXT NOT NULL, community INTEGER NOT NULL,
        PRIMARY KEY (fingerprint, reflection_id))""",
    """CREATE INDEX IF NOT EXISTS ix_bv_community_member_c
        ON brainview_community_member(fingerprint, community)""",
    """CREATE TABLE IF NOT EXISTS brainview_community_policy (
        fingerprint TEXT NOT NULL, policy_id TEXT NOT NULL, community INTEGER NOT NULL,
        PRIMARY KEY (fingerprint, policy_id))""",
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
    """Create the cache and decision tables if missing (in the caller's transaction)."""
    for ddl in COMMUNITY_DDL:
        conn.exec_driver_sql(ddl)


# -- partition cache ----------------------------------------------------------------------


def save_partition(conn: Connection, part: Partition) -> None:
    """Replace the cached partition with ``part`` (one cached run at a time)."""
    ensure_community_schema(conn)
    for table in ("brainview_community_member", "brainview_community_policy"):
        conn.exec_driver_sql(f"DELETE FROM {table}")
    conn.exec_driver_sql("DELETE FROM brainview_community_run")
    conn.execute(
        text(
            "INSERT INTO brainview_community_run (fingerprint, algorithm, computed_at, n_nodes, "
            "n_edges, n_communities, modularity, seconds) VALUES (:f, :a, :at, :n, :e, :c, :q, :s)"
        ),
        {
            "f": part.fingerprint,
            "a": part.algorithm,
            "at": part.computed_at,
            "n": len(part.ids),
            "e": part.n_edges,
            "c": part.n_communities,
            "q": part.modularity,
            "s": part.seconds,
        },
    )
    raw = conn.connection.driver_connection  # bulk insert through the raw driver
    raw.executemany(  # type: ignore[union-attr]
        "INSERT INTO brainview_community_member (fingerprint, reflection_id, community) "
        "VALUES (?, ?, ?)",
        (
            (part.fingerprint, rid, int(c))
            for rid, c in zip(part.ids, part.membership.tolist(), strict=True)
        ),
    )
    raw.executemany(  # type: ignore[union-attr]
        "INSERT INTO brainview_community_policy (fingerprint, policy_id, community) "
        "VALUES (?, ?, ?)",
        ((part.fingerprint, pid, c) for pid, c in sorted(part.policies.items())),
    )


def cached_partition(conn: Connection) -> Partition | None:
    """The cached partition (whatever graph it came from), or ``None``."""
    if not table_exists(conn, "brainview_community_run"):
        return None
    run = conn.execute(
        text(
            "SELECT fingerprint, algorithm, computed_at, n_edges, modularity, seconds "
            "FROM brainview_community_run ORDER BY computed_at DESC LIMIT 1"
        )
    ).first()
    if run is None:
        return None
    fp = run[0]
    raw = conn.connection.driver_connection
    rows = raw.execute(  # type: ignore[union-attr]
        "SELECT reflection_id, community FROM brainview_community_member "
        "WHERE fingerprint = ? ORDER BY reflection_id",
        (fp,),
    ).fetchall()
    policies = {
        str(p): int(c)
        for p, c in conn.execute(
            text(
                "SELECT policy_id, community FROM brainview_community_policy WHERE fingerprint = :f"
            ),
            {"f": fp},
        )
    }
    return Partition(
        fingerprint=fp,
        ids=[r[0] for r in rows],
        membership=np.fromiter((r[1] for r in rows), dtype=np.int64, count=len(rows)),
        policies=policies,
        modularity=float(run[4]),
        n_edges=int(run[3]),
        algorithm=str(run[1]),
        computed_at=str(run[2]),
        seconds=float(run[5]),
    )


def cached_community_of(conn: Connection, reflection_id: str) -> tuple[str, int] | None:
    """``(fingerprint, community)`` of a reflection in the cached partition, if any."""
    if not table_exists(conn, "brainview_community_member"):
        return None
    row = conn.execute(
        text(
            "SELECT fingerprint, community FROM brainview_community_member "
            "WHERE reflection_id = :r LIMIT 1"
        ),
        {"r": reflection_id},
    ).first()
    return (str(row[0]), int(row[1])) if row else None


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
