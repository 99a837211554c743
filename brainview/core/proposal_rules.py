"""Bounds on what one proposal may carry, and the walk that checks every value of its
params before a kind looks at them (so a new kind cannot skip it).

Every string under ``params`` is checked (:mod:`brainview.core.text_rules`): object keys
and the strings under a kind's known params are **names**, except the kind's free-text
fields (:data:`FREE_TEXT_PARAMS`); strings under unknown params (kept, never used) are
**free text**.  Numbers must be finite, integers within ±(2**53 − 1) (what every JSON
reader holds exactly).  Limits are documented in ``docs/proposal-format.md`` (Limits).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from brainview.core.params import MAX_TEXT, ParamError
from brainview.core.text_rules import all_names, all_texts, name_problem, text_problem

MAX_ID = 128
"""A proposal id, a runtime; also decider and actor names."""
MAX_SKILL = 64
MAX_REFLECTION_ID = 256
"""A consulted or retrieved reflection id (as a neuron id in params)."""
MAX_RATIONALE = 100_000
MAX_NOTE = 2_000
"""A consulted reflection's note (characters)."""
MAX_CONSULTED = 500
"""Consulted reflections per proposal; the same for retrieved ones."""
MAX_PARAMS_BYTES = 1_048_576
"""``params`` serialized as stored (compact UTF-8 JSON)."""
MAX_PARAMS_ENTRIES = 20_000
"""Object keys plus array items in ``params``, nested ones included."""
MAX_PARAMS_DEPTH = 16
"""``params`` itself is level 1."""
MAX_PROPOSAL_BYTES = 2_097_152
"""One proposal serialized (compact UTF-8 JSON)."""
MAX_BATCH = 10_000
MAX_BATCH_BYTES = 50 * 1_048_576
"""A batch serialized: the same 50 MB as ``brainview propose``'s input limit."""
MAX_INT = 2**53 - 1
MAX_TIMESTAMP = 64
"""``created_at`` (characters, before it is parsed)."""

PARAM_KEYS: dict[str, frozenset[str]] = {
    "merge_neurons": frozenset({"keep", "merge", "content"}),
    "retire_neuron": frozenset({"neuron"}),
    "add_synapse": frozenset({"pre", "post", "type", "weight"}),
    "remove_synapse": frozenset({"pre", "post", "type"}),
    "set_synapse_weight": frozenset({"pre", "post", "type", "weight"}),
    "set_domain": frozenset({"neurons", "domain"}),
    "rename_domain": frozenset({"old", "new"}),
    "merge_domains": frozenset({"sources", "target"}),
    "edit_content": frozenset({"neuron", "content"}),
    "note": frozenset({"neurons"}),
    "prune_reflection": frozenset({"reflection", "retrievability", "plan", "basis"}),
    "decay_synapses": frozenset({"synapses", "factor", "floor", "plan", "basis"}),
    "summarize_community": frozenset(
        {"policy", "members", "text", "weight", "previous_policy", "community", "domain"}
        | {"draft", "plan", "basis"}
    ),
    "retire_policy": frozenset({"policy", "plan", "basis"}),
    "learning_tier": frozenset(
        {"entry", "action", "source", "target", "line", "tier_from", "tier_to", "reason"}
        | {"block"}
    ),
}
"""Each kind's params, as the JSON Schema lists them (a test keeps the two in step)."""
FREE_TEXT_PARAMS: dict[str, frozenset[str]] = {
    "edit_content": frozenset({"content"}),
    "summarize_community": frozenset({"text", "draft"}),
    "learning_tier": frozenset({"reason"}),
}
"""Known params that hold free text (lines and tabs allowed); the rest are names."""

_PLAIN_KEY = re.compile(r"[A-Za-z0-9_\-]{1,64}\Z")


def segment(key: str) -> str:
    """A key as a path segment safe to print: ``.key``, or ``["…"]`` ASCII-escaped."""
    if _PLAIN_KEY.match(key):
        return f".{key}"
    shown = json.dumps(key[:40] + ("…" if len(key) > 40 else ""), ensure_ascii=True)
    return f"[{shown}]"


