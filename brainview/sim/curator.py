"""The scripted curator: drafts, recalls, and drops or rewrites what lessons warn against.

It knows nothing of the maintainer's policy.  For each draft it calls
:func:`brainview.services.recall.recall` — the API a real curator uses — and reads the
hits the way a reader would: a hit weighs ``score × overlap``, where *overlap* is the
share of the draft's own query words the lesson matched (``matched_words`` over the
logged ``terms``, leaving out the words recall adds for every draft of a kind) or the
share of the draft's neurons it cites, whichever is larger; a hit under
a recalled policy weighs ``1 + policy_bonus`` times more.  If the strongest opposing
hit outweighs the strongest supporting one by ``threshold`` or more, the draft is
rewritten (merges become an ``extends`` link, recalled again) or dropped — and either
way reported as held back (:meth:`Curator.held_back`), with the recall, the
opposing hits it leaned on and its confidence (the opposition, capped at 1).  What it
submits consults the hits that weigh at least ``consult_floor`` (at most five) with the
stance recall suggested, and names the recall (``"recall": "rc-…"``) so the rest of the
hits become ``retrieved``.  Loop off: no recall, nothing consulted.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from brainview.core import fsrs_math
from brainview.core.recall_text import KIND_WORDS, SYNAPSE_WORDS
from brainview.services.project import Project
from brainview.services.recall import recall
from brainview.services.recall.result import Hit, RecallQuery, RecallResult
from brainview.sim.arms import Arm, SimConfig
from brainview.sim.attacks import TRIGGER
from brainview.sim.drafts import Draft, draft, rewrite
from brainview.sim.world import KINDS, World

RUNTIME = "sim-curator"
MAX_CONSULTED = 5


@dataclass
class Outcome:
    """What became of one draft."""

    draft: Draft
    action: str
    """``submitted``, ``rewritten`` (the rewrite was submitted) or ``dropped``."""
    submitted: Draft | None = None
    proposal: dict[str, Any] | None = None
    consulted: list[tuple[str, str]] = field(default_factory=list)
    opposition: float = 0.0
    against: list[str] = field(default_factory=list)
    """The lessons that made it drop or rewrite the draft (reported as held back)."""
    recall_id: str | None = None
    """The recall those lessons came from."""
    recalled: set[str] = field(default_factory=set)
    """Every lesson its recalls returned (leaned on or not)."""


KIND_TERMS = frozenset(
    w for text in (*KIND_WORDS.values(), *SYNAPSE_WORDS.values()) for w in text.split()
)
"""Words recall adds to every draft of a kind (docs/recall.md): they say nothing about
*this* draft, so the curator does not count them as overlap."""


def weigh(hit: Hit, own: set[str], refs: set[str], covered: set[str], policy_bonus: float) -> float:
    """How much a reader would lean on one hit for this draft: its score times how much
    of this draft it is about — the share of the draft's own words it matched, or of the
    draft's neurons it cites, whichever is larger."""
    words = len(own & set(hit.matched_words)) / max(1, len(own))
    cited = len(refs & set(hit.refs_direct)) / len(refs) if refs else 0.0
    weight = hit.score * max(words, cited)
    return weight * (1 + policy_bonus) if hit.reflection in covered else weight


@dataclass
class Reading:
    """A recall as the curator reads it."""

    result: RecallResult
    weights: dict[str, float]
    opposition: float

    @classmethod
    def of(cls, result: RecallResult, cfg: SimConfig, ignore: set[str]) -> Reading:
        covered = {m for p in result.policies for m in p.members}
        own = set(result.query.get("terms", [])) - KIND_TERMS
        refs = set(result.query.get("refs", []))
        weights = {
            h.reflection: weigh(h, own, refs, covered, cfg.policy_bonus) for h in result.hits
        }
        best = {"oppose": 0.0, "support": 0.0}
        for h in result.hits:
            if h.stance in best and h.reflection not in ignore:
                best[h.stance] = max(best[h.stance], weights[h.reflection])
        return cls(result, weights, best["oppose"] - best["support"])

    def leaned_on(self, floor: float) -> list[Hit]:
        hits = [h for h in self.result.hits if self.weights[h.reflection] >= floor]
        hits.sort(key=lambda h: (-self.weights[h.reflection], h.reflection))
        return hits[:MAX_CONSULTED]


