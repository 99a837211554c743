"""Shared params checks for proposal kinds: typed fields with a named key path."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from brainview.core.text_rules import FieldError, name_problem

SYNAPSE_TYPES = ("requires", "extends", "contrasts", "relates_to", "summarizes")
BIDIRECTIONAL = ("contrasts", "relates_to")
MAX_NEURONS_PER_PROPOSAL = 1_000
MAX_TEXT = 200_000


class ParamError(FieldError):
    """A params problem: ``field`` names the offending key path."""


def text_field(params: dict[str, Any], key: str, *, max_len: int = 256) -> str:
    value = params.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ParamError(f"params.{key}", "required non-empty string")
    if len(value) > max_len:
        raise ParamError(f"params.{key}", f"longer than {max_len} characters")
    why = name_problem(value)
    if why:
        raise ParamError(f"params.{key}", why)
    return value


def id_list(params: dict[str, Any], key: str) -> list[str]:
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
        why = name_problem(item)
        if why:
            raise ParamError(f"params.{key}[{i}]", why)
    if len(set(value)) != len(value):
        raise ParamError(f"params.{key}", "repeats a neuron id")
    return list(value)


def weight_field(params: dict[str, Any], key: str, default: float | None = None) -> float:
    value = params.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ParamError(f"params.{key}", "required number in [0.05, 1.0]")
    if not 0.05 <= float(value) <= 1.0:
        raise ParamError(f"params.{key}", f"{value} outside [0.05, 1.0]")
    return float(value)


def synapse_type(params: dict[str, Any]) -> str:
    value = params.get("type")
    if value not in SYNAPSE_TYPES:
        raise ParamError("params.type", f"must be one of {', '.join(SYNAPSE_TYPES)}")
    return str(value)


@dataclass(frozen=True)
class Refs:
    """What a proposal names: user neurons, a user synapse, domains, reflections."""

    neurons: tuple[str, ...] = ()
    synapse: tuple[str, str, str] | None = None
    domains: tuple[str, ...] = ()
    reflections: tuple[str, ...] = ()
    """Agent-brain neurons (reflections, policies) an agent-brain kind names."""
