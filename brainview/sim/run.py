"""One arm, one seed: N simulated weeks through brainview's real services.

A week (it starts on the demo's Monday, 09:00 UTC):

* Monday–Friday at 10:00 the curator works through its drafts (recalling when the loop
  is on), submits the survivors through intake and reports every draft it dropped or
  rewritten as held back (:mod:`brainview.services.held_back`); from 16:00 the maintainer decides
  each one through :func:`brainview.services.review.decide` — grades, STDP, rejection
  lessons, effects, all real — in **record-only** mode (the user brain is never
  changed; the world remembers what was accepted, see :mod:`brainview.sim.world`).
* Saturday: a consolidation is planned and queued (:mod:`brainview.services.consolidate`)
  and the same maintainer decides every item.
* Sunday: the vigilant maintainer (when the arm has one) looks at the week: after an
  acceptance drop (``drop``), or whenever a rejected proposal had leaned on a supporting
  lesson (``support``) — see :mod:`brainview.sim.poison`.

The poisoned arms get their poisoned lessons on the poison week's Monday at 09:00.
At the end :func:`brainview.services.metrics.agent_metrics` reads the run's metrics.
"""

from __future__ import annotations

import tempfile
from datetime import datetime, timedelta
from pathlib import Path
from time import perf_counter
from typing import Any

from fsrs import Scheduler

from brainview.demo import sim_brains
from brainview.demo.generator import DEMO_NOW, DemoSpec
from brainview.errors import ConflictError, InvalidInputError, NotFoundError
from brainview.services import consolidate, held_back, intake, review
from brainview.services.metrics import agent_metrics
from brainview.services.project import Project
from brainview.services.recall.attach import expand
from brainview.sim import poison
from brainview.sim.arms import Arm, SimConfig
from brainview.sim.curator import RUNTIME, Curator, Outcome
from brainview.sim.determinism import seeded
from brainview.sim.maintainer import Maintainer
from brainview.sim.watch import Watch
from brainview.sim.week import ArmRun, Week
from brainview.sim.world import MISTAKES, World, fresh_domains

START = DEMO_NOW
DECIDER = "sim maintainer"
SCHEDULER = Scheduler(enable_fuzzing=False)


def run_arm(arm: Arm, seed: int, cfg: SimConfig, workdir: Path | None = None) -> ArmRun:
    """Build the world for ``seed`` and run ``arm`` on it (in ``workdir``, or a temp dir)."""
    if workdir is None:
        with tempfile.TemporaryDirectory(prefix="bv-sim-") as tmp:
            return run_arm(arm, seed, cfg, Path(tmp))
    started = perf_counter()
    with seeded(str(seed), workdir / "cache"):
        spec = DemoSpec(user_neurons=cfg.user_neurons, reflections=0, proposals=0, seed=seed)
        brains = sim_brains.build(workdir / "project", spec, fresh_domains(START, cfg.weeks))
        world = World(brains, seed, START)
        with Project.locate(workdir / "project", write_agent=True) as project:
            weeks = _Runner(project, world, arm, cfg, seed).run()
            end = START + timedelta(weeks=cfg.weeks)
            metrics = agent_metrics(project, end, threshold=0.7, days=14).to_json()
    return ArmRun(arm.name, seed, weeks, metrics, round(perf_counter() - started, 2))


