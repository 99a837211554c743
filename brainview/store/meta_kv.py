"""Project settings kept as key/value rows in the agent brain's ``brainview_meta``
(e.g. whether reflection writing is paused); values are text, often JSON."""

from __future__ import annotations

from sqlalchemy import Connection, text

from brainview.store.readmodel import table_exists


def meta_value(conn: Connection, key: str) -> str | None:
    """The value stored under ``key`` (``None``: no such row, or no table yet)."""
    if not table_exists(conn, "brainview_meta"):
        return None
    row = conn.execute(text("SELECT value FROM brainview_meta WHERE key = :k"), {"k": key}).first()
    return None if row is None else str(row[0])


def put_meta(conn: Connection, key: str, value: str) -> None:
    """Store ``value`` under a ``key`` that has no row yet (the table must exist)."""
    conn.execute(
        text("INSERT INTO brainview_meta (key, value) VALUES (:k, :v)"), {"k": key, "v": value}
    )


def drop_meta(conn: Connection, key: str) -> None:
    """Remove ``key``'s row, if any."""
    conn.execute(text("DELETE FROM brainview_meta WHERE key = :k"), {"k": key})
