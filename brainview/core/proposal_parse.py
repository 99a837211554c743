"""The shape of a curator proposal: every field checked, every string by the text rules
(:mod:`brainview.core.text_rules`), every bound of :mod:`brainview.core.proposal_rules`.

Pure: no brain is read here (the services check what the proposal names against the
brains).  A problem is a :class:`~brainview.core.text_rules.FieldError` whose field
names the proposal and the key path (``proposal[0].params.new``).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from brainview.core import fsrs_math
from brainview.core import proposal_fields as fields
from brainview.core.kinds import ParamError, Refs, check_params
from brainview.core.proposal_fields import Seen, fail, named
from brainview.core.proposal_rules import (
    MAX_BATCH,
    MAX_BATCH_BYTES,
    MAX_ID,
    MAX_PARAMS_BYTES,
    MAX_PROPOSAL_BYTES,
    MAX_RATIONALE,
    MAX_SKILL,
    MAX_TIMESTAMP,
    check_params_size,
    json_bytes,
    segment,
)
from brainview.core.text_rules import FieldError, check_text

ALLOWED_KEYS = frozenset(
    {"id", "skill", "kind", "params", "rationale", "consulted", "retrieved", "created_at"}
    | {"runtime", "recall"}
)
"""``recall`` (a logged recall's id) is turned into ``retrieved`` before parsing
(:mod:`brainview.services.recall.attach`); parsing accepts and ignores it."""
SUMMARY_MAX = 500
"""A summary longer than this (many domains merged, say) is cut with an ellipsis."""


@dataclass
class Proposal:
    """A validated proposal, ready to store."""

    id: str
    skill: str
    kind: str
    params: dict[str, Any]
    rationale: str
    consulted: list[tuple[str, str, str | None]]
    retrieved: list[str]
    created_at: str
    runtime: str | None
    summary: str
    refs: Refs = field(default_factory=Refs)
    suspicion: str | None = None
    """Flags set at intake (JSON list), ``None`` when nothing is suspect."""
    nbytes: int = 0
    """The proposal as given, serialized (compact UTF-8 JSON)."""


def parse_one(raw: object, index: int, now: datetime, seen: Seen | None = None) -> Proposal:
    """One proposal's shape, or FieldError naming the first problem."""
    if not isinstance(raw, dict):
        raise fail(index, "", "must be a JSON object")
    extra = [k for k in raw if k not in ALLOWED_KEYS]
    if extra:  # the key is shown escaped: it may hold anything
        raise fail(index, segment(str(min(extra, key=str))), "unknown field")
    pid = raw.get("id") or f"prop-{uuid.uuid4().hex[:12]}"
    pid = named(index, "id", pid, MAX_ID, f"must be printable text of at most {MAX_ID} characters")
    skill = named(
        index, "skill", raw.get("skill", "curator"), MAX_SKILL, "must be short printable text", seen
    )
    kind = raw.get("kind")
    if not isinstance(kind, str):
        raise fail(index, "kind", "required string")
    params = raw.get("params", {})
    try:
        refs, summary = check_params(kind, params)
        whole = _whole_size(raw)
        if whole is None or whole > MAX_PARAMS_BYTES:
            params_size: int | None = check_params_size(params)
        else:  # the params are part of a smaller whole: under their own limit
            params_size = None
    except ParamError as err:
        raise fail(index, err.field, err.reason) from None
    rationale = raw.get("rationale", "")
    try:
        check_text("rationale", rationale, max_len=MAX_RATIONALE)
    except FieldError as err:
        raise fail(index, "rationale", err.reason) from None
    seen = seen or Seen()
    consulted = fields.consulted(raw.get("consulted", []), index, seen)
    retrieved = fields.retrieved(raw.get("retrieved", []), index, seen)
    created_at = _created(raw.get("created_at"), index, now, seen)
    runtime = raw.get("runtime")
    if runtime is not None:
        hint = f"must be printable text of at most {MAX_ID} characters"
        runtime = named(index, "runtime", runtime, MAX_ID, hint, seen)
    if "recall" in raw:  # expanded into retrieved before parsing; still a name
        named(index, "recall", raw["recall"], MAX_ID, "must be a recall id like rc-…")
    size = (
        whole if whole is not None else _size(raw, index, params_size if "params" in raw else None)
    )
    if size > MAX_PROPOSAL_BYTES:
        raise fail(index, "", f"{size} bytes, over the {MAX_PROPOSAL_BYTES}-byte limit")
    consulted_ids = {c[0] for c in consulted}
    retrieved_only = [r for r in dict.fromkeys(retrieved) if r not in consulted_ids]
    if len(summary) > SUMMARY_MAX:
        summary = summary[: SUMMARY_MAX - 1] + "…"
    return Proposal(
        pid, skill, kind, dict(params), str(rationale), consulted, retrieved_only,
        created_at, runtime, summary, refs, nbytes=size,
    )  # fmt: skip


def _whole_size(raw: dict[str, Any]) -> int | None:
    """The proposal's compact JSON size, encoded once; ``None`` when something in it is
    not plain JSON (the fields are then checked in order, and :func:`_size` measures)."""
    try:
        return json_bytes(raw)
    except (TypeError, ValueError, RecursionError):
        return None


def _size(raw: dict[str, Any], index: int, params_size: int | None) -> int:
    """The proposal's compact JSON size; ``params_size`` (its params' size, already
    measured) saves serializing the params twice: they are sized as a one-byte ``0``."""
    try:
        if params_size is None:
            return json_bytes(raw)
        rest = {k: (0 if k == "params" else v) for k, v in raw.items()}
        return json_bytes(rest) - 1 + params_size
    except (TypeError, ValueError, RecursionError):
        raise fail(index, "", "must hold JSON values only") from None


def _created(created: object, index: int, now: datetime, seen: Seen) -> str:
    if created is None:
        return fsrs_math.format_ts(now)
    if type(created) is str and created in seen.created:
        return seen.created[created]
    out = _created_at(created, index, now)
    seen.created[str(created)] = out
    return out


def _created_at(created: object, index: int, now: datetime) -> str:
    when = None
    if isinstance(created, str) and len(created) <= MAX_TIMESTAMP:
        try:
            when = fsrs_math.parse_ts(created)
        except (ValueError, IndexError, OverflowError):
            when = None
    if when is None:
        raise fail(index, "created_at", "must be an ISO 8601 timestamp")
    if when > now + timedelta(days=1):
        raise fail(index, "created_at", "is in the future")
    return fsrs_math.format_ts(when)


def parse_many(raw: object, now: datetime) -> list[Proposal]:
    """A proposal, a list of them, or parsed JSON Lines: every shape check."""
    items = raw if isinstance(raw, list) else [raw]
    if not items:
        raise FieldError("", "no proposals given")
    if len(items) > MAX_BATCH:
        raise FieldError("", f"batch of {len(items)} proposals exceeds {MAX_BATCH}")
    parsed: list[Proposal] = []
    total = 0
    seen = Seen()
    for i, item in enumerate(items):
        parsed.append(parse_one(item, i, now, seen))
        total += parsed[-1].nbytes
        if total > MAX_BATCH_BYTES:
            raise FieldError("", f"batch larger than the {MAX_BATCH_BYTES}-byte limit")
    ids: dict[str, int] = {}
    for i, p in enumerate(parsed):
        if p.id in ids:
            raise fail(i, "id", f"duplicate of proposal[{ids[p.id]}]")
        ids[p.id] = i
    return parsed
