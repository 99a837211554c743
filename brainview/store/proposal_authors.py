"""Who proposed what: the recorded ``runtime`` of given proposals (one query)."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Connection, bindparam, text

from brainview.store.readmodel import table_exists

MAX_IDS = 900
"""Ids per statement (well under SQLite's bound-parameter limit)."""


def runtimes(conn: Connection, ids: Sequence[str]) -> dict[str, str | None]:
    """Proposal id → its ``runtime`` (unknown ids are left out)."""
    if not ids or not table_exists(conn, "brainview_proposal"):
        return {}
    sql = text("SELECT id, runtime FROM brainview_proposal WHERE id IN :ids").bindparams(
        bindparam("ids", expanding=True)
    )
    out: dict[str, str | None] = {}
    unique = list(dict.fromkeys(ids))
    for at in range(0, len(unique), MAX_IDS):
        for pid, runtime in conn.execute(sql, {"ids": unique[at : at + MAX_IDS]}):
            out[str(pid)] = runtime
    return out
