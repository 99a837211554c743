"""Reads behind the reflection listings (``reflect list``, ``export reflections``):
keyset pages of agent-brain neuron ids by id, stored cards and spike counts in bulk.
Nothing here writes."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from sqlalchemy import Connection, text

from brainview.store.era import Era


def stored_cards(conn: Connection, ids: Sequence[str]) -> list[tuple[str, Any]]:
    """``(neuron_id, card_json)`` from ``fsrs_state`` for the ``ids`` that have one."""
    if not ids:
        return []
    marks = ", ".join(f":i{k}" for k in range(len(ids)))
    return [
        (str(nid), card)
        for nid, card in conn.execute(
            text(f"SELECT neuron_id, card_json FROM fsrs_state WHERE neuron_id IN ({marks})"),
            {f"i{k}": v for k, v in enumerate(ids)},
        )
    ]


def spike_counts(conn: Connection, ids: Sequence[str]) -> dict[str, int]:
    """Neuron id → how many spikes it has (absent: none)."""
    if not ids:
        return {}
    marks = ", ".join(f":i{k}" for k in range(len(ids)))
    rows = conn.execute(
        text(f"SELECT neuron_id, COUNT(*) FROM spike WHERE neuron_id IN ({marks}) GROUP BY 1"),
        {f"i{k}": v for k, v in enumerate(ids)},
    )
    return {str(nid): int(n) for nid, n in rows}


def _filters(
    era: Era, skill: str | None, status: str, type_: str | None, *, walk: bool = False
) -> tuple[str, dict[str, Any]]:
    """The WHERE clause; ``walk``: written so the planner walks the id order instead."""
    clauses, params = [], {}
    if type_:
        clauses.append(f"{'+' if walk else ''}type = :type")
        params["type"] = type_
    if skill is not None:
        clauses.append("domain = :skill")
        params["skill"] = skill
    if status == "live":
        clauses.append(era.live("neuron", use_index=not walk))
    elif status == "retired":
        clauses.append("neuron.retired_at IS NOT NULL" if era.has_retire else "1=0")
    return " AND ".join(clauses) or "1=1", params


def neuron_id_page(
    conn: Connection,
    era: Era,
    *,
    skill: str | None,
    status: str,
    type_: str | None,
    after: str | None,
    limit: int,
) -> tuple[list[str], int]:
    """Up to ``limit`` neuron ids after ``after`` in id order matching the filters
    (``status``: ``live``, ``retired`` or anything else for all), and the total."""
    where, params = _filters(era, skill, status, type_)
    total = int(
        conn.execute(text(f"SELECT COUNT(*) FROM neuron WHERE {where}"), params).scalar_one()
    )
    # The page walks the primary key in id order (``+``: no type/retired index driving
    # it, which would sort every matching row for 50 of them).
    pk_where, _ = _filters(era, skill, status, type_, walk=True)
    keyset = pk_where + (" AND id > :after" if after is not None else "")
    ids = [
        str(r[0])
        for r in conn.execute(
            text(f"SELECT id FROM neuron WHERE {keyset} ORDER BY id LIMIT :n"),
            {**params, "after": after, "n": limit},
        )
    ]
    return ids, total


def neuron_id_batches(
    conn: Connection, since: str | None, until: str | None, batch: int
) -> Iterator[list[str]]:
    """Every neuron id created in ``[since, until)``, in id order, ``batch`` at a time."""
    clauses, params = ["id > :after"], {}
    if since:
        clauses.append("created_at >= :since")
        params["since"] = since
    if until:
        clauses.append("created_at < :until")
        params["until"] = until
    sql = f"SELECT id FROM neuron WHERE {' AND '.join(clauses)} ORDER BY id LIMIT :n"
    after = ""
    while True:
        ids = [str(r[0]) for r in conn.execute(text(sql), {**params, "after": after, "n": batch})]
        if not ids:
            return
        yield ids
        after = ids[-1]


def reflections_matching(conn: Connection, needle: str, limit: int = 5) -> list[tuple[str, str]]:
    """``(id, content)`` of up to ``limit`` reflections whose id starts with, or whose
    text contains, ``needle`` (taken literally: ``%``, ``_`` and ``\\`` escaped)."""
    escaped = needle.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    rows = conn.execute(
        text(
            "SELECT id, content FROM neuron WHERE type = 'reflection' AND "
            "(id LIKE :prefix ESCAPE '\\' OR content LIKE :inner ESCAPE '\\') "
            "ORDER BY id LIMIT :n"
        ),
        {"prefix": f"{escaped}%", "inner": f"%{escaped}%", "n": limit},
    ).all()
    return [(str(r[0]), str(r[1] or "")) for r in rows]


def neurons_titled(conn: Connection, needle: str, limit: int = 20) -> list[str]:
    """Ids of up to ``limit`` neurons (the user brain) whose title — the first line of
    their text, as the console shows it — contains ``needle`` (literally): the neurons
    a typed title may mean."""
    escaped = needle.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    rows = conn.execute(
        text(
            "SELECT id FROM neuron "
            "WHERE substr(content, 1, instr(content || char(10), char(10)) - 1) "
            "LIKE :inner ESCAPE '\\' ORDER BY id LIMIT :n"
        ),
        {"inner": f"%{escaped}%", "n": limit},
    ).all()
    return [str(r[0]) for r in rows]
