"""Planners for the synapse kinds, row for row as Spikuit 0.7.1's ``Circuit`` does it.

* ``add_synapse`` = ``Circuit.add_synapse``: one row, two for a bidirectional type
  (``contrasts``, ``relates_to``), ``co_fires`` 0, confidence ``extracted``/1.0 unless
  the params say otherwise (a consolidation plan's latent links are ``inferred`` with
  the similarity as score); one ``synapse.add`` event per row written.  Where Spikuit's
  ``INSERT OR IGNORE`` would silently leave an existing *retired* row retired (while
  logging ``synapse.add``), the row is revived, so rows and log agree.
* ``remove_synapse`` = ``Circuit.remove_synapse``: soft-retire (``retired_at``), both
  rows for a bidirectional type; ``synapse.retire`` (null → null) per row retired.
* ``set_synapse_weight`` = ``Circuit.set_synapse_weight``: that one row's ``weight``
  and ``updated_at`` (not the reverse row); ``synapse.update`` snapshot → snapshot.
"""

from __future__ import annotations

from typing import Any

from brainview.core.params import BIDIRECTIONAL
from brainview.errors import ConflictError
from brainview.services.apply import snapshots as snap
from brainview.services.apply.view import Builder
from brainview.store.rows import Row

CONFIDENCES = ("extracted", "inferred", "ambiguous")


def _arrow(pre: str, post: str, typ: str) -> str:
    return f"{pre} -{typ}→ {post}"


def new_synapse(b: Builder, pre: str, post: str, typ: str, weight: float, **extra: Any) -> Row:
    """A fresh synapse row as Spikuit's ``Synapse(...)`` + ``insert_synapse`` stores it,
    limited to the columns this brain has."""
    at = b.ctx.at
    row: Row = {
        "pre": pre,
        "post": post,
        "type": typ,
        "weight": float(weight),
        "co_fires": 0,
        "last_co_fire": None,
        "created_at": at,
        "updated_at": at,
        "confidence": extra.get("confidence", "extracted"),
        "confidence_score": float(extra.get("confidence_score", 1.0)),
        "retired_at": None,
    }
    cols = b.view.era.synapse_cols
    return {c: v for c, v in row.items() if c in cols}


def put_synapse(b: Builder, row: Row) -> bool:
    """Write a new synapse unless a live one holds its key (revive a retired one);
    log ``synapse.add``.  Returns whether anything was written."""
    current = b.view.synapse(row["pre"], row["post"], row["type"])
    if current is not None and current.get("retired_at") is None:
        return False
    stored = row if current is None else {**current, **row}
    b.put("synapse", stored)
    b.emit(
        snap.OP_SYNAPSE_ADD,
        "synapse",
        snap.synapse_target(stored),
        None,
        snap.synapse_snapshot(stored),
    )
    return True


def retire_synapse_row(b: Builder, row: Row) -> None:
    """Soft-retire one live row and log ``synapse.retire`` (null → null)."""
    b.put("synapse", {**row, "retired_at": b.ctx.at})
    b.emit(snap.OP_SYNAPSE_RETIRE, "synapse", snap.synapse_target(row))


def _confidence(p: dict[str, Any]) -> dict[str, Any]:
    conf = p.get("confidence", "extracted")
    if conf not in CONFIDENCES:
        raise ConflictError(f"params.confidence must be one of {', '.join(CONFIDENCES)}")
    score = p.get("confidence_score", 1.0)
    if isinstance(score, bool) or not isinstance(score, int | float) or not 0 <= score <= 1:
        raise ConflictError("params.confidence_score must be a number in [0, 1]")
    return {"confidence": conf, "confidence_score": float(score)}


def plan_add(b: Builder, p: dict[str, Any]) -> None:
    """``add_synapse``."""
    pre, post, typ = p["pre"], p["post"], p["type"]
    b.view.live_neuron(pre)
    b.view.live_neuron(post)
    if b.view.live_synapse(pre, post, typ) is not None:
        raise ConflictError(f"synapse {_arrow(pre, post, typ)} already exists")
    weight = float(p.get("weight", 0.5))
    extra = _confidence(p)
    pairs = [(pre, post)] + ([(post, pre)] if typ in BIDIRECTIONAL else [])
    for a, z in pairs:
        put_synapse(b, new_synapse(b, a, z, typ, weight, **extra))


def plan_remove(b: Builder, p: dict[str, Any]) -> None:
    """``remove_synapse``."""
    pre, post, typ = p["pre"], p["post"], p["type"]
    row = b.view.live_synapse(pre, post, typ)
    if row is None:
        raise ConflictError(f"synapse {_arrow(pre, post, typ)} no longer exists")
    retire_synapse_row(b, row)
    if typ in BIDIRECTIONAL:
        reverse = b.view.live_synapse(post, pre, typ)
        if reverse is not None:
            retire_synapse_row(b, reverse)


def plan_set_weight(b: Builder, p: dict[str, Any]) -> None:
    """``set_synapse_weight``."""
    pre, post, typ = p["pre"], p["post"], p["type"]
    row = b.view.live_synapse(pre, post, typ)
    if row is None:
        raise ConflictError(f"synapse {_arrow(pre, post, typ)} no longer exists")
    reweight(b, row, float(p["weight"]))


def reweight(b: Builder, row: Row, weight: float) -> None:
    """``Circuit.set_synapse_weight`` on one live row: the weight and ``updated_at``,
    one ``synapse.update`` event."""
    new = {**row, "weight": weight}
    if "updated_at" in row:
        new["updated_at"] = b.ctx.at
    b.put("synapse", new)
    b.emit(
        snap.OP_SYNAPSE_UPDATE,
        "synapse",
        snap.synapse_target(row),
        snap.synapse_snapshot(row),
        snap.synapse_snapshot(new),
    )
