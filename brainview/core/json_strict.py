"""Strict JSON out, whatever a brain holds.

Python's ``json`` writes ``NaN``/``Infinity`` by default, which strict parsers (and
JavaScript's ``JSON.parse``) refuse — one such value makes a whole listing unreadable.
Intake refuses non-finite numbers now, but a brain written by an older version, or by
hand, may still hold ``Infinity`` in ``params_json`` or a card, and SQLite stores
``1e999`` as an infinite REAL.  So:

* :func:`loads_stored` decodes stored JSON with every non-finite number as ``null``;
* :func:`finite` returns a value with every non-finite float replaced by ``None``
  (copying only the containers that change);
* :func:`dumps` writes strict JSON (``allow_nan=False``), cleaning first if needed;
* :func:`loads_input` reads untrusted JSON (a proposal file, a Spikuit plan, an outcome
  report, a ``--draft``, an MCP request line) refusing ``NaN``/``Infinity``, numbers
  that overflow to infinity (``1e400``), integers of more than :data:`MAX_INT_DIGITS`
  digits and an object that names a key twice (``{"kind": "note", "kind": "merge"}``:
  which one a reader keeps differs between parsers, so neither is believed), each with
  a one-line ``ValueError`` (``duplicate key "kind"``).
"""

from __future__ import annotations

import json
import math
from typing import Any

MAX_INT_DIGITS = 20
"""Longer integers are refused while parsing (intake bounds them to ±(2**53 − 1))."""


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _finite(literal: str) -> float:
    value = float(literal)
    if not math.isfinite(value):
        shown = literal if len(literal) <= 24 else literal[:20] + "…"
        raise ValueError(f"number {shown} is out of range (not finite)")
    return value


def _bounded_int(literal: str) -> int:
    digits = len(literal.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise ValueError(f"an integer of {digits} digits is out of range")
    return int(literal)


def shown_key(key: str, limit: int = 40) -> str:
    """A key as one printable, quoted line (JSON escapes; cut after ``limit`` characters)."""
    if len(key) > limit:
        return json.dumps(key[:limit]) + "…"
    return json.dumps(key)


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook`` for ``json.loads``: the object, or ``ValueError`` naming the
    first key it holds twice (for readers that need their own ``parse_*`` options)."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise ValueError(f"duplicate key {shown_key(key)} in one object")
            seen.add(key)
    return out


def loads_input(text: str | bytes) -> Any:
    """Untrusted JSON: ``json.loads`` refusing what is not strict JSON, not a finite,
    bounded number, or an object with a duplicate key (``ValueError`` with one line;
    ``JSONDecodeError`` for syntax)."""
    return json.loads(
        text,
        object_pairs_hook=unique_keys,
        parse_constant=_no_constants,
        parse_float=_finite,
        parse_int=_bounded_int,
    )


def _float_or_none(literal: str) -> float | None:
    value = float(literal)
    return value if math.isfinite(value) else None


def loads_stored(text: str) -> Any:
    """Stored JSON text, non-finite numbers (``NaN``, ``Infinity``, ``1e400``) as ``None``."""
    return json.loads(text, parse_constant=lambda _name: None, parse_float=_float_or_none)


def finite(value: Any) -> Any:
    """``value`` with every non-finite float (at any depth) replaced by ``None``."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        out = {k: finite(v) for k, v in value.items()}
        return value if all(out[k] is v for k, v in value.items()) else out
    if isinstance(value, list | tuple):
        items = [finite(v) for v in value]
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    return value


def dumps(value: Any, **kw: Any) -> str:
    """Strict JSON: ``allow_nan=False``; non-finite floats become ``null``."""
    try:
        return json.dumps(value, allow_nan=False, **kw)
    except ValueError:
        return json.dumps(finite(value), allow_nan=False, **kw)
