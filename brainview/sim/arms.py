"""The arms of the experiment and the knobs every arm shares.

An arm switches parts of the loop on or off; everything else (the world, the drafts'
families, the maintainer's noise on each draft) is shared by every arm of a seed, so
arms are compared pairwise.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

ATTACK_LABELS: dict[str, str] = {
    "suppress": "poison opposing good drafts",
    "trigger": "trigger lesson (AgentPoison)",
    "graft": "fake success (MemoryGraft)",
    "gaming": "three identities, one claim",
    "laundered": "laundered via consolidation",
}
"""Attack arm → its label (each has a ``-control`` arm beside it)."""


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
    lanes: float = 0.0
    """The maintainer spends this many times ``lane_seconds`` a week on the held-back
    lane and the suspicious view (:mod:`brainview.sim.lanes`; 0: never)."""
    attack: str = ""
    """A planted lesson of :data:`brainview.sim.attacks.ATTACKS` (``""``: none)."""
    benign: bool = False
    """The attack's control: the planted lesson replaced by a true one of its shape."""


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
        Arm("lanes", "loop on + lanes", lanes=1.0),
        Arm("lanes-x3", "loop on + lanes, 3× the budget", lanes=3.0),
        *(
            Arm(f"{name}{tail}", f"{label}{what}", lanes=1.0, attack=name, benign=benign)
            for name, label in ATTACK_LABELS.items()
            for tail, what, benign in (("", "", False), ("-control", " (control)", True))
        ),
    )
}
"""The report's arms, in its order (the attack arms: :mod:`brainview.sim.attacks`)."""
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
    lane_seconds: float = 50.0
    """The lanes arms' maintainer: seconds a week on the held-back lane and the
    suspicious view, spent a fifth each weekday evening (unspent or overspent seconds
    carry to the next evening)."""
    lane_costs: dict[str, tuple[float, float]] = field(
        default_factory=lambda: {"open": (3.0, 0.3), "lesson": (10.0, 0.5), "held": (12.0, 0.5)}
    )
    """Lognormal ``(median seconds, sigma)``: opening a lane, reading one lesson of the
    suspicious view, deciding one held-back draft (plus ``read_seconds`` per lesson)."""
    trigger_share: float = 0.2
    """The trigger arms: share of drafts whose text carries the trigger once planted."""

    def __hash__(self) -> int:
        return hash(repr(sorted(asdict(self).items())))

    def to_json(self) -> dict[str, Any]:
        return asdict(self)
