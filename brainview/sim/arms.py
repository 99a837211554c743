"""The arms of the experiment and the knobs every arm shares.

An arm switches parts of the loop on or off; everything else (the world, the drafts'
families, the maintainer's noise on each draft) is shared by every arm of a seed, so
arms are compared pairwise.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class Arm:
    """Which parts of the loop run."""

    name: str
    label: str
    recall: bool = True
    """The curator recalls before submitting (off: it never reads a lesson)."""
    consolidate: bool = True
    """A weekly consolidation, its items decided by the same maintainer."""
    stdp: bool = True
    """Decisions move synapse weights between co-fired lessons."""
    lessons: bool = True
    """A rejection writes a lesson (the decide path's ``write_reflections``)."""
    grades: bool = True
    """Consulted lessons carry recall's suggested stance (off: ``annotate``, never graded)."""
    poison: float = 0.0
    """Share of the live lessons added as poisoned lessons at the start of ``poison_week``."""
    vigilant: str = ""
    """When the maintainer investigates and invalidates through the blast radius: ``drop``
    (a week's acceptance fell), ``support`` (a rejected proposal had leaned on a
    supporting lesson that week), or never (``""``)."""


ARMS: dict[str, Arm] = {
    a.name: a
    for a in (
        Arm("off", "loop off (no recall)", recall=False, consolidate=False),
        Arm("on", "loop on"),
        Arm("no-consolidation", "loop on, no consolidation", consolidate=False),
        Arm("no-stdp", "loop on, STDP off", stdp=False),
        Arm("poisoned", "loop on, 5 % poisoned in week 3", poison=0.05),
        Arm("poisoned-vigilant", "poisoned + invalidation", poison=0.05, vigilant="drop"),
        Arm(
            "poisoned-watchful",
            "poisoned + invalidation, watchful",
            poison=0.05,
            vigilant="support",
        ),
    )
}
"""The report's arms, in its order."""
CHECKS: dict[str, Arm] = {
    "no-feedback": Arm(
        "no-feedback", "recall on, no lessons or grades", lessons=False, grades=False
    ),
}
"""Arms that disable the loop's feedback (the smoke test shows they do not learn)."""


@dataclass(frozen=True)
class SimConfig:
    """Sizes, rates and people's habits (defaults: ``docs/efficacy.md``)."""

    weeks: int = 8
    drafts_per_day: int = 4
    days: int = 5
    user_neurons: int = 300
    kind_weights: dict[str, float] = field(
        default_factory=lambda: {
            "merge_neurons": 0.30,
            "add_synapse": 0.35,
            "retire_neuron": 0.20,
            "rename_domain": 0.15,
        }
    )
    error_rates: dict[str, float] = field(
        default_factory=lambda: {
            "merge_neurons": 0.5,
            "add_synapse": 0.4,
            "retire_neuron": 0.5,
            "rename_domain": 0.5,
        }
    )
    noise: float = 0.05
    """The maintainer's verdict is flipped with this probability."""
    threshold: float = 0.45
    """The curator drops or rewrites a draft when opposition reaches this."""
    consult_floor: float = 0.15
    policy_bonus: float = 0.25
    poison_week: int = 2
    """0-based: the third week."""
    vigilance_drop: float = 0.10
    """The vigilant maintainer looks when acceptance falls this far below the better of the
    two weeks before."""
    seconds: dict[str, tuple[float, float]] = field(
        default_factory=lambda: {
            "accept": (20.0, 0.55),
            "reject": (45.0, 0.55),
            "item": (8.0, 0.5),
            "policy": (25.0, 0.5),
        }
    )
    """Lognormal ``(median seconds, sigma)`` per decision type."""
    read_seconds: float = 2.0
    """Added per consulted lesson shown (at most five)."""

    def __hash__(self) -> int:
        return hash(repr(sorted(asdict(self).items())))

    def to_json(self) -> dict[str, Any]:
        return asdict(self)
