"""Every live reflection's card as two numpy columns, read in one statement.

For ``fsrs_state`` brains with many reflections (the other card sources and small
brains go through :func:`brainview.services.communities.curves.reflection_cards`).
Stability and the last review come out of the card JSON in SQL (``json_extract``);
the review times are parsed vectorised — the canonical spelling
(``YYYY-MM-DDTHH:MM:SS[.ffffff]+00:00``, what Spikuit writes) by numpy at microsecond
precision, any other spelling by :func:`brainview.core.fsrs_math.parse_ts` — so the
epochs are exactly ``parse_ts(s).timestamp()``.
"""

from __future__ import annotations

import numpy as np
from sqlalchemy import Connection

from brainview.core import fsrs_math
from brainview.store.era import Era
from brainview.store.rows import driver

_UTC = "+00:00"


def count_live_reflections(conn: Connection, era: Era) -> int:
    """Live reflections (one ``COUNT`` on the ``type`` index)."""
    sql = f"SELECT COUNT(*) FROM neuron n WHERE n.type = 'reflection' AND {era.live('n')}"
    return int(driver(conn).execute(sql).fetchone()[0])


def reviewed_cards(conn: Connection, era: Era) -> tuple[np.ndarray, np.ndarray]:
    """``(stability, last review epoch s)`` of the live reflections that have a reviewed
    card (stability and last review set, state not New), in no particular order."""
    _ids, stab, last = _reviewed(conn, era)
    return stab, last


def cards_aligned(conn: Connection, era: Era, ids: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """``(stability, last review epoch s)`` aligned with ``ids`` (live reflections); NaN
    for a reflection without a reviewed card."""
    pos = {rid: k for k, rid in enumerate(ids)}
    stab = np.full(len(ids), np.nan)
    last = np.full(len(ids), np.nan)
    got, s, lr = _reviewed(conn, era)
    at = np.fromiter((pos.get(r, -1) for r in got), dtype=np.int64, count=len(got))
    mine = at >= 0
    stab[at[mine]] = s[mine]
    last[at[mine]] = lr[mine]
    return stab, last


def _reviewed(conn: Connection, era: Era) -> tuple[list[str], np.ndarray, np.ndarray]:
    # Two scans and a set instead of a join: probing ``neuron`` by id for each of 100k
    # cards was half of the read (0.73 s → 0.37 s of CPU on 100k reflections).
    raw = driver(conn)
    live_sql = f"SELECT n.id FROM neuron n WHERE n.type = 'reflection' AND {era.live('n')}"
    live = {r[0] for r in raw.execute(live_sql)}
    sql = (
        "SELECT neuron_id, json_extract(card_json, '$.stability'), "
        "json_extract(card_json, '$.last_review') FROM fsrs_state "
        "WHERE json_valid(card_json) AND json_extract(card_json, '$.state') IS NOT 0"
    )
    rows = [r for r in raw.execute(sql).fetchall() if r[1] and r[2] and r[0] in live]
    ids = [r[0] for r in rows]
    stab = [float(r[1]) for r in rows]
    canon: list[str] = []
    canon_at: list[int] = []
    other: list[tuple[int, str]] = []
    for k, (_rid, _s, lr) in enumerate(rows):
        if isinstance(lr, str) and lr.endswith(_UTC) and len(lr) in (25, 32) and lr[10] == "T":
            canon.append(lr[:-6])
            canon_at.append(k)
        else:
            other.append((k, lr))
    last = np.empty(len(stab), dtype=np.float64)
    if canon:
        micros = np.array(canon, dtype="datetime64[us]").astype(np.int64)
        last[np.asarray(canon_at, dtype=np.int64)] = micros / 1e6
    for k, lr in other:
        last[k] = fsrs_math.parse_ts(lr).timestamp()
    return ids, np.asarray(stab, dtype=np.float64), last
