"""The maths of an agent-brain consolidation: triage tiers and the SHY / SWS picks.

Pure functions over plain values (no database): the service layer reads the agent
brain, calls these, and turns the picks into proposals.

* **Triage** by recency and fire pattern: ``hot`` (fired ``hot_fires`` times within
  ``hot_days``), ``warm`` (fired within ``stale_days``), ``stale`` (not fired within
  ``stale_days``, or never fired and older than that), ``new`` (younger than
  ``stale_days`` and never fired: too young to judge).  Independently a reflection is
  ``contested`` when most of its last three grades were misses.
* **SHY** (Spikuit 0.7: factor 0.8, floor 0.05): a weak synapse (weight below
  ``weak_below``) between two stale reflections decays to ``weight × factor``; below
  the floor it is retired instead — both rows of a bidirectional pair, as Spikuit's
  ``remove_synapse`` does.
* **SWS**: a stale (or *let go*) reflection whose retrievability now is below the
  pruning threshold, and that no maintainer rescued, is pruned.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import datetime

from brainview.core import fsrs_math
from brainview.core.kinds_agent import DECAY_FACTOR, WEIGHT_FLOOR, decayed
from brainview.core.params import BIDIRECTIONAL

TIERS = ("hot", "warm", "stale", "new")


@dataclass(frozen=True)
class Settings:
    """Everything a plan depends on besides the brain (stored with the plan)."""

    threshold: float = 0.7
    stale_days: int = 30
    hot_days: int = 7
    hot_fires: int = 3
    weak_below: float = 0.5
    decay_factor: float = DECAY_FACTOR
    weight_floor: float = WEIGHT_FLOOR
    min_community: int = 3
    policy_overlap: float = 0.5

    def to_json(self) -> dict[str, float | int]:
        """Plain JSON-ready dict."""
        return asdict(self)


@dataclass(frozen=True)
class FireStats:
    """What the spike log says about one reflection."""

    created_at: str | None
    last_fire: str | None
    fires_recent: int
    """Fires within the hot window."""
    recent_misses: int = 0
    """Misses among the latest (up to three) grades."""
    recent_graded: int = 0
    """How many latest grades that counts over (at most three)."""
    last_spike: int | None = None
    """Id of the latest spike row (the basis of prune and decay items)."""


def tier_of(stats: FireStats, now: datetime, s: Settings) -> str:
    """``hot``, ``warm``, ``stale`` or ``new`` (module docstring)."""
    if stats.fires_recent >= s.hot_fires:
        return "hot"
    now = fsrs_math.ensure_utc(now)
    if stats.last_fire is not None:
        age = (now - fsrs_math.parse_ts(stats.last_fire)).total_seconds() / 86_400
        return "warm" if age <= s.stale_days else "stale"
    if stats.created_at is None:
        return "stale"
    born = (now - fsrs_math.parse_ts(stats.created_at)).total_seconds() / 86_400
    return "new" if born <= s.stale_days else "stale"


def contested(stats: FireStats) -> bool:
    """Most of the last (up to three) grades were misses."""
    return stats.recent_graded > 0 and stats.recent_misses * 2 > stats.recent_graded


def prune_candidate(
    tier: str, r_now: float | None, s: Settings, *, rescued: bool, let_go: bool
) -> bool:
    """SWS: below the threshold now, stale (or let go), and not rescued."""
    if rescued or r_now is None or r_now >= s.threshold:
        return False
    return tier == "stale" or let_go


@dataclass(frozen=True)
class SynapseRow:
    """A live synapse between two reflections."""

    pre: str
    post: str
    type: str
    weight: float


def shy_picks(
    synapses: Sequence[SynapseRow], stale: set[str], excluded: set[str], s: Settings
) -> list[tuple[SynapseRow, float | None]]:
    """SHY: weak synapses with both ends stale (and neither end ``excluded``, e.g.
    pruned in the same plan), each with its decayed weight (``None`` = retire)."""
    out: dict[tuple[str, str, str], float | None] = {}
    rows = {}
    for syn in synapses:
        if syn.type == "summarizes" or syn.weight >= s.weak_below:
            continue
        if syn.pre in stale and syn.post in stale and not {syn.pre, syn.post} & excluded:
            key = (syn.pre, syn.post, syn.type)
            rows[key] = syn
            out[key] = decayed(syn.weight, s.decay_factor, s.weight_floor)
    # Spikuit retires both rows of a bidirectional pair: so does SHY, in one step.
    for (pre, post, typ), to in list(out.items()):
        if to is None and typ in BIDIRECTIONAL and (post, pre, typ) in out:
            out[(post, pre, typ)] = None
    return [(rows[k], out[k]) for k in sorted(out)]


def jaccard(a: set[str], b: set[str]) -> float:
    """|a ∩ b| / |a ∪ b| (0 for two empty sets)."""
    union = a | b
    return len(a & b) / len(union) if union else 0.0
