"""Consolidating the agent brain under review (``brainview reflect consolidate``).

:func:`plan` reads the agent brain once and plans triage, SHY, SWS and REM
(:mod:`~brainview.services.consolidate.planner`); :func:`queue` turns every item into a
proposal a maintainer decides (kinds ``prune_reflection``, ``decay_synapses``,
``summarize_community``, ``retire_policy``), all in one transaction with a
``brainview_consolidation`` row; :func:`apply_directly` applies a whole plan at once —
what an all-or-nothing ``consolidate apply`` would do, and the reference the review
path is tested against (accepting every item gives the same agent brain).
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from brainview.config import ConsolidateConfig
from brainview.core import fsrs_math
from brainview.core.bulk import collector_paused
from brainview.core.clustering import Partition
from brainview.core.consolidation import Settings
from brainview.errors import ConflictError, InvalidInputError
from brainview.services import intake, text_guard
from brainview.services.communities.runner import Progress
from brainview.services.consolidate import apply_agent
from brainview.services.consolidate.gather import plan_fingerprint, read_state, texts
from brainview.services.consolidate.model import PHASE_NAMES, PHASES, ConsolidationPlan, PlanItem
from brainview.services.consolidate.planner import PLANNER, build
from brainview.services.lifecycle import Status
from brainview.services.project import Project
from brainview.store.bv_schema_consolidation import ConsolidationRow, record_consolidation
from brainview.store.effects import EffectLog
from brainview.store.rows import driver

__all__ = [
    "PHASES",
    "PLANNER",
    "PHASE_NAMES",
    "ConsolidationPlan",
    "PlanItem",
    "apply_directly",
    "plan",
    "queue",
    "settings_from",
]


def settings_from(cfg: ConsolidateConfig, threshold: float) -> Settings:
    """The planner's settings from the ``[consolidate]`` config and the pruning threshold."""
    return Settings(
        threshold=threshold,
        stale_days=cfg.stale_days,
        hot_days=cfg.hot_days,
        hot_fires=cfg.hot_fires,
        weak_below=cfg.weak_below,
        decay_factor=cfg.decay_factor,
        weight_floor=cfg.weight_floor,
        min_community=cfg.min_community,
        policy_overlap=cfg.policy_overlap,
    )


def plan(
    project: Project,
    *,
    now: datetime,
    settings: Settings | None = None,
    partition: Partition | None = None,
    progress: Progress | None = None,
    in_process: bool | None = None,
) -> ConsolidationPlan:
    """Plan a consolidation of the agent brain as it is now.  Writes no brain: when
    communities had to be detected, the partition is cached outside the brains
    (:mod:`brainview.services.communities.cache`).  Refused (ConflictError) for agent
    brains older than Spikuit 0.7, which cannot soft-retire."""
    from brainview.services.communities import ensure_partition

    s = settings or Settings()
    agent = project.require_agent()
    if not agent.era.has_retire or "retired_at" not in agent.era.synapse_cols:
        raise ConflictError(
            "this agent brain predates Spikuit 0.7 (no retired_at): brainview cannot prune "
            "or retire in it the Spikuit way; open it once with spkt 0.7+ to upgrade it"
        )
    now = fsrs_math.ensure_utc(now)
    if partition is None:
        partition = ensure_partition(project, now=now, progress=progress, in_process=in_process)
    with agent.read() as conn, collector_paused():  # ~1M small objects, no cycle
        state = read_state(conn, agent.era, now, s)
        return build(state, partition, lambda ids: texts(conn, ids), now, s)


def queue(project: Project, the_plan: ConsolidationPlan, *, now: datetime) -> list[str]:
    """Queue every item as a proposal, with the plan's row, in one transaction.

    Refused (ConflictError) when the agent brain changed since the plan was made: plan
    again.  Returns the proposal ids in plan order (none for an empty plan).
    """
    with collector_paused():  # every item parsed and checked: no cycle among them
        return _queue(project, the_plan, now=now)


def _queue(project: Project, the_plan: ConsolidationPlan, *, now: datetime) -> list[str]:
    agent = project.require_agent()
    now_s = fsrs_math.format_ts(now)
    ids = the_plan.proposal_ids()
    raw = [
        item.proposal(pid, the_plan.planned_at, the_plan.planner)
        for pid, item in zip(ids, the_plan.items, strict=True)
    ]
    batch, states = _checked(project, raw, now)
    del raw  # the parsed batch holds what is stored (the curator-format dicts can go)
    with agent.write() as conn:
        if plan_fingerprint(driver(conn), conn, agent.era) != the_plan.fingerprint:
            raise ConflictError("the agent brain changed since this plan was made: plan again")
        if not batch:
            return []
        # The fingerprint covers the lifecycle log and the graph: the states read by
        # the checks are the states now.
        intake.flag_suspicion(conn, agent.era, batch, states)
        intake.store(conn, batch, source="consolidate", now=now)
        phases = {phase: sum(1 for i in the_plan.items if i.phase == phase) for phase in PHASES}
        row = ConsolidationRow(
            id=the_plan.id,
            fingerprint=the_plan.fingerprint,
            planned_at=now_s,
            planner=the_plan.planner,
            settings=the_plan.settings.to_json(),
            counts={**phases, **the_plan.counts()},
            n_items=len(batch),
        )
        record_consolidation(
            conn, row, [(pid, item.phase) for pid, item in zip(ids, the_plan.items, strict=True)]
        )
    return ids


CHUNK = 5_000
"""Items validated per intake batch (a large brain's first plan can hold 10,000+)."""


def _checked(
    project: Project, raw: list[dict[str, Any]], now: datetime
) -> tuple[list[intake.Proposal], dict[str, Status]]:
    """Parse and check the items in chunks of :data:`CHUNK` (an error names the item's
    index in its chunk, as before), every brain read made once for all chunks; a chunk
    that does not parse is reported after the checks of the chunks before it.  Returns
    the parsed items and their reflections' states as the checks read them."""
    chunks: list[list[intake.Proposal]] = []
    for start in range(0, len(raw), CHUNK):
        try:
            chunks.append(intake.parse_batch(raw[start : start + CHUNK], now))
        except InvalidInputError:
            intake.check_chunks(project, chunks)
            raise
    states = intake.check_chunks(project, chunks)
    return [p for chunk in chunks for p in chunk], states


def apply_directly(
    project: Project, the_plan: ConsolidationPlan, *, decider: str, now: datetime
) -> int:
    """Apply every item at once, in plan order, in one transaction (no proposals, no
    decisions, no grades): the all-or-nothing reference.  Returns the items applied."""
    text_guard.name("decider", decider)
    agent = project.require_agent()
    tag = f"brainview:consolidate:{the_plan.id}"
    with agent.write() as conn:
        log = EffectLog(conn)
        for item in the_plan.items:
            params = json.loads(json.dumps(item.params))
            cs = apply_agent.changeset(tag, decider, now)
            apply_agent.apply_item(log, agent.era, item.kind, params, cs)
    return len(the_plan.items)
