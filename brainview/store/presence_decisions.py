"""Who decided the proposals a console still shows (agent brain, read-only).

The triage poll calls :func:`decided_among` only when the queue's fingerprint moved,
with the ids of the rows it has loaded: the live decisions among them are what
someone else decided meanwhile (the console leaves out its own).  One indexed read
(``ix_bv_decision_prop``) per chunk of ids.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from sqlalchemy import Connection

from brainview.store.readmodel import table_exists
from brainview.store.rows import driver, select_in


class DecidedRow(NamedTuple):
    """A live decision on one of the proposals asked about."""

    decision_id: str
    proposal_id: str
    verdict: str
    decider: str
    decided_at: str


def decided_among(conn: Connection, proposal_ids: Sequence[str]) -> list[DecidedRow]:
    """The live (not undone) decisions on ``proposal_ids``, oldest first."""
    if not proposal_ids or not table_exists(conn, "brainview_decision"):
        return []
    sql = (
        "SELECT id, proposal_id, verdict, decider, decided_at FROM brainview_decision "
        "WHERE undone_at IS NULL AND proposal_id IN ({marks})"
    )
    rows = [DecidedRow(*map(str, r)) for r in select_in(driver(conn), sql, proposal_ids)]
    return sorted(rows, key=lambda r: (r.decided_at, r.decision_id))
