"""Is a queued proposal still about the brain as it is now?

A proposal goes stale when the neurons, synapse or domain it names no longer exist
or changed after it was made, or — for items imported from a Spikuit consolidation
plan — when the user brain's state hash no longer matches the plan's.  Checked per
visible page, in batches.  :func:`stale_for` does every check; :func:`stale_reasons`
only the ones that need nothing but the user brain.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Connection, text

from brainview.core import fsrs_math
from brainview.core.kinds import ParamError, check_params
from brainview.services.project import Project
from brainview.store.era import Era
from brainview.store.readmodel import neurons_by_ids


@dataclass(frozen=True)
class QueuedRef:
    """The parts of a queued proposal staleness needs."""

    id: str
    kind: str
    params_json: str
    created_at: str


def stale_for(
    project: Project, items: list[QueuedRef], *, agent_conn: Connection | None = None
) -> dict[str, str]:
    """Map proposal id → first reason it is stale, with every check (user brain and
    consolidation-plan state hash).  ``agent_conn`` reuses an open agent connection."""
    if not items:
        return {}
    with project.user.read() as uconn:
        if agent_conn is not None:
            return stale_all(uconn, project.user.era, agent_conn, items, path=project.user.path)
        if project.agent is None:
            return stale_reasons(uconn, project.user.era, items)
        with project.agent.read() as aconn:
            return stale_all(uconn, project.user.era, aconn, items, path=project.user.path)


def stale_all(
    user_conn: Connection,
    era: Era,
    agent_conn: Connection,
    items: list[QueuedRef],
    *,
    path: Path | None = None,
) -> dict[str, str]:
    """:func:`stale_reasons`, then the plan state-hash check for the rest."""
    from brainview.services.spkt_plan import hash_reasons  # plan imports are heavier

    out = stale_reasons(user_conn, era, items)
    rest = [item.id for item in items if item.id not in out]
    out.update(hash_reasons(agent_conn, user_conn, era, rest, path=path))
    return out


def stale_reasons(conn: Connection, era: Era, items: list[QueuedRef]) -> dict[str, str]:
    """Map proposal id → first reason it is stale (fresh proposals are absent);
    user-brain checks only."""
    parsed = {}
    for item in items:
        try:
            parsed[item.id] = check_params(item.kind, json.loads(item.params_json))[0]
        except (ParamError, ValueError):
            parsed[item.id] = None
    ids = [n for refs in parsed.values() if refs for n in refs.neurons]
    rows = neurons_by_ids(conn, era, ids)
    out: dict[str, str] = {}
    for item in items:
        refs = parsed[item.id]
        if refs is None:
            out[item.id] = "params no longer valid"
            continue
        made = fsrs_math.parse_ts(item.created_at)
        reason = None
        for nid in refs.neurons:
            row = rows.get(nid)
            if row is None:
                reason = f"neuron {nid} no longer exists"
            elif not row.live:
                reason = f"neuron {nid} was retired"
            elif row.updated_at and fsrs_math.parse_ts(row.updated_at) > made:
                reason = f"neuron {nid} changed since the proposal"
            if reason:
                break
        if reason is None and refs.synapse is not None:
            reason = _synapse_reason(conn, era, item.kind, refs.synapse)
        if reason is None:
            for dom in refs.domains:
                n = conn.execute(
                    text(f"SELECT COUNT(*) FROM neuron WHERE domain=:d AND {era.live('neuron')}"),
                    {"d": dom},
                ).scalar_one()
                if not n:
                    reason = f"domain {dom} has no live neurons"
                    break
        if reason:
            out[item.id] = reason
    return out


def _synapse_reason(conn: Connection, era: Era, kind: str, syn: tuple[str, str, str]) -> str | None:
    pre, post, typ = syn
    row = conn.execute(
        text(
            "SELECT 1 FROM synapse WHERE pre=:a AND post=:b AND type=:t AND "
            f"{era.live_synapse('synapse')}"
        ),
        {"a": pre, "b": post, "t": typ},
    ).first()
    if kind == "add_synapse" and row is not None:
        return f"synapse {pre} -{typ}→ {post} already exists"
    if kind != "add_synapse" and row is None:
        return f"synapse {pre} -{typ}→ {post} no longer exists"
    return None
