"""Spikuit-shaped change-log values: event ops, target ids and JSON snapshots.

Spikuit 0.7.1 writes ``event.before_json``/``after_json`` as ``msgspec.json`` of its
structs: a Neuron is ``{"id","content","type","domain","source","created_at",
"updated_at"}`` and a Synapse ``{"pre","post","type","weight","co_fires",
"last_co_fire","confidence","confidence_score","created_at","updated_at"}`` —
compact, UTF-8 (not ASCII-escaped), datetimes as ISO 8601 with ``Z`` for UTC.
"""

from __future__ import annotations

import json
from datetime import datetime
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


def event_time(text: Any) -> Any:
    """A stored timestamp the way msgspec encodes the parsed datetime."""
    if not isinstance(text, str):
        return text
    try:
        dt = datetime.fromisoformat(text)
    except ValueError:
        return text
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


def synapse_snapshot(row: Row) -> str:
    """``before_json``/``after_json`` of a synapse event."""
    return _snapshot(row, SYNAPSE_FIELDS)


def synapse_target(row: Row) -> str:
    """A synapse event's ``target_id``: ``"pre|post|type"``."""
    return f"{row['pre']}|{row['post']}|{row['type']}"


def merge_payload(into: str, sources: list[str]) -> str:
    """``after_json`` of the ``neuron.merge`` event."""
    return to_json({"into": into, "sources": list(sources)})
