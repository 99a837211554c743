"""Spikuit-shaped change-log values: event ops, target ids and JSON snapshots.

Spikuit 0.7.1 writes ``event.before_json``/``after_json`` as ``msgspec.json`` of its
structs: a Neuron is ``{"id","content","type","domain","source","created_at",
"updated_at"}`` and a Synapse ``{"pre","post","type","weight","co_fires",
"last_co_fire","confidence","confidence_score","created_at","updated_at"}`` —
compact, UTF-8 (not ASCII-escaped), datetimes as ISO 8601 with ``Z`` for UTC.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from json.encoder import encode_basestring
from typing import Any

from brainview.store.rows import Row

OP_NEURON_ADD = "neuron.add"
OP_NEURON_UPDATE = "neuron.update"
OP_NEURON_RETIRE = "neuron.retire"
OP_NEURON_MERGE = "neuron.merge"
OP_SYNAPSE_ADD = "synapse.add"
OP_SYNAPSE_UPDATE = "synapse.update"
OP_SYNAPSE_RETIRE = "synapse.retire"
OP_NEURON_DELETE = "neuron.delete"
OP_SYNAPSE_DELETE = "synapse.delete"
"""brainview's own ops, logged only when an undo physically removes a row its decision
inserted (the exact inverse of an add).  Spikuit 0.7.1 has no op for a removed row
(``spkt history prune`` deletes without an event); it stores ``event.op`` as text and
never reads it back, so the log says what happened instead of a ``*.retire`` that did
not.  ``before_json`` is the removed row's snapshot, ``after_json`` null."""

NEURON_FIELDS = ("id", "content", "type", "domain", "source", "created_at", "updated_at")
SYNAPSE_FIELDS = (
    "pre",
    "post",
    "type",
    "weight",
    "co_fires",
    "last_co_fire",
    "confidence",
    "confidence_score",
    "created_at",
    "updated_at",
)
_TIMES = {"created_at", "updated_at", "last_co_fire"}
_DEFAULTS: dict[str, Any] = {"confidence": "extracted", "confidence_score": 1.0, "co_fires": 0}


def to_json(value: Any) -> str:
    """Compact UTF-8 JSON, as ``msgspec.json.encode(...).decode()`` writes it."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


_UTC_CANONICAL = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.(?!000000)[0-9]{6})?"
    r"(?:\+00:00|Z)"
)
"""A UTC timestamp spelled the way ``isoformat`` would spell it (bar the separator
and the ``Z``): its event form is itself with ``T`` and ``Z``, no datetime printed."""


def event_time(text: Any) -> Any:
    """A stored timestamp the way msgspec encodes the parsed datetime."""
    if not isinstance(text, str):
        return text
    try:
        dt = datetime.fromisoformat(text)
    except ValueError:
        return text
    if _UTC_CANONICAL.fullmatch(text):  # the common case, ~10x cheaper, same result
        body = text[:-1] if text[-1] == "Z" else text[:-6]
        return f"{body[:10]}T{body[11:]}Z"
    offset = dt.utcoffset()
    if offset is not None and offset.total_seconds() == 0:
        return dt.replace(tzinfo=None).isoformat() + "Z"
    return dt.isoformat()


def _snapshot(row: Row, fields: tuple[str, ...]) -> str:
    out: dict[str, Any] = {}
    for name in fields:
        value = row.get(name, _DEFAULTS.get(name))
        if name in _TIMES:
            value = event_time(value)
        elif name in ("weight", "confidence_score") and isinstance(value, int):
            value = float(value)
        out[name] = value
    return to_json(out)


def neuron_snapshot(row: Row) -> str:
    """``before_json``/``after_json`` of a neuron event."""
    return _snapshot(row, NEURON_FIELDS)


_NEURON_KEYS = [("{" if i == 0 else ",") + to_json(f) + ":" for i, f in enumerate(NEURON_FIELDS)]
_AT_DOMAIN = NEURON_FIELDS.index("domain")
_NEURON_TIMES = [i for i, name in enumerate(NEURON_FIELDS) if name in _TIMES]
_TEXT_TYPES = frozenset({str, type(None)})


def neuron_snapshot_pair(row: Row, domain: Any) -> tuple[str, str]:
    """``neuron_snapshot(row)`` and ``neuron_snapshot({**row, "domain": domain})``."""
    return neuron_snapshot_pair_values([row.get(name) for name in NEURON_FIELDS], domain)


def neuron_snapshot_pair_values(values: list[Any], domain: Any) -> tuple[str, str]:
    """The same two strings from a neuron's :data:`NEURON_FIELDS` values (a list, used
    up), the shared parts built once: a domain move logs one pair per row, and for
    200,000 rows the general encoder was most of the cost."""
    if not _TEXT_TYPES.issuperset(map(type, values)) or type(domain) not in _TEXT_TYPES:
        # numbers or bytes in a text column: the general encoder (same strings)
        row = dict(zip(NEURON_FIELDS, values, strict=True))
        return neuron_snapshot(row), neuron_snapshot({**row, "domain": domain})
    for i in _NEURON_TIMES:
        values[i] = event_time(values[i])
    parts = [
        key + ("null" if v is None else encode_basestring(v))
        for key, v in zip(_NEURON_KEYS, values, strict=True)
    ]
    head, tail = "".join(parts[:_AT_DOMAIN]), "".join(parts[_AT_DOMAIN + 1 :]) + "}"
    moved = _NEURON_KEYS[_AT_DOMAIN] + ("null" if domain is None else encode_basestring(domain))
    return head + parts[_AT_DOMAIN] + tail, head + moved + tail


def synapse_snapshot(row: Row) -> str:
    """``before_json``/``after_json`` of a synapse event."""
    return _snapshot(row, SYNAPSE_FIELDS)


def synapse_target(row: Row) -> str:
    """A synapse event's ``target_id``: ``"pre|post|type"``."""
    return f"{row['pre']}|{row['post']}|{row['type']}"


def merge_payload(into: str, sources: list[str]) -> str:
    """``after_json`` of the ``neuron.merge`` event."""
    return to_json({"into": into, "sources": list(sources)})