class _Runner:
    def __init__(self, project: Project, world: World, arm: Arm, cfg: SimConfig, seed: int):
        self.project, self.world, self.arm, self.cfg = project, world, arm, cfg
        self.curator = Curator(seed, cfg, arm)
        self.maintainer = Maintainer(seed, cfg)
        self.rejected_families: set[str] = set()
        self.index = 0
        self.watch = Watch(project, world, arm, cfg, seed, self.maintainer)
        self.week = Week()

    def run(self) -> list[Week]:
        out: list[Week] = []
        for w in range(self.cfg.weeks):
            monday = START + timedelta(weeks=w)
            week = self.week = Week()
            self.world.study_week(monday)
            if self.arm.poison and w == self.cfg.poison_week:
                made = poison.inject(self.project, self.world, self.arm.poison, monday)
                week.poisoned = len(made)
            if w == self.cfg.poison_week:
                self.watch.plant(monday, week, self.curator)
            supported: list[str] = []
            for day in range(self.cfg.days):
                at = monday + timedelta(days=day, hours=1)
                supported += self._day(at, week)
                self.watch.evening(at + timedelta(hours=10), week, self._queued)
            if self.arm.consolidate:
                self._consolidate(monday + timedelta(days=5, hours=1), week)
            self.watch.week_end(week, monday + timedelta(days=6, hours=1))
            if self.arm.vigilant:
                self._watch(out, week, supported, monday + timedelta(days=6, hours=2))
            week.lessons = len(self.world.lessons)
            out.append(week)
        return out

    def _day(self, at: datetime, week: Week) -> list[str]:
        outcomes: list[Outcome] = []
        for _ in range(self.cfg.drafts_per_day):
            self.index += 1
            found = self.curator.work(self.project, self.world, self.index, at)
            if found is not None:
                outcomes.append(found)
        raws = [expand(self.project, o.proposal) for o in outcomes if o.proposal is not None]
        if raws:
            intake.submit(self.project, raws, source="simulate", now=at)
        for o in outcomes:  # every withdrawal and rewrite, through the curator's API
            self.watch.observe(o, at, week)
            if o.action != "submitted":
                raw = self.curator.held_back(o, at)
                self._report(raw, at)
                self.watch.held(str(raw["id"]), o, week)
        clock = at + timedelta(hours=6)
        supported = []
        for o in outcomes:
            week.drafts += 1
            mistake = o.draft.family in MISTAKES
            week.mistakes_drafted += mistake
            if o.action != "submitted":
                week.mistakes_caught += mistake
                week.good_lost += not mistake
            week.dropped += o.action == "dropped"
            week.rewritten += o.action == "rewritten"
            if o.submitted is None or o.proposal is None:
                continue
            week.submitted += 1
            clock, verdict = self._decide(o, clock, week)
            if verdict == "reject":
                supported += [r for r, s in o.consulted if s == "support"]
        return supported

    def _report(self, raw: dict[str, Any], at: datetime) -> None:
        report, draft = held_back.parse_report(raw, at)
        held_back.report_held_back(
            self.project, report, draft, runtime=RUNTIME, now=at, source="simulate"
        )

    def _decide(self, o: Outcome, clock: datetime, week: Week) -> tuple[datetime, str]:
        assert o.submitted is not None and o.proposal is not None
        d = o.submitted
        family = self.world.family_of(d.kind, d.params, clock)
        v = self.maintainer.decide(o.proposal["id"], family, len(o.consulted))
        clock += timedelta(seconds=v.seconds)
        result = review.decide(
            self.project, o.proposal["id"], v.verdict, reason=v.reason, decider=DECIDER,
            seconds_on_screen=v.seconds, now=clock, scheduler=SCHEDULER,
            write_reflections=self.arm.lessons, stdp=self.arm.stdp,
        )  # fmt: skip
        self._count(week, v.verdict, v.seconds, family, d.kind, d.params, result.new_reflection_id)
        return clock, v.verdict

    def _count(
        self, week: Week, verdict: str, seconds: float, family: str, kind: str,
        params: dict[str, Any], lesson: str | None,
    ) -> None:  # fmt: skip
        week.seconds.append(seconds)
        if verdict == "accept":
            week.accepted += 1
            self.world.accepted(kind, params)
            return
        week.rejected += 1
        if family in MISTAKES:
            week.repeated += family in self.rejected_families
            self.rejected_families.add(family)
        if lesson:
            self.world.lessons[lesson] = family

    def _queued(self, held_back_id: str, pid: str, draft: dict[str, Any], at: datetime) -> None:
        """A held-back draft the lane queued: the maintainer decides it at once."""
        kind, params = str(draft["kind"]), dict(draft["params"])
        family = self.world.family_of(kind, params, at)
        v = self.maintainer.decide(pid, family, 0)
        try:
            result = review.decide(
                self.project, pid, v.verdict, reason=v.reason, decider=DECIDER,
                seconds_on_screen=v.seconds, now=at, scheduler=SCHEDULER,
                write_reflections=self.arm.lessons, stdp=self.arm.stdp,
            )  # fmt: skip
        except (ConflictError, InvalidInputError, NotFoundError):
            return
        self.week.held_proposed += 1
        self._count(self.week, v.verdict, v.seconds, family, kind, params, result.new_reflection_id)
        if v.verdict == "accept":
            self.watch.recovered(held_back_id)

    def _consolidate(self, at: datetime, week: Week) -> None:
        plan = consolidate.plan(self.project, now=at, in_process=True)
        if not plan.items:
            return
        ids = consolidate.queue(self.project, plan, now=at)
        clock = at
        for pid, item in zip(ids, plan.items, strict=True):
            v = self.maintainer.judge_item(pid, item.kind, item.params, self.world)
            clock += timedelta(seconds=v.seconds)
            edited = v.policy_text if v.verdict == "accept" else None
            review.decide(
                self.project, pid, v.verdict, reason=v.reason, decider=DECIDER,
                seconds_on_screen=v.seconds, now=clock, scheduler=SCHEDULER,
                policy_text=edited, stdp=self.arm.stdp,
            )  # fmt: skip
            week.items += 1
            week.item_seconds = round(week.item_seconds + v.seconds, 1)
            accepted = v.verdict == "accept"
            week.policies += accepted and item.kind == "summarize_community"
            if accepted and item.kind == "prune_reflection":
                week.pruned += 1
                self.world.lessons.pop(item.params["reflection"], None)

    def _watch(self, before: list[Week], week: Week, supported: list[str], at: datetime) -> None:
        if self.arm.vigilant == "drop":
            rates = [w.acceptance for w in before[-2:] if w.acceptance is not None]
            now_rate = week.acceptance
            if not rates or now_rate is None or now_rate > max(rates) - self.cfg.vigilance_drop:
                return
        if not supported:
            return
        week.looked += 1
        bad, _read = poison.investigate(self.project, self.world, self.maintainer, supported, at)
        week.invalidated += len(bad)
