"""Agent-brain kinds: what a consolidation of the agent brain proposes.

Unlike the user-brain kinds, these change the *agent* brain when accepted, inside the
decision's own transaction (so undo is exact):

* ``prune_reflection`` — SWS: soft-retire a reflection that faded below the pruning
  threshold and was not rescued;
* ``decay_synapses`` — SHY: multiply weak synapses between stale reflections by the
  decay factor; a weight that would fall below the floor retires the synapse (what
  Spikuit's ``consolidate`` does with ``prunable`` synapses);
* ``summarize_community`` — REM: a new ``policy`` neuron with ``summarizes`` synapses
  to the community's members;
* ``retire_policy`` — soft-retire a policy (and its ``summarizes`` synapses) whose
  community no longer holds it up, or that a new policy supersedes.

Every kind may carry ``plan`` (the consolidation's ``id`` and ``fingerprint``) and
``basis`` (what the item was planned from); a proposal whose basis no longer holds is
stale and cannot be accepted.
"""

from __future__ import annotations

import math
from typing import Any

from brainview.core.params import (
    BIDIRECTIONAL,
    MAX_NEURONS_PER_PROPOSAL,
    MAX_TEXT,
    SYNAPSE_TYPES,
    ParamError,
    Refs,
    id_list,
    text_field,
    weight_field,
)
from brainview.core.safe_text import TAB, clean

DECAY_FACTOR = 0.8
"""Spikuit 0.7's ``consolidate`` default (SHY)."""
WEIGHT_FLOOR = 0.05
"""Spikuit 0.7's ``Plasticity.weight_floor``: below it a decayed synapse is removed."""
POLICY_TYPE = "policy"
MAX_POLICY_TEXT = 20_000


def decayed(
    weight: float, factor: float = DECAY_FACTOR, floor: float = WEIGHT_FLOOR
) -> float | None:
    """SHY as Spikuit's ``consolidate`` does it: the exact product is compared with the
    floor (below it: ``None``, the synapse is retired), the new weight is rounded to 4
    decimals."""
    new = weight * factor
    return None if new < floor else round(new, 4)


def inert(text: str) -> bool:
    """Whether ``text`` is plain (lines and tabs allowed): what a policy may say, since
    it is stored and later edited and shown as is."""
    plain = text.replace("\r\n", "\n").replace("\t", TAB)
    return clean(plain) == plain


def _number(p: dict[str, Any], key: str, lo: float, hi: float, default: float) -> float:
    value = p.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ParamError(f"params.{key}", f"must be a number in [{lo}, {hi}]")
    if not lo <= float(value) <= hi:
        raise ParamError(f"params.{key}", f"{value} outside [{lo}, {hi}]")
    return float(value)


def _plan_and_basis(p: dict[str, Any]) -> None:
    plan = p.get("plan")
    if plan is not None and (
        not isinstance(plan, dict)
        or not isinstance(plan.get("id"), str)
        or not isinstance(plan.get("fingerprint"), str)
    ):
        raise ParamError("params.plan", "must be an object with string id and fingerprint")
    basis = p.get("basis")
    if basis is not None and not isinstance(basis, dict):
        raise ParamError("params.basis", "must be an object")


def _prune(p: dict[str, Any]) -> tuple[Refs, str]:
    rid = text_field(p, "reflection")
    _plan_and_basis(p)
    r = p.get("retrievability")
    note = f" (R {r:.2f})" if isinstance(r, int | float) and not isinstance(r, bool) else ""
    return Refs(reflections=(rid,)), f"prune reflection {rid}{note}"


def _synapse_item(item: object, i: int) -> tuple[str, str, float]:
    where = f"params.synapses[{i}]"
    if not isinstance(item, dict):
        raise ParamError(where, "must be an object with pre, post, type, weight, to")
    pre, post = text_field(item, "pre"), text_field(item, "post")
    if pre == post:
        raise ParamError(f"{where}.post", "a synapse needs two different neurons")
    if item.get("type") not in SYNAPSE_TYPES:
        raise ParamError(f"{where}.type", f"must be one of {', '.join(SYNAPSE_TYPES)}")
    try:
        weight = weight_field(item, "weight")
    except ParamError as err:
        raise ParamError(f"{where}.weight", err.reason) from None
    if "to" not in item:
        raise ParamError(f"{where}.to", "required: the weight after decay, or null")
    return pre, post, weight


