"""The counts behind queue health (:mod:`brainview.core.queue_health`), by aggregate.

Four small statements, each answered from an index whatever the queue's size:
pending count and oldest ``created_at`` (``ix_bv_proposal_status``), the stale count
(a range of that index), arrivals in the window (one range per status) and standing
decisions in the window (``ix_bv_decision_at``).  Timestamps are compared as brainview
writes them (ISO 8601, ``+00:00``: intake and decisions normalise them).  Nothing here
writes; a brain without brainview's tables reads as an empty queue.
"""

from __future__ import annotations

from sqlalchemy import Connection, text

from brainview.store.readmodel import table_exists

STATUSES = ("pending", "accepted", "rejected", "dismissed")
"""Every status a proposal can hold (listed so the status index serves the range)."""


def pending_oldest(conn: Connection) -> tuple[int, str | None]:
    """``(pending proposals, created_at of the oldest)``."""
    if not table_exists(conn, "brainview_proposal"):
        return 0, None
    row = conn.execute(
        text("SELECT COUNT(*), MIN(created_at) FROM brainview_proposal WHERE status = 'pending'")
    ).one()
    return int(row[0]), row[1]


def pending_before(conn: Connection, cutoff: str) -> int:
    """Pending proposals created before ``cutoff``."""
    if not table_exists(conn, "brainview_proposal"):
        return 0
    return int(
        conn.execute(
            text(
                "SELECT COUNT(*) FROM brainview_proposal "
                "WHERE status = 'pending' AND created_at < :cutoff"
            ),
            {"cutoff": cutoff},
        ).scalar_one()
    )


def arrivals_since(conn: Connection, since: str) -> int:
    """Proposals (outcomes left out) created at or after ``since``."""
    if not table_exists(conn, "brainview_proposal"):
        return 0
    marks = ", ".join(f"'{s}'" for s in STATUSES)
    return int(
        conn.execute(
            text(
                f"SELECT COUNT(*) FROM brainview_proposal WHERE status IN ({marks}) "
                "AND created_at >= :since AND kind <> 'outcome'"
            ),
            {"since": since},
        ).scalar_one()
    )


def decisions_since(conn: Connection, since: str) -> int:
    """Standing (not undone) decisions on proposals taken at or after ``since``
    (tutor/QABot outcomes left out)."""
    if not table_exists(conn, "brainview_decision"):
        return 0
    return int(
        conn.execute(
            text(
                "SELECT COUNT(*) FROM brainview_decision d "
                "JOIN brainview_proposal p ON p.id = d.proposal_id "
                "WHERE d.decided_at >= :since AND d.undone_at IS NULL AND p.kind <> 'outcome'"
            ),
            {"since": since},
        ).scalar_one()
    )


def stale_pending_ids(conn: Connection, cutoff: str, limit: int) -> list[str]:
    """Ids of the oldest pending proposals created before ``cutoff``, oldest first."""
    if not table_exists(conn, "brainview_proposal"):
        return []
    return [
        str(r[0])
        for r in conn.execute(
            text(
                "SELECT id FROM brainview_proposal WHERE status = 'pending' "
                "AND created_at < :cutoff ORDER BY created_at, id LIMIT :n"
            ),
            {"cutoff": cutoff, "n": limit},
        )
    ]
