"""A past for the demo: six weeks of decisions and one consolidation, made through the
real decision path, so the Overview's metrics have something to show on first open.

Only ``brainview demo`` asks for it (``DemoSpec(history=True)``); tests build demos
without it.  Past decisions are recorded, not applied (the user brain stays as the
generator wrote it, so the pending queue keeps its meaning); they grade the consulted
reflections, write rejection lessons and move STDP weights like any decision.  Two
runtimes decide differently (the seed's model-scaling comparison), and the maintainer
gets faster week by week (MAC).  A consolidation ten days ago was partly reviewed:
some lessons pruned, one policy accepted with an edited text, one rejected.
"""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from fsrs import Scheduler

if TYPE_CHECKING:
    from brainview.demo.generator import DemoInfo, DemoSpec
    from brainview.services.project import Project
    from brainview.services.review.call import Verdict

WEEKS = 6
PER_WEEK = 5
RUNTIMES = {"curator-model-a": 0.8, "curator-model-b": 0.5}
"""Runtime → how often the maintainer accepts its proposals."""
REASONS = (
    "The two notes differ in purpose.",
    "Too early: the user has not studied this yet.",
    "Wrong direction for this prerequisite.",
)


def seed_history(root: Path, spec: DemoSpec, info: DemoInfo) -> None:
    """Queue and decide the past proposals, then the past consolidation."""
    from brainview.demo.agent_gen import date_before_first_use, demo_proposals
    from brainview.services import intake, review
    from brainview.services.project import Project

    rng = random.Random(spec.seed + 11)
    sched = Scheduler(enable_fuzzing=False)
    n = WEEKS * PER_WEEK
    past = replace(spec, proposals=n, seed=spec.seed + 100)
    proposals = demo_proposals(root, past, info)
    start = spec.now - timedelta(weeks=WEEKS)
    names = sorted(RUNTIMES)
    for k, p in enumerate(proposals):
        p["id"] = f"hist-{k:03d}"
        p["created_at"] = (start + timedelta(hours=k * WEEKS * 7 * 24 / n)).isoformat()
        p["runtime"] = names[k % 2]
    with Project.locate(root, write_agent=True) as project:
        intake.submit(project, proposals, source="demo-history", now=spec.now)
        for k, p in enumerate(proposals):
            made = start + timedelta(hours=k * WEEKS * 7 * 24 / n)
            week = k // PER_WEEK
            verdict: Verdict = "accept" if rng.random() < RUNTIMES[p["runtime"]] else "reject"
            seconds = round(rng.uniform(20, 75) * (1 - 0.12 * week), 1)
            review.decide(
                project, p["id"], verdict, decider="demo maintainer",
                reason=rng.choice(REASONS) if verdict == "reject" else None,
                seconds_on_screen=seconds, now=made + timedelta(hours=rng.uniform(2, 30)),
                scheduler=sched,
            )  # fmt: skip
        _consolidation(project, spec, rng, sched)
    date_before_first_use(root / ".spikuit" / "agent" / "circuit.db")


def _consolidation(project: Project, spec: DemoSpec, rng: random.Random, sched: Scheduler) -> None:
    """Plan ten days ago, queue part of it, decide all of what was queued."""
    from brainview.services import consolidate, review

    when = spec.now - timedelta(days=10)
    plan = consolidate.plan(project, now=when, in_process=True)
    by_kind: dict[str, list[consolidate.PlanItem]] = {}
    for item in plan.items:
        by_kind.setdefault(item.kind, []).append(item)
    plan.items = (
        by_kind.get("prune_reflection", [])[:6]
        + by_kind.get("decay_synapses", [])[:1]
        + by_kind.get("summarize_community", [])[:2]
    )
    ids = consolidate.queue(project, plan, now=when)
    later = when + timedelta(hours=3)
    policies = 0
    for pid, item in zip(ids, plan.items, strict=True):
        seconds = round(rng.uniform(8, 40), 1)
        verdict: Verdict = "accept"
        reason = text = None
        if item.kind == "summarize_community":
            policies += 1
            if policies == 1:
                text = "Keep notes that share words but play different roles apart: link them."
            else:
                verdict = "reject"
                reason = "Too generic: it restates the lessons instead of saying what to do."
        elif item.kind == "prune_reflection" and rng.random() < 0.25:
            verdict, reason = "reject", "Still useful for new users."
        review.decide(
            project, pid, verdict, reason=reason, policy_text=text, scheduler=sched,
            decider="demo maintainer", seconds_on_screen=seconds, now=later,
        )  # fmt: skip