def _decay(p: dict[str, Any]) -> tuple[Refs, str]:
    factor = _number(p, "factor", 0.01, 0.99, DECAY_FACTOR)
    floor = _number(p, "floor", 0.0, 0.5, WEIGHT_FLOOR)
    items = p.get("synapses")
    if not isinstance(items, list) or not items:
        raise ParamError("params.synapses", "required non-empty list of synapses")
    if len(items) > MAX_NEURONS_PER_PROPOSAL:
        raise ParamError("params.synapses", f"more than {MAX_NEURONS_PER_PROPOSAL} synapses")
    ends: dict[str, None] = {}
    weights: dict[tuple[str, str, str], float] = {}
    for i, item in enumerate(items):
        pre, post, weight = _synapse_item(item, i)
        key = (pre, post, str(item["type"]))
        if key in weights:
            raise ParamError(f"params.synapses[{i}]", "repeats a synapse")
        weights[key] = weight
        ends[pre] = ends[post] = None
    for i, item in enumerate(items):
        pre, post, typ = item["pre"], item["post"], str(item["type"])
        expected = decayed(weights[(pre, post, typ)], factor, floor)
        reverse = weights.get((post, pre, typ))
        # A bidirectional pair is retired whole when either row falls below the floor.
        pair_gone = typ in BIDIRECTIONAL and reverse is not None
        pair_gone = pair_gone and decayed(reverse, factor, floor) is None  # type: ignore[arg-type]
        if item["to"] != expected and not (item["to"] is None and pair_gone):
            raise ParamError(
                f"params.synapses[{i}].to", f"must be {expected} (weight × factor, or null)"
            )
    _plan_and_basis(p)
    removed = sum(1 for it in items if it["to"] is None)
    tail = f", {removed} below the floor retired" if removed else ""
    return Refs(reflections=tuple(ends)), f"decay {len(items)} synapse(s) × {factor:g}{tail}"


def _summarize(p: dict[str, Any]) -> tuple[Refs, str]:
    policy = text_field(p, "policy")
    members = id_list(p, "members")
    if policy in members:
        raise ParamError("params.members", "contains the new policy")
    body = p.get("text")
    if not isinstance(body, str) or not body.strip():
        raise ParamError("params.text", "required non-empty string")
    if len(body) > min(MAX_TEXT, MAX_POLICY_TEXT):
        raise ParamError("params.text", f"longer than {MAX_POLICY_TEXT} characters")
    if not inert(body):
        raise ParamError("params.text", "contains control, bidi or invisible characters")
    weight_field(p, "weight", 0.5)
    previous = p.get("previous_policy")
    if previous is not None and (not isinstance(previous, str) or not previous):
        raise ParamError("params.previous_policy", "must be a policy id or null")
    if p.get("domain") is not None:
        text_field(p, "domain", max_len=128)
    community = p.get("community")
    if community is not None and (isinstance(community, bool) or not isinstance(community, int)):
        raise ParamError("params.community", "must be an integer or null")
    _plan_and_basis(p)
    refs = (*members, previous) if previous else tuple(members)
    return Refs(reflections=refs), f"policy {policy} over {len(members)} reflection(s)"


def _retire_policy(p: dict[str, Any]) -> tuple[Refs, str]:
    policy = text_field(p, "policy")
    _plan_and_basis(p)
    return Refs(reflections=(policy,)), f"retire policy {policy}"


AGENT_KINDS = {
    "prune_reflection": _prune,
    "decay_synapses": _decay,
    "summarize_community": _summarize,
    "retire_policy": _retire_policy,
}
"""Kinds whose accepted change lands in the agent brain, in the decision's transaction."""
