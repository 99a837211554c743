"""The latest spike of reflections: what prune and decay items are planned from."""

from __future__ import annotations

import sqlite3


def last_spikes(raw: sqlite3.Connection, ids: list[str]) -> dict[str, int]:
    """The id of each reflection's latest spike row (absent: never fired)."""
    out: dict[str, int] = {}
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        marks = ",".join("?" * len(chunk))
        for rid, sid in raw.execute(
            f"SELECT neuron_id, MAX(id) FROM spike WHERE neuron_id IN ({marks}) GROUP BY 1",
            chunk,
        ):
            out[rid] = int(sid)
    return out