class Curator:
    """Drafts with a fixed error rate per kind; recalls when the loop is on."""

    def __init__(self, seed: int, cfg: SimConfig, arm: Arm) -> None:
        self.seed, self.cfg, self.arm = seed, cfg, arm
        self.trigger_from: datetime | None = None
        """From then on, ``trigger_share`` of the drafts carry the trigger token."""

    def family_for(self, index: int) -> tuple[str, random.Random]:
        """The family of draft ``index`` (the same in every arm of a seed)."""
        rng = random.Random(f"{self.seed}:draft:{index}")
        kinds = sorted(self.cfg.kind_weights)
        kind = rng.choices(kinds, [self.cfg.kind_weights[k] for k in kinds])[0]
        mistake, good = KINDS[kind]
        return (mistake if rng.random() < self.cfg.error_rates[kind] else good), rng

    def work(self, project: Project, world: World, index: int, now: datetime) -> Outcome | None:
        """Draft ``index``; ``None`` when the brain offers no candidate of its family."""
        family, rng = self.family_for(index)
        d = draft(world, family, rng, now, index)
        if d is None:
            return None
        if self._triggered(index, now):
            d = replace(d, rationale=f"{d.rationale} ({TRIGGER})")
        if not self.arm.recall:
            return Outcome(d, "submitted", d, self._proposal(d, [], None, now))
        first = Reading.of(self._recall(project, d, now), self.cfg, set())
        seen = {h.reflection for h in first.result.hits}
        if first.opposition < self.cfg.threshold:
            hits = [
                (h.reflection, self._stance(h.stance))
                for h in first.leaned_on(self.cfg.consult_floor)
            ]
            out = self._proposal(d, hits, first.result.recall_id, now)
            return Outcome(d, "submitted", d, out, hits, first.opposition, recalled=seen)
        alt = rewrite(world, d, now)
        why, rc = self._against(first), first.result.recall_id
        dropped = Outcome(
            d, "dropped", opposition=first.opposition, against=why, recall_id=rc, recalled=seen
        )
        if alt is None:
            return dropped
        against = [h for h in first.result.hits if h.stance == "oppose"]
        reasons = {
            h.reflection for h in against if first.weights[h.reflection] >= self.cfg.consult_floor
        }
        second = Reading.of(self._recall(project, alt, now), self.cfg, reasons)
        dropped.recalled |= {h.reflection for h in second.result.hits}
        if second.opposition >= self.cfg.threshold:
            return dropped
        hits = [(r, self._stance("support")) for r in sorted(reasons)][:MAX_CONSULTED]
        more = [h for h in second.leaned_on(self.cfg.consult_floor) if h.reflection not in reasons]
        hits += [(h.reflection, self._stance(h.stance)) for h in more][: MAX_CONSULTED - len(hits)]
        out = self._proposal(alt, hits, second.result.recall_id, now)
        return Outcome(d, "rewritten", alt, out, hits, first.opposition, why, rc, dropped.recalled)

    def _triggered(self, index: int, now: datetime) -> bool:
        if self.trigger_from is None or now < self.trigger_from:
            return False
        return random.Random(f"{self.seed}:trigger:{index}").random() < self.cfg.trigger_share

    def _against(self, reading: Reading) -> list[str]:
        """The opposing hits it leaned on (at least the strongest one), at most five."""
        hits = [h for h in reading.result.hits if h.stance == "oppose"]
        hits.sort(key=lambda h: (-reading.weights[h.reflection], h.reflection))
        leaned = [h for h in hits if reading.weights[h.reflection] >= self.cfg.consult_floor]
        return [h.reflection for h in (leaned or hits[:1])][:MAX_CONSULTED]

    def held_back(self, o: Outcome, now: datetime) -> dict[str, Any]:
        """The held-back report of a dropped or rewritten draft (docs/curator.md)."""
        out: dict[str, Any] = {
            "id": f"hb-sim-{o.draft.index:05d}",
            "action": "withdrawn" if o.action == "dropped" else "rewritten",
            "draft": self._proposal(o.draft, [], None, now),
            "recall": o.recall_id,
            "lessons": [{"reflection": r, "stance": "oppose"} for r in o.against],
            "runtime": RUNTIME,
            "confidence": round(min(1.0, o.opposition), 3),
        }
        if o.action == "rewritten" and o.proposal is not None:
            out["rewritten_as"] = o.proposal["id"]
        return out

    def _stance(self, suggested: str) -> str:
        return suggested if self.arm.grades else "annotate"

    def _recall(self, project: Project, d: Draft, now: datetime) -> RecallResult:
        query = RecallQuery(proposal=d.proposal(), skill="curator", limit=10)
        return recall(project, query, now=now, log=True, runtime=RUNTIME)

    def _proposal(
        self, d: Draft, hits: list[tuple[str, str]], recall_id: str | None, now: datetime
    ) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": f"sim-{d.index:05d}",
            "skill": "curator",
            "kind": d.kind,
            "params": d.params,
            "rationale": d.rationale,
            "consulted": [{"reflection": r, "stance": s} for r, s in hits],
            "created_at": fsrs_math.format_ts(now),
            "runtime": RUNTIME,
        }
        if recall_id is not None:
            out["recall"] = recall_id
        return out
