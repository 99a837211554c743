"""FSRS cards from wherever the era keeps them (or replayed from spikes).

Single cards for detail views; sampled bulk arrays for distributions.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import numpy as np
from sqlalchemy import Connection, text

from brainview.core import fsrs_math
from brainview.store.connect import busy_timeout, connect
from brainview.store.era import CardSource, Era
from brainview.store.readmodel import spikes_of
from brainview.store.rows import driver

SAMPLE_LIMIT = 50_000
EPOCH_JD = 2440587.5
"""The Julian day of 1970-01-01T00:00Z."""


@dataclass(frozen=True)
class CardInfo:
    """A card and where it came from."""

    neuron_id: str
    source: CardSource
    card_json: str | None
    """Stored JSON (``None`` when replayed or never reviewed)."""
    state: int | None
    stability: float | None
    difficulty: float | None
    due: datetime | None
    last_review: datetime | None

    def retrievability(self, now: datetime) -> float:
        """R now (0 for never-reviewed cards, as py-fsrs says)."""
        if self.stability is None or self.last_review is None:
            return 0.0
        return float(
            fsrs_math.retrievability(
                np.array([self.stability]),
                np.array([self.last_review.timestamp()]),
                now,
            )[0]
        )


def _from_json(neuron_id: str, source: CardSource, card_json: str) -> CardInfo:
    d = json.loads(card_json)
    due = d.get("due")
    last = d.get("last_review")
    return CardInfo(
        neuron_id=neuron_id,
        source=source,
        card_json=card_json,
        state=d.get("state"),
        stability=d.get("stability"),
        difficulty=d.get("difficulty"),
        due=fsrs_math.parse_ts(due) if due else None,
        last_review=fsrs_math.parse_ts(last) if last else None,
    )


def _tutor_json(tutor_db: Path, neuron_id: str) -> str | None:
    conn = connect(tutor_db, write=False, timeout=busy_timeout())
    try:
        row = conn.execute(
            "SELECT card_json FROM fsrs_card WHERE neuron_id = ?", (neuron_id,)
        ).fetchone()
    finally:
        conn.close()
    return row[0] if row else None


def tutor_cards(tutor_db: Path) -> list[tuple[str, str]]:
    """Every ``(neuron_id, card_json)`` of a Spikuit 0.9 tutor overlay."""
    conn = connect(tutor_db, write=False, timeout=busy_timeout())
    try:
        return list(conn.execute("SELECT neuron_id, card_json FROM fsrs_card"))
    finally:
        conn.close()


def card_of(conn: Connection, era: Era, neuron_id: str) -> CardInfo | None:
    """The neuron's FSRS card; ``None`` if it was never reviewed."""
    stored: str | None = None
    if era.card_source == "fsrs_state":
        stored = conn.execute(
            text("SELECT card_json FROM fsrs_state WHERE neuron_id = :id"), {"id": neuron_id}
        ).scalar()
    elif era.card_source == "tutor" and era.tutor_db is not None:
        stored = _tutor_json(era.tutor_db, neuron_id)
    if stored is not None:
        return _from_json(neuron_id, era.card_source, stored)
    return replayed_card(conn, neuron_id)


def replayed_card(conn: Connection, neuron_id: str) -> CardInfo | None:
    """Reconstruct a card by replaying the spike log through py-fsrs (fuzz off)."""
    spikes = spikes_of(conn, neuron_id)
    if not spikes:
        return None
    card, _steps = fsrs_math.replay_spikes(
        (s.grade, fsrs_math.parse_ts(s.fired_at)) for s in spikes
    )
    if card is None:
        return None
    return CardInfo(
        neuron_id=neuron_id,
        source="replay",
        card_json=None,
        state=int(card.state),
        stability=card.stability,
        difficulty=card.difficulty,
        due=card.due,
        last_review=card.last_review,
    )


def _arrays(rows: Sequence[tuple[float | None, str | None]]) -> tuple[np.ndarray, np.ndarray]:
    stab = np.full(len(rows), np.nan)
    last = np.full(len(rows), np.nan)
    for i, (s, lr) in enumerate(rows):
        if s is not None and lr:
            stab[i] = float(s)
            last[i] = fsrs_math.parse_ts(lr).timestamp()
    return stab, last


