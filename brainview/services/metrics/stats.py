"""Vital signs of a project, for the Overview and ``brainview stats --json``."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection

from brainview.services.apply.stale import QueuedRef, stale_for
from brainview.services.project import Project
from brainview.store.brain import Brain
from brainview.store.metrics_reads import (
    live_policies,
    pending_refs,
    proposals_by_status,
    reflections_per_skill,
)
from brainview.store.readmodel import counts, table_exists


def brain_stats(brain: Brain) -> dict[str, Any]:
    """Counts by SQL aggregate: live/retired neurons, synapse rows, domains, era."""
    with brain.read() as conn:
        c = counts(conn, brain.era)
    return {
        "path": str(brain.path),
        "era": brain.era.name,
        "era_label": brain.era.label,
        "card_source": brain.era.card_source,
        "neurons": c.live,
        "neurons_retired": c.retired,
        "synapses": c.synapses,
        "synapses_retired": c.synapses_retired,
        "spikes": c.spikes,
        "domains": dict(sorted(c.domains.items())),
        "types": dict(sorted(c.types.items())),
    }


def agent_extra(brain: Brain) -> dict[str, Any]:
    """Reflection-specific counts: live reflections per skill, policies."""
    with brain.read() as conn:
        per_skill = reflections_per_skill(conn, brain.era)
        policies = live_policies(conn, brain.era)
    return {
        "reflections": sum(per_skill.values()),
        "reflections_per_skill": per_skill,
        "policies": policies,
    }


def proposal_counts(conn: Connection) -> dict[str, int]:
    """Proposals by status (zeros when brainview's tables do not exist yet); tutor and
    QABot outcomes are not proposals (:func:`brainview.services.metrics.outcomes.outcome_stats`)."""
    out = {"pending": 0, "accepted": 0, "rejected": 0, "dismissed": 0}
    if not table_exists(conn, "brainview_proposal"):
        return out
    out.update(proposals_by_status(conn))
    return out


def pending_stale(project: Project, agent_conn: Connection) -> int:
    """How many pending proposals are stale now, by every check the accept gate makes
    (user brain and consolidation-plan state hash), all of them in one batch."""
    if not table_exists(agent_conn, "brainview_proposal"):
        return 0
    items = [QueuedRef(*r) for r in pending_refs(agent_conn)]
    return len(stale_for(project, items, agent_conn=agent_conn))


def project_stats(project: Project) -> dict[str, Any]:
    """``{"user": {...}, "agent": {...} | None, "proposals": {...}, "outcomes": {...}}``."""
    from brainview.services.metrics.outcomes import outcome_stats

    user = brain_stats(project.user)
    agent: dict[str, Any] | None = None
    proposals: dict[str, int] = {"pending": 0, "accepted": 0, "rejected": 0, "dismissed": 0}
    outcomes = outcome_stats(None)
    if project.agent is not None:
        agent = brain_stats(project.agent) | agent_extra(project.agent)
        with project.agent.read() as conn:
            proposals = proposal_counts(conn)
            proposals["stale"] = pending_stale(project, conn)
            outcomes = outcome_stats(conn)
    else:
        proposals["stale"] = 0
    return {"user": user, "agent": agent, "proposals": proposals, "outcomes": outcomes}
