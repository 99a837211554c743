"""Applying an agent-brain kind: staleness, then the rows, the Spikuit way.

The change is planned with the same :class:`~brainview.services.apply.view.Builder`
the user-brain kinds use (soft-retire with cascade, ``neuron.add`` / ``synapse.*``
events, one ``changeset`` tagged ``brainview:<proposal id>``) — but over the *agent*
brain, and written through the decision's :class:`~brainview.store.effects.EffectLog`
inside the decision's own transaction, so undoing the decision restores every row.

A new policy gets a fresh FSRS card where the era keeps cards in ``fsrs_state`` (as
Spikuit's ``add_neuron`` does), so it can be retrieved, graded and fade like any
lesson.  :func:`stale_reason` says why an item can no longer be accepted.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Callable
from datetime import datetime
from typing import Any

from sqlalchemy import Connection

from brainview.core import fsrs_math
from brainview.core.kinds_agent import POLICY_TYPE
from brainview.core.params import BIDIRECTIONAL
from brainview.errors import ConflictError
from brainview.services.apply import snapshots as snap
from brainview.services.apply.kinds_neuron import retire
from brainview.services.apply.kinds_synapse import (
    new_synapse,
    put_synapse,
    retire_synapse_row,
    reweight,
)
from brainview.services.apply.plan import ChangesetInfo, Plan
from brainview.services.apply.view import Builder, Ctx, UserView
from brainview.services.consolidate.gather_spikes import last_spikes
from brainview.store.bv_schema_communities import standing_fading
from brainview.store.effects import EffectLog
from brainview.store.era import Era
from brainview.store.rows import Row, driver, fetch_rows_raw
from brainview.store.writers import fresh_card

LAST_REVIEW_SLACK_S = 0.001


def _neuron(raw: sqlite3.Connection, nid: str) -> Row | None:
    return fetch_rows_raw(raw, "neuron", [(nid,)]).get((nid,))


def _gone(row: Row | None, nid: str, what: str = "reflection") -> str | None:
    if row is None:
        return f"{what} {nid} no longer exists"
    if row.get("retired_at") is not None:
        return f"{what} {nid} was retired since the plan"
    return None


def prune_stale_many(
    conn: Connection, era: Era, items: list[tuple[str, dict[str, Any]]]
) -> dict[str, str]:
    """Proposal id → why its prune no longer fits, for many prune items at once (a
    handful of batch reads, not a few queries per item)."""
    from brainview.services.communities.curves import reflection_cards  # numpy: only when pruning

    raw = driver(conn)
    rids = list(dict.fromkeys(str(p["reflection"]) for _pid, p in items))
    rows = fetch_rows_raw(raw, "neuron", [(r,) for r in rids])
    fading = standing_fading(conn, rids)
    spikes = last_spikes(raw, rids)
    _stab, last = reflection_cards(conn, era, rids)
    reviewed = {r: float(v) for r, v in zip(rids, last, strict=True) if math.isfinite(v)}
    out: dict[str, str] = {}
    for pid, p in items:
        rid = str(p["reflection"])
        reason = _gone(rows.get((rid,)), rid)
        standing = fading.get(rid)
        basis = p.get("basis") or {}
        if reason is None and standing is not None and standing.action == "rescue":
            reason = f"reflection {rid} was rescued since the plan"
        if reason is None and "last_spike" in basis and spikes.get(rid) != basis["last_spike"]:
            reason = f"reflection {rid} fired since the plan"
        if reason is None and "last_review" in basis:
            then = basis["last_review"]
            then_s = None if then is None else fsrs_math.parse_ts(then).timestamp()
            now_s = reviewed.get(rid)
            if now_s is None or then_s is None:
                moved = now_s is not then_s
            else:
                moved = abs(now_s - then_s) > LAST_REVIEW_SLACK_S
            if moved:
                reason = f"reflection {rid} was graded since the plan"
        if reason:
            out[pid] = reason
    return out


def _prune_stale(conn: Connection, era: Era, p: dict[str, Any]) -> str | None:
    return prune_stale_many(conn, era, [("item", p)]).get("item")


def _decay_stale(conn: Connection, era: Era, p: dict[str, Any]) -> str | None:
    raw = driver(conn)
    keys = [(s["pre"], s["post"], s["type"]) for s in p["synapses"]]
    rows = fetch_rows_raw(raw, "synapse", keys)
    for s, key in zip(p["synapses"], keys, strict=True):
        row = rows.get(key)
        arrow = f"{key[0]} -{key[2]}→ {key[1]}"
        if row is None or row.get("retired_at") is not None:
            return f"synapse {arrow} is gone since the plan"
        if abs(float(row["weight"] or 0.0) - float(s["weight"])) > 1e-9:
            return f"synapse {arrow} changed weight since the plan"
    spikes = (p.get("basis") or {}).get("spikes")
    if isinstance(spikes, dict) and spikes:
        now = last_spikes(raw, sorted(spikes))
        for rid, then in sorted(spikes.items()):
            if now.get(rid) != then:
                return f"reflection {rid} fired since the plan (no longer stale)"
    return None


def _summarize_stale(conn: Connection, era: Era, p: dict[str, Any]) -> str | None:
    raw = driver(conn)
    if _neuron(raw, p["policy"]) is not None:
        return f"policy {p['policy']} already exists"
    rows = fetch_rows_raw(raw, "neuron", [(m,) for m in p["members"]])
    for m in p["members"]:
        gone = _gone(rows.get((m,)), m)
        if gone:
            return gone
    return None


def _retire_stale(conn: Connection, era: Era, p: dict[str, Any]) -> str | None:
    return _gone(_neuron(driver(conn), p["policy"]), p["policy"], "policy")


STALE: dict[str, Callable[[Connection, Era, dict[str, Any]], str | None]] = {
    "prune_reflection": _prune_stale,
    "decay_synapses": _decay_stale,
    "summarize_community": _summarize_stale,
    "retire_policy": _retire_stale,
}


def stale_reason(conn: Connection, era: Era, kind: str, params: dict[str, Any]) -> str | None:
    """Why this agent-brain item no longer fits the brain (``None``: it still does)."""
    return STALE[kind](conn, era, params)


# -- planners (Builder over the agent brain) ----------------------------------------------


def _plan_prune(b: Builder, p: dict[str, Any]) -> None:
    retire(b, p["reflection"])


def _plan_decay(b: Builder, p: dict[str, Any]) -> None:
    retired: set[tuple[str, str, str]] = set()
    for s in p["synapses"]:
        key = (s["pre"], s["post"], s["type"])
        row = b.view.live_synapse(*key)
        if row is None:
            if key in retired:
                continue  # its pair partner already took it along
            raise ConflictError(f"synapse {s['pre']} -{s['type']}→ {s['post']} is gone")
        if s["to"] is None:
            retire_synapse_row(b, row)
            retired.add(key)
            if s["type"] in BIDIRECTIONAL:  # Spikuit's remove_synapse retires both rows
                reverse = b.view.live_synapse(s["post"], s["pre"], s["type"])
                if reverse is not None:
                    retire_synapse_row(b, reverse)
                retired.add((s["post"], s["pre"], s["type"]))
            continue
        reweight(b, row, float(s["to"]))


def _plan_summarize(b: Builder, p: dict[str, Any]) -> None:
    era, at = b.view.era, b.ctx.at
    members = [b.view.live_neuron(m) for m in p["members"]]
    skills = sorted({str(m.get("domain") or "") for m in members})
    domain = p.get("domain") or (skills[0] if len(skills) == 1 else "policy")
    row: Row = {
        "id": p["policy"],
        "content": p["text"],
        "type": POLICY_TYPE,
        "domain": domain,
        "source": "brainview consolidate",
        "created_at": at,
        "updated_at": at,
        "retired_at": None,
    }
    row = {c: v for c, v in row.items() if c in era.neuron_cols}
    b.put("neuron", row)
    b.emit(snap.OP_NEURON_ADD, "neuron", p["policy"], None, snap.neuron_snapshot(row))
    if era.card_source == "fsrs_state":
        card = fresh_card(p["policy"], b.ctx.now).to_json()
        b.put("fsrs_state", {"neuron_id": p["policy"], "card_json": card})
    weight = float(p.get("weight", 0.5))
    for m in p["members"]:
        put_synapse(b, new_synapse(b, p["policy"], m, "summarizes", weight))
    previous = p.get("previous_policy")
    old = b.view.neuron(previous) if previous else None
    if old is not None and old.get("retired_at") is None:
        retire(b, str(previous))


def _plan_retire_policy(b: Builder, p: dict[str, Any]) -> None:
    retire(b, p["policy"])


PLANNERS: dict[str, Callable[[Builder, dict[str, Any]], None]] = {
    "prune_reflection": _plan_prune,
    "decay_synapses": _plan_decay,
    "summarize_community": _plan_summarize,
    "retire_policy": _plan_retire_policy,
}


def plan_change(
    raw: sqlite3.Connection, era: Era, kind: str, params: dict[str, Any], cs: ChangesetInfo
) -> Plan:
    """The rows and events of one item against the agent brain as it is now."""
    view = UserView(raw, era)
    b = Builder(view, Ctx(fsrs_math.parse_ts(cs.at), cs))
    PLANNERS[kind](b, params)
    return b.plan(kind, params)


def write_plan(log: EffectLog, era: Era, plan: Plan) -> None:
    """Write a plan's rows (and its change log, where the era has one) through ``log``."""
    for change in plan.changes:
        if change.before is None:
            assert change.after is not None
            log.insert(change.table, [change.after])
        elif change.after is not None:
            delta = {k: v for k, v in change.after.items() if change.before.get(k) != v}
            log.update(change.table, [(change.before, delta)])
    if era.has_changelog and plan.events:
        changeset, events = plan.log_rows()
        log.insert("changeset", [changeset])
        log.insert("event", events)


def apply_item(
    log: EffectLog, era: Era, kind: str, params: dict[str, Any], cs: ChangesetInfo
) -> Plan:
    """Check staleness, plan and write one item (inside the caller's transaction)."""
    reason = stale_reason(log.conn, era, kind, params)
    if reason:
        raise ConflictError(reason)
    plan = plan_change(log.raw, era, kind, params, cs)
    write_plan(log, era, plan)
    return plan


def changeset(tag: str, actor: str, now: datetime) -> ChangesetInfo:
    """A changeset for an agent-brain change (``actor_kind`` human)."""
    from brainview.services.apply.planner import new_changeset_id

    return ChangesetInfo(new_changeset_id(), tag, actor, fsrs_math.format_ts(now))
