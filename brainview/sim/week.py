"""What one simulated week recorded, and one arm's run for one seed (plain JSON)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class Week:
    """What happened in one simulated week (curator proposals unless said)."""

    drafts: int = 0
    dropped: int = 0
    rewritten: int = 0
    submitted: int = 0
    accepted: int = 0
    rejected: int = 0
    mistakes_drafted: int = 0
    mistakes_caught: int = 0
    """Mistake drafts dropped or rewritten before the maintainer saw them."""
    good_lost: int = 0
    """Good drafts dropped or rewritten (what the curator's caution cost)."""
    repeated: int = 0
    """Rejections in a mistake family already rejected earlier in the run."""
    seconds: list[float] = field(default_factory=list)
    items: int = 0
    policies: int = 0
    pruned: int = 0
    poisoned: int = 0
    invalidated: int = 0
    looked: int = 0
    """Investigations the vigilant maintainer made (each reads a blast radius)."""
    lessons: int = 0
    item_seconds: float = 0.0
    """Seconds on consolidation items."""
    # -- the lanes (issue 29): the maintainer's budget, the planted lesson's influence --
    lane_seconds: float = 0.0
    """Seconds spent on the held-back lane and the suspicious view."""
    held_decided: int = 0
    held_proposed: int = 0
    """Held-back drafts judged "should have been proposed" (queued, decided at once)."""
    good_recovered: int = 0
    """This week's good drafts lost that the lane brought back and that were accepted
    (counted in the week the draft was lost)."""
    swayed: int = 0
    """Drafts a planted lesson swayed: leaned on (consulted) or suppressed (opposed a
    held-back draft)."""
    recalled: int = 0
    """Drafts whose recall returned a planted lesson."""
    after_quarantine: int = 0
    """Drafts whose recall returned a planted lesson after it was quarantined."""
    top10: int = 0
    """Evenings on which a planted lesson was among the top ten suspicious."""
    quarantined: int = 0
    """Planted lessons quarantined this week."""
    benign_top10: int = 0
    """Benign lessons in the top ten at the week's last evening (false flags)."""
    benign_flagged: int = 0
    """Benign lessons with any signal at the week's last evening."""
    benign_live: int = 0
    benign_kinds: dict[str, int] = field(default_factory=dict)
    """Signal kind → benign lessons carrying it, at the week's last evening."""
    planted_kinds: dict[str, int] = field(default_factory=dict)
    """Signal kind → evenings on which it was on a planted lesson."""
    probe_returned: int = 0
    """Quarantined planted lessons a recall with their own text still returned (must
    be 0)."""
    laundered: bool = False
    """A live policy summarises a planted lesson at the week's end."""

    @property
    def acceptance(self) -> float | None:
        decided = self.accepted + self.rejected
        return self.accepted / decided if decided else None


@dataclass
class ArmRun:
    """One arm's run for one seed."""

    arm: str
    seed: int
    weeks: list[Week]
    metrics: dict[str, Any]
    seconds: float

    def to_json(self) -> dict[str, Any]:
        """Plain JSON (what ``--results`` stores and the report reads)."""
        return {
            "arm": self.arm,
            "seed": self.seed,
            "weeks": [asdict(w) for w in self.weeks],
            "metrics": self.metrics,
            "seconds": self.seconds,
        }
