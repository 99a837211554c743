"""The triage detail of a ``learning_tier`` proposal: the diff it would write."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection

from brainview.core.learnings_parse import block_id_of
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


def provenance(conn: Connection, neuron_id: str) -> dict[str, Any] | None:
    """Where an imported ``.learnings`` entry came from and where it is now (``None``:
    not an imported entry): the tree (relative to the project), file, line, tier,
    skill, the status and priority its file gave it, and for a block its id."""
    row = lrows.entry(conn, neuron_id)
    if row is None:
        return None
    recorded = lrows.root(conn)
    raw = bytes(row["raw"])
    return {
        "tree": recorded[0] if recorded else None,
        "file": row["file"],
        "line": int(row["line"]),
        "tier": row["tier"],
        "skill": row["skill"],
        "status": row["status"],
        "priority": row["priority"],
        "block_id": block_id_of(raw) if row["block"] else None,
        "repeats": row["canonical"],
        "imported_at": row["imported_at"],
    }
