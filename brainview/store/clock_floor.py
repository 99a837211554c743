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

_LATEST = (
    "SELECT max(t) FROM ("
    " SELECT max(decided_at) AS t FROM brainview_decision"
    " UNION ALL SELECT max(undone_at) FROM brainview_decision"
    " UNION ALL SELECT max(at) FROM brainview_lifecycle)"
)


def not_before_last(conn: Connection, now: datetime) -> datetime:
    """``now``, or the latest recorded decision/undo/lifecycle time if that is later."""
    latest = conn.exec_driver_sql(_LATEST).scalar()
    if not latest:
        return now
    floor = fsrs_math.parse_ts(str(latest))
    return floor if floor > now else now
