"""Proposal kinds: each knows its params schema, what it names (user neurons and
domains, or agent-brain reflections) and a one-line summary.  Checks against a brain
live in the services; the agent-brain kinds are in :mod:`brainview.core.kinds_agent`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from brainview.core.kinds_agent import AGENT_KINDS
from brainview.core.learnings_kinds import LEARNING_KINDS
from brainview.core.outcomes import OUTCOME_KIND
from brainview.core.params import (
    MAX_TEXT,
    ParamError,
    Refs,
    id_list,
    synapse_type,
    text_field,
    weight_field,
)
from brainview.core.proposal_rules import walk_params


def _merge(p: dict[str, Any]) -> tuple[Refs, str]:
    keep = text_field(p, "keep")
    merge = id_list(p, "merge")
    if keep in merge:
        raise ParamError("params.merge", "contains the surviving neuron")
    mode = p.get("content", "append")
    if mode not in ("append", "keep"):
        raise ParamError("params.content", "must be 'append' or 'keep'")
    return Refs(neurons=(keep, *merge)), f"merge {len(merge)} into {keep}"


def _retire(p: dict[str, Any]) -> tuple[Refs, str]:
    nid = text_field(p, "neuron")
    return Refs(neurons=(nid,)), f"retire {nid}"


def _edge(p: dict[str, Any]) -> tuple[str, str, str]:
    pre, post, typ = text_field(p, "pre"), text_field(p, "post"), synapse_type(p)
    if pre == post:
        raise ParamError("params.post", "a synapse needs two different neurons")
    return pre, post, typ


def _add_syn(p: dict[str, Any]) -> tuple[Refs, str]:
    pre, post, typ = _edge(p)
    w = weight_field(p, "weight", 0.5)
    return Refs((pre, post), (pre, post, typ)), f"link {pre} -{typ}→ {post} ({w:.2f})"


def _remove_syn(p: dict[str, Any]) -> tuple[Refs, str]:
    pre, post, typ = _edge(p)
    return Refs((pre, post), (pre, post, typ)), f"unlink {pre} -{typ}→ {post}"


def _set_weight(p: dict[str, Any]) -> tuple[Refs, str]:
    pre, post, typ = _edge(p)
    w = weight_field(p, "weight")
    return Refs((pre, post), (pre, post, typ)), f"reweight {pre} -{typ}→ {post} to {w:.2f}"


def _set_domain(p: dict[str, Any]) -> tuple[Refs, str]:
    ids = id_list(p, "neurons")
    dom = text_field(p, "domain", max_len=128)
    return Refs(neurons=tuple(ids)), f"move {len(ids)} neuron(s) to {dom}"


def _rename_domain(p: dict[str, Any]) -> tuple[Refs, str]:
    old, new = text_field(p, "old", max_len=128), text_field(p, "new", max_len=128)
    if old == new:
        raise ParamError("params.new", "same as params.old")
    return Refs(domains=(old,)), f"rename domain {old} → {new}"


def _merge_domains(p: dict[str, Any]) -> tuple[Refs, str]:
    sources = id_list(p, "sources")
    target = text_field(p, "target", max_len=128)
    if target in sources:
        raise ParamError("params.sources", "contains the target domain")
    return Refs(domains=tuple(sources)), f"merge domains {', '.join(sources)} → {target}"


def _edit(p: dict[str, Any]) -> tuple[Refs, str]:
    nid = text_field(p, "neuron")
    content = p.get("content")
    if not isinstance(content, str) or not content.strip():
        raise ParamError("params.content", "required non-empty string")
    if len(content) > MAX_TEXT:
        raise ParamError("params.content", f"longer than {MAX_TEXT} characters")
    return Refs(neurons=(nid,)), f"edit content of {nid}"


def _note(p: dict[str, Any]) -> tuple[Refs, str]:
    neurons = id_list(p, "neurons") if "neurons" in p else []
    return Refs(neurons=tuple(neurons)), "note (nothing to apply)"


USER_KINDS: dict[str, Callable[[dict[str, Any]], tuple[Refs, str]]] = {
    "merge_neurons": _merge,
    "retire_neuron": _retire,
    "add_synapse": _add_syn,
    "remove_synapse": _remove_syn,
    "set_synapse_weight": _set_weight,
    "set_domain": _set_domain,
    "rename_domain": _rename_domain,
    "merge_domains": _merge_domains,
    "edit_content": _edit,
    "note": _note,
}
"""Kinds about the user brain (applied there on accept, unless record-only)."""

KINDS: dict[str, Callable[[dict[str, Any]], tuple[Refs, str]]] = {
    **USER_KINDS,
    **AGENT_KINDS,
    **LEARNING_KINDS,
}
"""Every kind: the user-brain kinds, the agent-brain (consolidation) kinds, then the
``.learnings`` tier move (:mod:`brainview.core.learnings_kinds`)."""


def is_agent_kind(kind: str) -> bool:
    """Whether accepting ``kind`` changes the agent brain (not the user brain)."""
    return kind in AGENT_KINDS


def is_learning_kind(kind: str) -> bool:
    """Whether accepting ``kind`` rewrites a ``.learnings/`` tree (and no user brain)."""
    return kind in LEARNING_KINDS


def check_params(kind: str, params: object) -> tuple[Refs, str]:
    """Validate a kind's params; return what it names and a summary line."""
    if kind == OUTCOME_KIND:  # recorded by services.outcome, decided at once, never queued
        raise ParamError(
            "kind", "'outcome' is not proposed: report it with `brainview outcome report`"
        )
    if kind not in KINDS:
        raise ParamError("kind", f"unknown kind {kind!r}; one of {', '.join(KINDS)}")
    if not isinstance(params, dict):
        raise ParamError("params", "must be an object")
    walk_params(kind, params)  # every value, whatever the kind: characters, numbers, sizes
    return KINDS[kind](params)
