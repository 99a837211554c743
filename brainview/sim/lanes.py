"""The maintainer's fixed budget on the held-back lane and the suspicious view.

Every weekday evening, after triage, the maintainer of a ``lanes`` arm spends a fifth of
``lane_seconds`` (what it under- or overspent the evening before carries over), through
the real services, in this order:

1. **The suspicious view** (:func:`brainview.services.influence.suspects.suspects`):
   it opens the ranking and reads, from the top of the first ten, each lesson it has
   not read yet, or not since a new kind of signal appeared on it (it remembers what
   it read and what the ranking said then).  Reading a lesson is the only way it recognises a
   planted one (:meth:`~brainview.sim.maintainer.Maintainer.recognises_poison`: it
   misses one reading in twenty).
2. **The held-back lane** (:func:`brainview.services.held_back.lane`, default config):
   newest first, it decides each draft by the world's truth with its usual noise —
   "should have been proposed" for a good draft (the draft is queued and decided at
   once by ``decide_queued``), "rightly held back" for a mistake — reading the opposing
   lessons on the way (a recognised one is quarantined too).

Everything it recognised that evening is quarantined in one batch
(:func:`brainview.services.lifecycle.quarantine`).  The ranking is also recorded every
evening, whether or not the budget lets it be read: which planted lessons are in the
top ten, how many benign lessons are (false flags), how many carry any signal.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from brainview.config import HeldBackConfig
from brainview.errors import ConflictError, InvalidInputError, NotFoundError
from brainview.services import held_back, lifecycle
from brainview.services.influence.suspects import suspects
from brainview.services.project import Project
from brainview.sim.arms import SimConfig
from brainview.sim.maintainer import Maintainer
from brainview.sim.world import MISTAKES, World
from brainview.store.rows import driver

ACTOR = "sim maintainer"
TOP = 10
Queued = Callable[[str, str, dict[str, Any], datetime], None]
"""``decide_queued(held_back_id, proposal_id, draft, at)``: the runner decides it."""


@dataclass
class Evening:
    """What one evening's look at the lanes recorded."""

    seconds: float = 0.0
    top: list[str] = field(default_factory=list)
    flagged: set[str] = field(default_factory=set)
    """Lessons with any signal."""
    benign_live: int = 0
    kinds: dict[str, frozenset[str]] = field(default_factory=dict)
    """Every ranked lesson → the kinds of signal on it."""
    quarantined: list[str] = field(default_factory=list)
    decided: list[tuple[str, str]] = field(default_factory=list)
    """``(held_back_id, verdict)``."""


class Lanes:
    """One run's maintainer at the lanes (state: what it read, the carried seconds)."""

    def __init__(
        self,
        project: Project,
        world: World,
        maintainer: Maintainer,
        cfg: SimConfig,
        seed: int,
        scale: float = 1.0,
    ) -> None:
        self.project, self.world, self.maintainer, self.cfg = project, world, maintainer, cfg
        self.seed, self.weekly = seed, cfg.lane_seconds * scale
        self.carry = 0.0
        self.read: dict[str, frozenset[str]] = {}
        """Lesson → the kinds of signal it carried when the maintainer last read it."""
        self.gave_up: set[str] = set()
        self.quarantined: set[str] = set()
        """What it quarantined (a lesson read again in the lane is not quarantined twice)."""
        self.hb_config = HeldBackConfig()

    def _cost(self, what: str, key: str, extra: float = 0.0) -> float:
        median, sigma = self.cfg.lane_costs[what]
        rng = random.Random(f"{self.seed}:lanes:{key}")
        return round(rng.lognormvariate(math.log(median), sigma) + extra, 1)

    def evening(
        self, at: datetime, poison: set[str], truth: dict[str, str], decide_queued: Queued
    ) -> Evening:
        """One evening (module docstring); ``poison``: the planted bad lessons (not
        benign); ``truth``: held-back id → the draft's family."""
        out = Evening()
        ranking = suspects(self.project)
        out.kinds = {s.id: frozenset(x.kind for x in s.signals) for s in ranking}
        kinds = out.kinds
        out.top = [s.id for s in ranking[:TOP]]
        out.flagged = {s.id for s in ranking}
        out.benign_live = _live_lessons(self.project) - len(poison)
        budget = self.weekly / self.cfg.days + self.carry
        spent, bad = 0.0, []
        if budget > 0:
            spent += self._cost("open", f"rank:{at.isoformat()}")
            for rid in out.top:
                if spent >= budget:
                    break
                if rid in self.read and kinds[rid] <= self.read[rid]:
                    continue
                spent += self._cost("lesson", f"{rid}:{at.isoformat()}")
                self.read[rid] = kinds[rid]
                if self.maintainer.recognises_poison(rid, self.world, at):
                    bad.append(rid)
        if spent < budget:
            spent += self._cost("open", f"lane:{at.isoformat()}")
            spent = self._lane(at, budget, spent, truth, decide_queued, bad, out)
        self.carry = budget - spent
        out.seconds = spent
        found = [r for r in dict.fromkeys(bad) if r not in self.quarantined]
        if found:
            self.quarantined.update(found)
            lifecycle.quarantine(
                self.project, found, reason="planted: contradicts the maintainer's rules",
                actor=ACTOR, now=at,
            )  # fmt: skip
            out.quarantined = found
        return out

    def _lane(
        self,
        at: datetime,
        budget: float,
        spent: float,
        truth: dict[str, str],
        decide_queued: Queued,
        bad: list[str],
        out: Evening,
    ) -> float:
        for item in held_back.lane(self.project, self.hb_config, limit=50):
            if spent >= budget:
                break
            if item.id in self.gave_up:
                continue
            opposing = [x.id for x in item.opposing]
            spent += self._cost("held", item.id, self.cfg.read_seconds * min(len(opposing), 5))
            for rid in opposing:
                if self.maintainer.recognises_poison(rid, self.world, at):
                    bad.append(rid)
            good = truth.get(item.id) not in MISTAKES
            if self.maintainer.flip(f"held:{item.id}"):
                good = not good
            verdict = "should_have_proposed" if good else "rightly_held_back"
            try:
                done = held_back.decide(
                    self.project, item.id, verdict, decider=ACTOR, now=at,
                    reason=None if good else "the lessons were right",
                )  # fmt: skip
            except (ConflictError, InvalidInputError, NotFoundError):
                self.gave_up.add(item.id)  # its neurons are gone since: nothing to queue
                continue
            out.decided.append((item.id, verdict))
            if done["proposal_id"]:
                decide_queued(item.id, str(done["proposal_id"]), item.draft, at)
        return spent


def _live_lessons(project: Project) -> int:
    """Reflections not retired (quarantined ones included: they are still lessons)."""
    agent = project.require_agent()
    live = " AND retired_at IS NULL" if agent.era.has_retire else ""
    with agent.read() as conn:
        row = (
            driver(conn)
            .execute(f"SELECT count(*) FROM neuron WHERE type = 'reflection'{live}")
            .fetchone()
        )
    return int(row[0]) if row else 0
