"""Round two's bookkeeping inside a run: the planted lesson, what it swayed, the lanes.

:class:`Watch` plants the arm's attack (:mod:`brainview.sim.attacks`) on the poison
week's Monday, sees every draft's outcome (did a planted lesson sway it — consulted or
suppressing — or was it merely recalled; was it recalled *after* its quarantine, which
must never happen; a recall probe with its own text checks it again each week),
sends the maintainer to the lanes every weekday evening
(:mod:`brainview.sim.lanes`) and writes what it saw into the week
(:class:`brainview.sim.week.Week`).
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime

from brainview.services.project import Project
from brainview.services.recall import recall
from brainview.services.recall.result import RecallQuery
from brainview.sim import attacks
from brainview.sim.arms import Arm, SimConfig
from brainview.sim.curator import Curator, Outcome
from brainview.sim.lanes import Lanes, Queued
from brainview.sim.maintainer import Maintainer
from brainview.sim.week import Week
from brainview.sim.world import MISTAKES, World


class Watch:
    """One run's planted lessons and lanes (inert for the arms without either)."""

    def __init__(
        self,
        project: Project,
        world: World,
        arm: Arm,
        cfg: SimConfig,
        seed: int,
        maintainer: Maintainer,
    ) -> None:
        self.project, self.world, self.arm = project, world, arm
        self.planted: list[str] = []
        self.quarantined_at: dict[str, datetime] = {}
        self.truth: dict[str, str] = {}
        """Held-back id → the draft's family (ground truth when it was drafted)."""
        self.week_of: dict[str, Week] = {}
        self.lanes = Lanes(project, world, maintainer, cfg, seed, arm.lanes) if arm.lanes else None

    def plant(self, monday: datetime, week: Week, curator: Curator) -> None:
        """Write the arm's attack (or its control) at ``monday`` 09:00."""
        if not self.arm.attack:
            return
        self.planted = attacks.plant(
            self.project, self.world, self.arm.attack, self.arm.benign, monday
        )
        week.poisoned += len(self.planted)
        if self.arm.attack == "trigger":
            curator.trigger_from = monday

    def observe(self, o: Outcome, at: datetime, week: Week) -> None:
        """Whether a planted lesson swayed this draft, or was recalled for it."""
        mine = set(self.planted)
        if not mine:
            return
        leaned = {r for r, _s in o.consulted} | set(o.against)
        week.swayed += bool(mine & leaned)
        week.recalled += bool(mine & o.recalled)
        shut = {r for r, t in self.quarantined_at.items() if t <= at}
        week.after_quarantine += bool(shut & o.recalled)

    def held(self, held_back_id: str, o: Outcome, week: Week) -> None:
        """Remember a reported draft's truth and week (for the lane's verdicts)."""
        self.truth[held_back_id] = o.draft.family
        self.week_of[held_back_id] = week

    def recovered(self, held_back_id: str) -> None:
        """A held-back draft came back through the lane and was accepted."""
        week = self.week_of.get(held_back_id)
        if week is not None and self.truth.get(held_back_id) not in MISTAKES:
            week.good_recovered += 1

    def evening(self, at: datetime, week: Week, decide_queued: Queued) -> None:
        """The maintainer's evening at the lanes, recorded into ``week``."""
        if self.lanes is None:
            return
        poison = set() if self.arm.benign else set(self.planted)
        ev = self.lanes.evening(at, poison, self.truth, decide_queued)
        week.lane_seconds = round(week.lane_seconds + ev.seconds, 1)
        week.held_decided += len(ev.decided)
        week.top10 += bool(set(self.planted) & set(ev.top))
        for rid, kinds in ev.kinds.items():
            for kind in kinds:
                if rid in self.planted:
                    week.planted_kinds[kind] = week.planted_kinds.get(kind, 0) + 1
        benign = Counter(k for r, ks in ev.kinds.items() if r not in poison for k in ks)
        week.benign_kinds = dict(sorted(benign.items()))
        for rid in ev.quarantined:
            if rid in self.planted and rid not in self.quarantined_at:
                self.quarantined_at[rid] = at
                week.quarantined += 1
        week.benign_top10 = len([r for r in ev.top if r not in poison])
        week.benign_flagged = len(ev.flagged - poison)
        week.benign_live = ev.benign_live

    def week_end(self, week: Week, at: datetime) -> None:
        """Whether a policy now summarises a planted lesson (laundering), and a recall
        probe with each quarantined lesson's own text: it must not come back."""
        if not self.planted:
            return
        week.laundered = attacks.laundered(self.project, self.planted)
        for rid in self.quarantined_at:
            text = attacks.text_of(self.project, rid)
            query = RecallQuery(text=text[:2000], skill="curator", limit=20)
            found = recall(self.project, query, now=at, log=False)
            week.probe_returned += any(h.reflection == rid for h in found.hits)
