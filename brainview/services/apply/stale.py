"""Is a queued proposal still about the brain as it is now?

A proposal goes stale when the neurons, synapse or domain it names no longer exist
or changed after it was made, or — for items imported from a Spikuit consolidation
plan — when the user brain's state hash no longer matches the plan's, or — for items
of an agent-brain consolidation — when the part of the agent brain it was planned
from (its *basis*) changed.  Checked per
visible page (or for every pending proposal) in batches: the query count does not
grow with the number of proposals.  :func:`stale_for` does every check;
:func:`stale_reasons` only the ones that need nothing but the user brain.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Connection

from brainview.core import fsrs_math
from brainview.core.kinds import ParamError, Refs, check_params, is_agent_kind, is_learning_kind
from brainview.services.project import Project
from brainview.store.apply_rows import table_exists_raw
from brainview.store.bounded import too_large
from brainview.store.era import Era
from brainview.store.readmodel import (
    NeuronRow,
    SynapseKey,
    live_domains,
    live_synapse_keys,
    neurons_by_ids,
)


@dataclass(frozen=True)
class QueuedRef:
    """The parts of a queued proposal staleness needs."""

    id: str
    kind: str
    params_json: str | None
    """``None``: too large to load (:mod:`brainview.store.bounded`)."""
    created_at: str
    params_size: int = 0
    """The stored ``params_json``'s size, when it was too large to load."""


def stale_for(
    project: Project, items: list[QueuedRef], *, agent_conn: Connection | None = None
) -> dict[str, str]:
    """Map proposal id → first reason it is stale, with every check (user brain and
    consolidation-plan state hash).  ``agent_conn`` reuses an open agent connection."""
    if not items:
        return {}
    with project.user.read() as uconn:
        if agent_conn is not None:
            agent_era = project.agent.era if project.agent is not None else None
            return stale_all(
                uconn, project.user.era, agent_conn, items, path=project.user.path,
                agent_era=agent_era,
            )  # fmt: skip
        if project.agent is None:
            return stale_reasons(uconn, project.user.era, items)
        with project.agent.read() as aconn:
            return stale_all(
                uconn,
                project.user.era,
                aconn,
                items,
                path=project.user.path,
                agent_era=project.agent.era,
            )


def stale_all(
    user_conn: Connection,
    era: Era,
    agent_conn: Connection,
    items: list[QueuedRef],
    *,
    path: Path | None = None,
    agent_era: Era | None = None,
) -> dict[str, str]:
    """:func:`stale_reasons`, then the plan state-hash check for the rest, and (given
    ``agent_era``) the basis of agent-brain items (consolidation)."""
    out = stale_reasons(user_conn, era, items)
    if agent_era is not None:
        out.update(agent_stale_reasons(agent_conn, agent_era, items))
    if any(is_learning_kind(item.kind) for item in items):  # .learnings tier moves
        from brainview.services.learnings.apply import stale_reasons as learning_stale

        out.update(learning_stale(agent_conn, items))
    rest = [item.id for item in items if item.id not in out]
    if rest and table_exists_raw(agent_conn, "brainview_plan_item"):
        from brainview.services.intake.spkt_plan import hash_reasons  # plan imports are heavier

        found = hash_reasons(agent_conn, user_conn, era, rest, path=path, table_known=True)
        out.update(found)
    return out


def agent_stale_reasons(conn: Connection, era: Era, items: list[QueuedRef]) -> dict[str, str]:
    """Map agent-brain item id → why it no longer fits the agent brain."""
    mine = [item for item in items if is_agent_kind(item.kind)]
    if not mine:
        return {}
    from brainview.services.consolidate.apply_agent import prune_stale_many, stale_reason

    out: dict[str, str] = {}
    prunes: list[tuple[str, dict[str, Any]]] = []
    for item in mine:
        if item.params_json is None:
            out[item.id] = too_large(item.params_size)
            continue
        try:
            params = json.loads(item.params_json)
            check_params(item.kind, params)
        except (ParamError, ValueError):
            out[item.id] = "params no longer valid"
            continue
        if item.kind == "prune_reflection":  # the numerous kind: checked in one batch
            prunes.append((item.id, params))
            continue
        reason = stale_reason(conn, era, item.kind, params)
        if reason:
            out[item.id] = reason
    if prunes:
        out.update(prune_stale_many(conn, era, prunes))
    return out


def stale_reasons(conn: Connection, era: Era, items: list[QueuedRef]) -> dict[str, str]:
    """Map proposal id → first reason it is stale (fresh proposals are absent);
    user-brain checks only.

    The number of queries does not grow with ``items`` (up to the chunk sizes of the
    batch reads): neurons are read by id in batches, synapses are probed by primary
    key in batches, and each named domain is probed once for a live neuron.
    """
    parsed: dict[str, Refs | None] = {}
    for item in items:
        try:
            parsed[item.id] = check_params(item.kind, json.loads(item.params_json or ""))[0]
        except (ParamError, ValueError, RecursionError):
            parsed[item.id] = None
    refs = [r for r in parsed.values() if r is not None]
    rows = neurons_by_ids(conn, era, [n for r in refs for n in r.neurons])
    domains = live_domains(conn, era, [d for r in refs for d in r.domains])
    synapses = live_synapse_keys(conn, era, [r.synapse for r in refs if r.synapse])
    out: dict[str, str] = {}
    for item in items:
        ref = parsed[item.id]
        if item.params_json is None:
            reason: str | None = too_large(item.params_size)
        elif ref is None:
            reason = "params no longer valid"
        else:
            reason = _reason(item, ref, rows, domains, synapses)
        if reason:
            out[item.id] = reason
    return out


def _reason(
    item: QueuedRef,
    refs: Refs,
    rows: dict[str, NeuronRow],
    domains: set[str],
    synapses: set[SynapseKey],
) -> str | None:
    """The first reason one proposal is stale, from the batch reads."""
    made = fsrs_math.parse_ts(item.created_at)
    for nid in refs.neurons:
        row = rows.get(nid)
        if row is None:
            return f"neuron {nid} no longer exists"
        if not row.live:
            return f"neuron {nid} was retired"
        if row.updated_at and fsrs_math.parse_ts(row.updated_at) > made:
            return f"neuron {nid} changed since the proposal"
    if refs.synapse is not None:
        pre, post, typ = refs.synapse
        exists = refs.synapse in synapses
        if item.kind == "add_synapse" and exists:
            return f"synapse {pre} -{typ}→ {post} already exists"
        if item.kind != "add_synapse" and not exists:
            return f"synapse {pre} -{typ}→ {post} no longer exists"
    for dom in refs.domains:
        if dom not in domains:
            return f"domain {dom} has no live neurons"
    return None
