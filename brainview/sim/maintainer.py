"""The scripted maintainer: a hidden policy by family, its own words, its own pace.

* **Verdict**: reject a proposal in a mistake family, accept the rest; flipped with
  probability ``noise`` (a tired maintainer errs both ways).
* **Reason** (on reject): one of several phrasings for the family, in the maintainer's
  words; a generic one for a good proposal rejected by mistake.
* **Time**: lognormal — the usual fit for human response times — with a median per
  decision type (rejecting takes longer: a reason is typed), plus a few seconds per
  consulted lesson shown.  The draws for a proposal are seeded by the proposal's id, so
  every arm of a seed gets the same noise on the same draft.
* **Consolidation items**: pruning a lesson that records one of its rules is refused
  ("still useful") unless it was written by one of its own slips or is poisoned; decays
  are accepted; a policy is accepted, in its own words, when most of its lessons record
  the same rule, refused as too mixed otherwise.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from brainview.sim.arms import SimConfig
from brainview.sim.texts import GENERIC_REASONS, KEEP_LESSON, MIXED_POLICY, POLICIES, REASONS
from brainview.sim.world import MISTAKES, World

COHERENT = 0.6
RECOGNISE = 0.95


@dataclass(frozen=True)
class Verdict:
    """One decision the maintainer makes."""

    verdict: Literal["accept", "reject"]
    reason: str | None
    seconds: float
    policy_text: str | None = None


class Maintainer:
    """Decides like the hidden policy says, with noise."""

    def __init__(self, seed: int, cfg: SimConfig) -> None:
        self.seed, self.cfg = seed, cfg

    def _rng(self, key: str) -> random.Random:
        return random.Random(f"{self.seed}:maintainer:{key}")

    def _time(self, rng: random.Random, what: str, consulted: int = 0) -> float:
        median, sigma = self.cfg.seconds[what]
        base = rng.lognormvariate(math.log(median), sigma)
        return round(base + self.cfg.read_seconds * min(consulted, 5), 1)

    def decide(self, proposal_id: str, family: str, consulted: int) -> Verdict:
        """The verdict on a curator proposal of ``family``."""
        rng = self._rng(proposal_id)
        reject = family in MISTAKES
        if rng.random() < self.cfg.noise:
            reject = not reject
        verdict = "reject" if reject else "accept"
        seconds = self._time(rng, verdict, consulted)
        if not reject:
            return Verdict("accept", None, seconds)
        reason = rng.choice(REASONS.get(family, GENERIC_REASONS))
        return Verdict("reject", reason, seconds)

    def judge_item(
        self, proposal_id: str, kind: str, params: dict[str, Any], world: World
    ) -> Verdict:
        """A consolidation item (prune, decay, policy, retire policy)."""
        rng = self._rng(proposal_id)
        if kind == "prune_reflection":
            rid = params.get("reflection", "")
            rule = world.lessons.get(rid) in MISTAKES and rid not in world.poisoned
            seconds = self._time(rng, "item")
            if rule:
                return Verdict("reject", KEEP_LESSON, seconds)
            return Verdict("accept", None, seconds)
        if kind == "summarize_community":
            seconds = self._time(rng, "policy")
            rules = Counter(world.lessons.get(m) for m in params.get("members", []))
            top, n = rules.most_common(1)[0] if rules else (None, 0)
            members = max(1, len(params.get("members", [])))
            if top in MISTAKES and n / members >= COHERENT:
                return Verdict("accept", None, seconds, POLICIES[str(top)])
            return Verdict("reject", MIXED_POLICY, seconds)
        return Verdict("accept", None, self._time(rng, "item"))

    def flip(self, key: str) -> bool:
        """Whether its usual noise flips the verdict on ``key`` (a held-back draft)."""
        return self._rng(key).random() < self.cfg.noise

    def recognises_poison(self, reflection_id: str, world: World, when: datetime) -> bool:
        """Reading a lesson, it sees the claim contradicts its own rules (it misses one
        reading in twenty; each reading is a new chance)."""
        rng = self._rng(f"read:{reflection_id}:{when.isoformat()}")
        return reflection_id in world.poisoned and rng.random() < RECOGNISE
