"""Which decisions an undo would revert: the project's last decision, as the console
offers to undo it when this session has taken none (after a restart), and the unit a
decision id or a decided proposal id names (``brainview proposals undo``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection

from brainview.errors import ConflictError, NotFoundError
from brainview.services.project import Project
from brainview.services.review.revert import unit_of
from brainview.store import decision_reads
from brainview.store.decision_rows import latest_decision, latest_undone
from brainview.store.readmodel import table_exists


@dataclass(frozen=True)
class LastUnit:
    """The most recent decision not undone, and how many decisions its bulk holds."""

    decision_id: str
    proposal_id: str
    verdict: str
    decider: str
    decided_at: str
    size: int
    """Decisions one undo reverts (``1`` unless it was a bulk decision)."""

    def lines(self) -> list[str]:
        """Plain-text description for a confirmation (untrusted ids and names inside)."""
        out = [
            f"{self.verdict} of {self.proposal_id}",
            f"by {self.decider} at {self.decided_at[:19].replace('T', ' ')}",
            f"decision {self.decision_id}",
        ]
        if self.size > 1:
            out.append(f"with {self.size - 1} other decision(s) of the same bulk decision")
        return out


def last_unit(project: Project) -> LastUnit | None:
    """What ``proposals undo --last`` would revert now (``None``: nothing left)."""
    if project.agent is None:
        return None
    with project.agent.read() as conn:
        if not table_exists(conn, "brainview_decision"):
            return None
        try:
            unit = unit_of(conn, None)
        except NotFoundError:
            return None
    head = unit[-1] if len(unit) > 1 else unit[0]  # a bulk is named by its first decision
    return LastUnit(
        decision_id=str(unit[0]["id"]),
        proposal_id=str(head["proposal_id"]),
        verdict=str(head["verdict"]),
        decider=str(head["decider"]),
        decided_at=str(head["decided_at"]),
        size=len(unit),
    )


@dataclass(frozen=True)
class UndoTarget:
    """The decision a maintainer named and the unit one undo reverts with it."""

    decision: dict[str, Any]
    unit: list[dict[str, Any]]

    @property
    def applied(self) -> bool:
        """Whether any decision of the unit changed the user brain."""
        return any(d["apply_state"] == "applied" for d in self.unit)


def named_decision(conn: Connection, ident: str | None) -> dict[str, Any]:
    """The decision to undo: by decision id, the live one of a proposal id, or (``None``)
    the latest; NotFoundError / ConflictError (already undone) otherwise."""
    if not table_exists(conn, "brainview_decision"):
        raise NotFoundError("no decisions recorded in this agent brain")
    if ident is None:
        latest = latest_decision(conn)
        if latest is None:
            raise NotFoundError("no decision left to undo")
        return latest
    row = decision_reads.decision(conn, ident)
    if row is not None:
        return row
    latest = latest_decision(conn, ident)
    if latest is not None:
        return latest
    undone = latest_undone(conn, ident)
    if undone is not None:  # e.g. another process undid it a moment ago
        raise ConflictError(
            f"the decision on proposal {ident} was already undone at {undone['undone_at']} "
            f"by {undone['undone_by']}; nothing left to undo"
        )
    raise NotFoundError(f"no decision or decided proposal {ident!r}")


def undo_target(project: Project, ident: str | None) -> UndoTarget:
    """:func:`named_decision` and its unit (:func:`~brainview.services.review.revert.
    unit_of`), from one read."""
    with project.require_agent().read() as conn:
        decision = named_decision(conn, ident)
        return UndoTarget(decision, unit_of(conn, str(decision["id"])))
