"""The latest spike of reflections: what prune and decay items are planned from."""

from __future__ import annotations

import sqlite3

from brainview.store.rows import select_in


def last_spikes(raw: sqlite3.Connection, ids: list[str]) -> dict[str, int]:
    """The id of each reflection's latest spike row (absent: never fired)."""
    sql = "SELECT neuron_id, MAX(id) FROM spike WHERE neuron_id IN ({marks}) GROUP BY 1"
    return {rid: int(sid) for rid, sid in select_in(raw, sql, ids)}
