"""The recall log: every recall a curator made, in Spikuit's ``retrieve_log`` shape.

``brainview_recall(id, query, neuron_ids, retrieved_at)`` plus the skill and runtime
that asked.  Logged, never graded: a recall fires no spike.  ``propose`` can name a
recall (``"recall": "rc-…"``) so the proposal's ``retrieved`` list is what the curator
was shown (:func:`hit_ids`).
"""

from __future__ import annotations

import json
import sqlite3

RECALL_DDL = [
    """CREATE TABLE IF NOT EXISTS brainview_recall (
        id TEXT PRIMARY KEY, query TEXT NOT NULL, neuron_ids TEXT NOT NULL,
        retrieved_at TEXT NOT NULL, skill TEXT, runtime TEXT)""",
    "CREATE INDEX IF NOT EXISTS ix_bv_recall_at ON brainview_recall(retrieved_at)",
]


def _exists(conn: sqlite3.Connection) -> bool:
    return (
        conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'brainview_recall'"
        ).fetchone()
        is not None
    )


def log_recall(
    conn: sqlite3.Connection,
    recall_id: str,
    query: dict[str, object],
    ids: list[str],
    at: str,
    skill: str | None,
    runtime: str | None,
) -> None:
    """Append one recall (inside the caller's write transaction)."""
    for ddl in RECALL_DDL:
        conn.execute(ddl)
    conn.execute(
        "INSERT INTO brainview_recall (id, query, neuron_ids, retrieved_at, skill, runtime) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        (recall_id, json.dumps(query, ensure_ascii=False), json.dumps(ids), at, skill, runtime),
    )


def hit_ids(conn: sqlite3.Connection, recall_id: str) -> list[str] | None:
    """The reflections a logged recall returned, in rank order (``None``: no such recall)."""
    if not _exists(conn):
        return None
    row = conn.execute(
        "SELECT neuron_ids FROM brainview_recall WHERE id = ?", (recall_id,)
    ).fetchone()
    if row is None:
        return None
    ids = json.loads(str(row[0]))
    return [str(i) for i in ids] if isinstance(ids, list) else []


def recalls_of(conn: sqlite3.Connection, limit: int = 50) -> list[tuple[str, str, str, str | None]]:
    """Latest recalls: ``(id, query json, retrieved_at, skill)``, newest first."""
    if not _exists(conn):
        return []
    return [
        (str(a), str(b), str(c), None if d is None else str(d))
        for a, b, c, d in conn.execute(
            "SELECT id, query, retrieved_at, skill FROM brainview_recall "
            "ORDER BY retrieved_at DESC LIMIT ?",
            (limit,),
        )
    ]