def live_population(conn: Connection, era: Era) -> int:
    """Live neurons: all rows minus the (few) retired ones, both counted on indexes."""
    retired = "(SELECT COUNT(*) FROM neuron WHERE retired_at IS NOT NULL)"
    sql = f"SELECT (SELECT COUNT(*) FROM neuron) - {retired if era.has_retire else 0}"
    return int(conn.execute(text(sql)).scalar_one())


_STRIDE_SQL = (
    "WITH RECURSIVE k(r) AS (SELECT ? UNION ALL SELECT r + ? FROM k WHERE r + ? <= ?) "
    "SELECT CASE WHEN json_type(c, '$.stability') IN ('integer', 'real') "
    "THEN json_extract(c, '$.stability') END, "
    # epoch seconds in SQL: julianday reads ISO 8601 with 'T', 'Z' or ±HH:MM; anything
    # unreadable (or malformed JSON) gives NULL, i.e. a card never reviewed
    "(julianday(CASE WHEN json_type(c, '$.last_review') = 'text' "
    f"THEN json_extract(c, '$.last_review') END) - {EPOCH_JD}) * 86400.0 "
    "FROM (SELECT CASE WHEN json_valid(f.card_json) THEN f.card_json END AS c "
    "FROM k CROSS JOIN fsrs_state f ON f.rowid = k.r{where})"
)
_NOT_RETIRED = (
    " WHERE f.neuron_id NOT IN (SELECT id FROM neuron WHERE unlikely(retired_at IS NOT NULL))"
)


def sample_cards(
    conn: Connection, era: Era, *, live_ids_sql: str | None = None, limit: int = SAMPLE_LIMIT
) -> tuple[np.ndarray, np.ndarray, int]:
    """(stability, last_review epoch s, population) for up to ``limit`` live cards.

    Large brains are sampled by a stride over ``fsrs_state`` rowids (each sampled row
    is one primary-key probe, so the cost follows the sample, not the brain); live
    neurons without a card are added as never-reviewed rows (NaN) in proportion.
    ``population`` is the number of live neurons the sample stands for.
    """
    population = live_population(conn, era)
    if era.card_source == "fsrs_state":
        raw = driver(conn)
        total, top = raw.execute(
            "SELECT COUNT(*), COALESCE(MAX(rowid), 0) FROM fsrs_state"
        ).fetchone()
        # One stride for cards and card-less neurons alike keeps their proportion.
        step = max(1, -(-max(population, total, top) // max(1, limit)))
        sql = _STRIDE_SQL.format(where=_NOT_RETIRED if era.has_retire else "")
        rows = raw.execute(sql, (step, step, step, top)).fetchall()
        pairs = np.array(rows, dtype=float).reshape(-1, 2)  # NULL → NaN
        unreviewed = max(0, population - total)
        if unreviewed and total and len(rows):
            share = min(round(unreviewed * len(rows) / total), limit - len(rows))
            pairs = np.vstack([pairs, np.full((max(0, share), 2), np.nan)])
        pairs = pairs[:limit]
        stab, last = pairs[:, 0].copy(), pairs[:, 1].copy()
        unknown = np.isnan(stab) | np.isnan(last)  # as _arrays: both or neither
        stab[unknown], last[unknown] = np.nan, np.nan
        return stab, last, population
    # Tutor overlay or replay: replay a bounded sample of neurons.
    live = era.live("n")
    ids = [
        r[0]
        for r in conn.execute(
            text(f"SELECT id FROM neuron n WHERE {live} ORDER BY id LIMIT :lim"),
            {"lim": min(limit, 2_000)},
        )
    ]
    infos = [card_of(conn, era, nid) for nid in ids]
    rows2 = [
        (i.stability, i.last_review.isoformat() if i and i.last_review else None)
        if i
        else (None, None)
        for i in infos
    ]
    stab, last = _arrays(rows2)
    return stab, last, population
