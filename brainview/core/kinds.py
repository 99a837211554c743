"""Proposal kinds: each knows its params schema, the user neurons and domains it
names, and a one-line summary.  Checks against a brain live in the services.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

SYNAPSE_TYPES = ("requires", "extends", "contrasts", "relates_to", "summarizes")
BIDIRECTIONAL = ("contrasts", "relates_to")
MAX_NEURONS_PER_PROPOSAL = 1_000
MAX_TEXT = 200_000


class ParamError(ValueError):
    """A params problem: ``field`` names the offending key path."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason


def _str(params: dict[str, Any], key: str, *, max_len: int = 256) -> str:
    value = params.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ParamError(f"params.{key}", "required non-empty string")
    if len(value) > max_len:
        raise ParamError(f"params.{key}", f"longer than {max_len} characters")
    return value


def _ids(params: dict[str, Any], key: str) -> list[str]:
    value = params.get(key)
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value:
        raise ParamError(f"params.{key}", "required non-empty list of neuron ids")
    if len(value) > MAX_NEURONS_PER_PROPOSAL:
        raise ParamError(
            f"params.{key}", f"names {len(value)} neurons (limit {MAX_NEURONS_PER_PROPOSAL})"
        )
    for i, item in enumerate(value):
        if not isinstance(item, str) or not item or len(item) > 256:
            raise ParamError(f"params.{key}[{i}]", "neuron id must be a non-empty string")
    if len(set(value)) != len(value):
        raise ParamError(f"params.{key}", "repeats a neuron id")
    return list(value)


def _weight(params: dict[str, Any], key: str, default: float | None = None) -> float:
    value = params.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ParamError(f"params.{key}", "required number in [0.05, 1.0]")
    if not 0.05 <= float(value) <= 1.0:
        raise ParamError(f"params.{key}", f"{value} outside [0.05, 1.0]")
    return float(value)


def _syn_type(params: dict[str, Any]) -> str:
    value = params.get("type")
    if value not in SYNAPSE_TYPES:
        raise ParamError("params.type", f"must be one of {', '.join(SYNAPSE_TYPES)}")
    return str(value)


@dataclass(frozen=True)
class Refs:
    """What a proposal names in the user brain."""

    neurons: tuple[str, ...] = ()
    synapse: tuple[str, str, str] | None = None
    domains: tuple[str, ...] = ()


def _merge(p: dict[str, Any]) -> tuple[Refs, str]:
    keep = _str(p, "keep")
    merge = _ids(p, "merge")
    if keep in merge:
        raise ParamError("params.merge", "contains the surviving neuron")
    mode = p.get("content", "append")
    if mode not in ("append", "keep"):
        raise ParamError("params.content", "must be 'append' or 'keep'")
    return Refs(neurons=(keep, *merge)), f"merge {len(merge)} into {keep}"


def _retire(p: dict[str, Any]) -> tuple[Refs, str]:
    nid = _str(p, "neuron")
    return Refs(neurons=(nid,)), f"retire {nid}"


def _edge(p: dict[str, Any]) -> tuple[str, str, str]:
    pre, post, typ = _str(p, "pre"), _str(p, "post"), _syn_type(p)
    if pre == post:
        raise ParamError("params.post", "a synapse needs two different neurons")
    return pre, post, typ


def _add_syn(p: dict[str, Any]) -> tuple[Refs, str]:
    pre, post, typ = _edge(p)
    w = _weight(p, "weight", 0.5)
    return Refs((pre, post), (pre, post, typ)), f"link {pre} -{typ}→ {post} ({w:.2f})"


def _remove_syn(p: dict[str, Any]) -> tuple[Refs, str]:
    pre, post, typ = _edge(p)
    return Refs((pre, post), (pre, post, typ)), f"unlink {pre} -{typ}→ {post}"


def _set_weight(p: dict[str, Any]) -> tuple[Refs, str]:
    pre, post, typ = _edge(p)
    w = _weight(p, "weight")
    return Refs((pre, post), (pre, post, typ)), f"reweight {pre} -{typ}→ {post} to {w:.2f}"


def _set_domain(p: dict[str, Any]) -> tuple[Refs, str]:
    ids = _ids(p, "neurons")
    dom = _str(p, "domain", max_len=128)
    return Refs(neurons=tuple(ids)), f"move {len(ids)} neuron(s) to {dom}"


def _rename_domain(p: dict[str, Any]) -> tuple[Refs, str]:
    old, new = _str(p, "old", max_len=128), _str(p, "new", max_len=128)
    if old == new:
        raise ParamError("params.new", "same as params.old")
    return Refs(domains=(old,)), f"rename domain {old} → {new}"


def _merge_domains(p: dict[str, Any]) -> tuple[Refs, str]:
    sources = _ids(p, "sources")
    target = _str(p, "target", max_len=128)
    if target in sources:
        raise ParamError("params.sources", "contains the target domain")
    return Refs(domains=tuple(sources)), f"merge domains {', '.join(sources)} → {target}"


def _edit(p: dict[str, Any]) -> tuple[Refs, str]:
    nid = _str(p, "neuron")
    content = p.get("content")
    if not isinstance(content, str) or not content.strip():
        raise ParamError("params.content", "required non-empty string")
    if len(content) > MAX_TEXT:
        raise ParamError("params.content", f"longer than {MAX_TEXT} characters")
    return Refs(neurons=(nid,)), f"edit content of {nid}"


def _note(p: dict[str, Any]) -> tuple[Refs, str]:
    neurons = _ids(p, "neurons") if "neurons" in p else []
    return Refs(neurons=tuple(neurons)), "note (nothing to apply)"


KINDS: dict[str, Callable[[dict[str, Any]], tuple[Refs, str]]] = {
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


def check_params(kind: str, params: object) -> tuple[Refs, str]:
    """Validate a kind's params; return what it names and a summary line."""
    if kind not in KINDS:
        raise ParamError("kind", f"unknown kind {kind!r}; one of {', '.join(KINDS)}")
    if not isinstance(params, dict):
        raise ParamError("params", "must be an object")
    return KINDS[kind](params)
