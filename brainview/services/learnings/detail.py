"""The triage detail of a ``learning_tier`` proposal: the diff it would write."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection

from brainview.errors import BrainviewError
from brainview.services.learnings.apply import preview
from brainview.store import learnings_rows as lrows
from brainview.store.decision_rows import latest_decision


def attach(conn: Connection, detail: Any) -> None:
    """Fill a :class:`~brainview.services.review.detail.ProposalDetail`'s preview,
    change log, staleness and apply state."""
    last = latest_decision(conn, detail.id) if detail.status != "pending" else None
    detail.apply_state = str(last["apply_state"]) if last else None
    if last is not None:
        writes = lrows.writes_of(conn, str(last["id"]))
        detail.preview = [(w["path"], "(before)", "(written)") for w in writes]
        detail.change_log = f"{len(writes)} file(s) written; backups in .brainview-backups"
        return
    try:
        detail.preview, detail.change_log = preview(conn, detail.params)
    except (BrainviewError, KeyError, TypeError, ValueError, OSError) as err:
        if detail.status == "pending":
            detail.stale = str(err)
        detail.change_log = f"cannot be applied: {err}"
