"""Queued proposals' rows: set-based reads for intake's checks, and the batch insert.

Intake checks thousands of proposals at once (a consolidation of a 100k-reflection
agent brain queues 10,000+), so nothing here issues a statement per proposal: ids are
probed in chunks through the driver connection (``?`` placeholders, no statement
compilation), and the rows go in with one ``executemany`` per table, inside the
caller's transaction.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sqlalchemy import Connection

from brainview.store.rows import driver

_CHUNK = 500

PROPOSAL_COLUMNS = (
    "id", "skill", "kind", "params_json", "rationale", "created_at", "received_at",
    "status", "runtime", "source", "summary", "n_consulted", "suspicion",
)  # fmt: skip
CONSULT_COLUMNS = ("proposal_id", "reflection_id", "role", "stance", "note", "seq")


def queued_among(conn: Connection, ids: Sequence[str]) -> str | None:
    """One of ``ids`` already in ``brainview_proposal``, if any: the least (primary-key
    order) of the first chunk of 500 that holds one."""
    raw = driver(conn)
    for start in range(0, len(ids), _CHUNK):
        chunk = list(ids[start : start + _CHUNK])
        marks = ",".join("?" * len(chunk))
        sql = f"SELECT min(id) FROM brainview_proposal WHERE id IN ({marks})"
        (found,) = raw.execute(sql, chunk).fetchone()
        if found is not None:
            return str(found)
    return None


def has_any(conn: Connection, table: str) -> bool:
    """Whether an existing ``table`` (a brainview table name) holds a row."""
    row = driver(conn).execute(f'SELECT 1 FROM "{table}" LIMIT 1').fetchone()
    return row is not None


def insert_proposals(conn: Connection, rows: Iterable[tuple[object, ...]]) -> None:
    """Insert proposal rows, values in :data:`PROPOSAL_COLUMNS` order."""
    marks = ",".join("?" * len(PROPOSAL_COLUMNS))
    driver(conn).executemany(
        f"INSERT INTO brainview_proposal ({', '.join(PROPOSAL_COLUMNS)}) VALUES ({marks})", rows
    )


def insert_consults(conn: Connection, rows: Iterable[tuple[object, ...]]) -> None:
    """Insert consult rows, values in :data:`CONSULT_COLUMNS` order."""
    marks = ",".join("?" * len(CONSULT_COLUMNS))
    driver(conn).executemany(
        f"INSERT INTO brainview_consult ({', '.join(CONSULT_COLUMNS)}) VALUES ({marks})", rows
    )