class _Walk:
    def __init__(self) -> None:
        self.entries = 0

    def count(self, n: int, field: str) -> None:
        self.entries += n
        if self.entries > MAX_PARAMS_ENTRIES:
            raise ParamError(field, f"more than {MAX_PARAMS_ENTRIES} keys and items in all")

    def value(self, v: Any, field: str, depth: int, free: bool) -> None:
        if isinstance(v, str):
            if len(v) > MAX_TEXT:
                raise ParamError(field, f"longer than {MAX_TEXT} characters")
            why = text_problem(v) if free else name_problem(v)
            if why:
                raise ParamError(field, why)
        elif isinstance(v, bool) or v is None:
            return
        elif isinstance(v, int):
            if not -MAX_INT <= v <= MAX_INT:
                raise ParamError(field, f"integer outside ±{MAX_INT}")
        elif isinstance(v, float):
            if not math.isfinite(v):
                raise ParamError(field, "must be a finite number")
        elif isinstance(v, dict | list):
            if depth >= MAX_PARAMS_DEPTH:
                raise ParamError(field, f"nested deeper than {MAX_PARAMS_DEPTH} levels")
            self.count(len(v), field)
            if isinstance(v, list):
                for i, item in enumerate(v):
                    self.value(item, f"{field}[{i}]", depth + 1, free)
            else:
                for key, item in v.items():
                    where = self.key(key, field)
                    self.value(item, where, depth + 1, free)
        else:
            raise ParamError(field, "must be a JSON value")

    def key(self, key: object, field: str) -> str:
        if not isinstance(key, str):
            raise ParamError(field, "object keys must be strings")
        where = field + segment(key)
        if len(key) > MAX_REFLECTION_ID:
            raise ParamError(where, f"key longer than {MAX_REFLECTION_ID} characters")
        why = name_problem(key)
        if why:
            raise ParamError(where, f"key: {why}")
        return where


def _passes(kind: str, params: dict[str, Any]) -> bool:
    """Whether ``params`` pass every rule of :class:`_Walk` — checked without building a
    key path per value, and every string's characters in one search per kind of string.

    Stricter or equal, never looser: anything unusual (a subclass of a JSON type, any
    bound reached) answers ``False`` and the walk itself finds and names the problem."""
    known = PARAM_KEYS.get(kind, frozenset())
    free_keys = FREE_TEXT_PARAMS.get(kind, frozenset())
    names: list[str] = []
    texts: list[str] = []
    entries = len(params)
    todo: list[tuple[Any, int, bool]] = []
    for key, item in params.items():
        if type(key) is not str or len(key) > MAX_REFLECTION_ID:
            return False
        names.append(key)
        todo.append((item, 1, key in free_keys or key not in known))
    while todo:
        v, depth, free = todo.pop()
        t = type(v)
        if t is str:
            if len(v) > MAX_TEXT:
                return False
            (texts if free else names).append(v)
        elif t is int:
            if not -MAX_INT <= v <= MAX_INT:
                return False
        elif t is float:
            if not math.isfinite(v):
                return False
        elif t is list or t is dict:
            entries += len(v)
            if depth >= MAX_PARAMS_DEPTH or entries > MAX_PARAMS_ENTRIES:
                return False
            if t is list:
                todo.extend((item, depth + 1, free) for item in v)
                continue
            for key, item in v.items():
                if type(key) is not str or len(key) > MAX_REFLECTION_ID:
                    return False
                names.append(key)
                todo.append((item, depth + 1, free))
        elif not (v is None or t is bool):
            return False
    return entries <= MAX_PARAMS_ENTRIES and all_names(names) and all_texts(texts)


def walk_params(kind: str, params: dict[str, Any]) -> None:
    """Refuse (ParamError naming the key path) a value no kind may store: bad characters,
    non-finite or huge numbers, too deep, too many entries, non-JSON values."""
    if _passes(kind, params):
        return
    walk = _Walk()
    walk.count(len(params), "params")
    known = PARAM_KEYS.get(kind, frozenset())
    free = FREE_TEXT_PARAMS.get(kind, frozenset())
    for key, item in params.items():
        where = walk.key(key, "params")
        walk.value(item, where, 1, key in free or key not in known)


def json_bytes(value: Any) -> int:
    """Size of ``value`` as stored: compact UTF-8 JSON."""
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def check_params_size(params: dict[str, Any]) -> int:
    """Refuse params over :data:`MAX_PARAMS_BYTES` serialized; their size otherwise."""
    size = json_bytes(params)
    if size > MAX_PARAMS_BYTES:
        raise ParamError("params", f"{size} bytes, over the {MAX_PARAMS_BYTES}-byte limit")
    return size
