"""Queue proposals handed over as a parsed JSON value (the MCP server's ``propose``).

The same intake as ``brainview propose`` (:func:`brainview.services.intake.submit`): shape
errors are found before any brain is opened, the batch is all or nothing, and a dry run
opens the agent brain read-only and writes nothing.  The receipt has the shape of
``brainview propose --json`` (docs/cli.md).

The CLI checks its input's bytes before parsing them (size, UTF-8, nesting depth,
``NaN``, lone surrogates: ``commands/propose.py``); a value that arrives already parsed
is held to the same limits here, with the same messages.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from datetime import datetime
from typing import TYPE_CHECKING, Any

from brainview.errors import InvalidInputError
from brainview.services import intake

if TYPE_CHECKING:
    from brainview.store.discovery import BrainPaths

MAX_INPUT_BYTES = 50 * 1024 * 1024
MAX_DEPTH = 32


def receipt(batch: list[intake.Proposal], *, dry_run: bool) -> dict[str, Any]:
    """``{"dry_run", "count", "proposals": [{id, kind, skill, summary, created_at,
    consulted, retrieved}]}`` — what ``brainview propose --json`` prints."""
    rows = [
        {
            "id": p.id,
            "kind": p.kind,
            "skill": p.skill,
            "summary": p.summary,
            "created_at": p.created_at,
            "consulted": len(p.consulted),
            "retrieved": len(p.retrieved),
        }
        for p in batch
    ]
    return {"dry_run": dry_run, "count": len(rows), "proposals": rows}


def _walk(value: Any, depth: int = 1) -> Iterator[tuple[Any, int]]:
    yield value, depth
    if isinstance(value, dict):
        for item in value.values():
            yield from _walk(item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item, depth + 1)


def check_value(value: Any) -> None:
    """The CLI's input limits for an already parsed JSON value (one line, exit 4)."""
    for item, depth in _walk(value):
        if depth > MAX_DEPTH and isinstance(item, dict | list):
            raise InvalidInputError(f"input: JSON nested deeper than {MAX_DEPTH} levels")
        if isinstance(item, float) and not math.isfinite(item):
            name = "NaN" if math.isnan(item) else ("-" if item < 0 else "") + "Infinity"
            raise InvalidInputError(f"input: {name} is not valid JSON")
    try:
        size = len(json.dumps(value, ensure_ascii=False).encode("utf-8"))
    except UnicodeEncodeError:
        raise InvalidInputError("input: a \\u escape names a lone surrogate (not text)") from None
    if size > MAX_INPUT_BYTES:
        limit_mb = MAX_INPUT_BYTES // (1024 * 1024)
        raise InvalidInputError(f"input: larger than the {limit_mb} MB limit")


def with_runtime(value: Any, runtime: str | None) -> Any:
    """``value`` with ``runtime`` filled in where a proposal object names none."""
    if runtime is None:
        return value
    items = value if isinstance(value, list) else [value]
    filled = [
        dict(p, runtime=runtime) if isinstance(p, dict) and p.get("runtime") is None else p
        for p in items
    ]
    return filled if isinstance(value, list) else filled[0]


def submit_value(
    paths: BrainPaths,
    value: Any,
    *,
    source: str,
    runtime: str | None = None,
    dry_run: bool = False,
    now: datetime,
    recall: str | None = None,
) -> dict[str, Any]:
    """Validate (and unless ``dry_run`` queue) a proposal object or a list of them.

    ``runtime`` is recorded for proposals that do not name their own; ``recall`` (a
    logged recall's id) fills every proposal's ``retrieved``.  Returns the
    :func:`receipt`; raises what the CLI raises (``InvalidInputError`` naming the
    field, ``NotFoundError`` without an agent brain, ``LockedError``, ...).
    """
    from brainview.services.session import curator_session

    check_value(value)
    value = with_runtime(value, runtime)
    with curator_session(paths, runtime=runtime or source, now=now) as session:
        batch = session.propose(value, source=source, dry_run=dry_run, recall=recall)
    return receipt(batch, dry_run=dry_run)
