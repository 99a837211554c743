"""The project's last decision, as the console offers to undo it when this session has
taken none (after a restart): what ``brainview proposals undo --last`` would revert."""

from __future__ import annotations

from dataclasses import dataclass

from brainview.errors import NotFoundError
from brainview.services.project import Project
from brainview.services.review.revert import unit_of
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
