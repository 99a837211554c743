"""Standing outcomes per skill, for ``stats`` (read here, not in
:mod:`brainview.services.outcome`: that package writes outcomes and imports the decision
path, which a read of two counts does not need)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection

from brainview.store.outcome_rows import outcome_counts


def outcome_stats(conn: Connection | None) -> dict[str, dict[str, Any]]:
    """Standing outcomes per skill: ``{skill: {success, failure, rate}}`` (both skills,
    zeros included; ``conn`` ``None``: no agent brain)."""
    counts = outcome_counts(conn) if conn is not None else {}
    out: dict[str, dict[str, Any]] = {}
    for skill in ("tutor", "qabot"):
        ok, bad = counts.get((skill, "accepted"), 0), counts.get((skill, "rejected"), 0)
        out[skill] = {"success": ok, "failure": bad, "rate": ok / (ok + bad) if ok + bad else None}
    return out
