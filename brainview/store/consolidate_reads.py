"""Bulk reads a consolidation plans from (agent brain, inside the caller's read
transaction, through the driver connection)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

NORMALISED = "replace(replace(fired_at, ' ', 'T'), 'Z', '+00:00')"
"""A spike time in one spelling (the three of contracts §2 sort as strings then)."""

FireRow = tuple[str, str, int, int, int, int]


def fire_aggregates(raw: sqlite3.Connection, hot_from: str) -> Iterator[FireRow]:
    """Per neuron with spikes: ``(neuron_id, last fire (normalised), fires at or after
    hot_from, latest spike id, misses among the last three spikes, spikes among the last
    three)``.

    One pass: the spike table is read in storage order (``NOT INDEXED``: walking
    ``idx_spike_neuron`` would look every row up at random), numbered per neuron newest
    first with a window function, and aggregated once — the last-three counts are the
    rows numbered 1–3.
    """
    sql = (
        "SELECT neuron_id, MAX(n), SUM(n >= ?), MAX(id), SUM(rn <= 3 AND grade = 1), "
        "SUM(rn <= 3) FROM (SELECT neuron_id, grade, id, n, ROW_NUMBER() OVER "
        "(PARTITION BY neuron_id ORDER BY n DESC, id DESC) AS rn FROM "
        f"(SELECT neuron_id, grade, id, {NORMALISED} AS n FROM spike NOT INDEXED)) "
        "GROUP BY neuron_id"
    )
    for rid, last, recent, top, missed, graded in raw.execute(sql, (hot_from,)):
        yield rid, last, int(recent or 0), int(top), int(missed or 0), int(graded)
