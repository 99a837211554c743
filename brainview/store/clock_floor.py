"""The latest moment the agent brain has recorded: decisions never go back in time.

A clock moved backwards between two decisions (NTP step, a VM restored, a laptop
crossing time zones with a bad RTC) would otherwise stamp the later decision before
the earlier one: FSRS would review a card "before" its last review, STDP would see a
negative Δt, and ``undo --last`` (newest ``decided_at``) would pick the wrong decision.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Connection

from brainview.core import fsrs_math
from brainview.store.rows import driver

_STAMPS = {
    "brainview_decision": ("decided_at", "undone_at"),
    "brainview_lifecycle": ("at",),
}


def not_before_last(conn: Connection, now: datetime) -> datetime:
    """``now``, or the latest recorded decision/undo/lifecycle time if that is later."""
    raw = driver(conn)  # the same transaction, without SQLAlchemy's per-statement cost
    present = {
        r[0]
        for r in raw.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'brainview_%'"
        )
    }
    parts = [
        f"SELECT max({c}) AS t FROM {t}" for t, cs in _STAMPS.items() if t in present for c in cs
    ]
    if not parts:
        return now
    latest = raw.execute(f"SELECT max(t) FROM ({' UNION ALL '.join(parts)})").fetchone()[0]
    if not latest:
        return now
    floor = fsrs_math.parse_ts(str(latest))
    return floor if floor > now else now
