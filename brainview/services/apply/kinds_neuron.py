"""Planners for the neuron and domain kinds, as Spikuit 0.7.1's ``Circuit`` does them.

* ``retire_neuron`` = ``Circuit.remove_neuron``: ``retired_at`` on the neuron
  (``updated_at`` untouched) and on every live synapse touching it, same timestamp;
  ``neuron.retire`` (snapshot → null), then ``synapse.retire`` per cascaded row.
  Card, spikes, sources and community id stay.  Spikuit also hard-deletes the
  neuron's vector (``Database.delete_embedding``: its ``neuron_vec`` row and its
  ``neuron_vec_map`` row) and quiz items.  brainview deletes the ``neuron_vec_map``
  row (:func:`drop_vector`, undone like any row); the ``neuron_vec`` row is a
  sqlite-vec virtual table row this Python's ``sqlite3`` cannot open: it stays,
  unreachable (Spikuit's nearest-neighbour search joins through the map), until
  Spikuit rewrites the table.  Quiz items stay.
* ``edit_content`` / ``set_domain`` = ``Circuit.update_neuron``: the column and
  ``updated_at``; ``neuron.update`` snapshot → snapshot.
* ``rename_domain`` / ``merge_domains`` = ``Circuit.rename_domain`` /
  ``merge_domains``: ``UPDATE neuron SET domain`` on every row of the old domain,
  retired ones included, ``updated_at`` untouched.  Spikuit logs nothing for these;
  brainview logs a ``neuron.update`` per row so the change log is complete.
"""

from __future__ import annotations

from typing import Any

from brainview.errors import ConflictError
from brainview.services.apply import snapshots as snap
from brainview.services.apply.kinds_synapse import retire_synapse_row
from brainview.services.apply.view import Builder
from brainview.store.apply_rows import VEC_MAP, vec_map_rowids
from brainview.store.rows import Row


def drop_vector(b: Builder, neuron_id: str) -> None:
    """Delete the neuron's ``neuron_vec_map`` row(s), as Spikuit's
    ``delete_embedding`` does (see the module's docstring for ``neuron_vec``)."""
    for rowid in vec_map_rowids(b.view.raw, neuron_id):
        if b.view.row(VEC_MAP, (rowid,)) is not None:
            b.delete(VEC_MAP, (rowid,))


def retire(b: Builder, neuron_id: str) -> None:
    """Soft-retire one live neuron and cascade to its live synapses."""
    row = b.view.live_neuron(neuron_id)
    cascade = b.view.touching(neuron_id)
    b.put("neuron", {**row, "retired_at": b.ctx.at})
    b.emit(snap.OP_NEURON_RETIRE, "neuron", neuron_id, snap.neuron_snapshot(row), None)
    for syn in cascade:
        retire_synapse_row(b, syn)
    drop_vector(b, neuron_id)


def update(b: Builder, row: Row, **values: Any) -> None:
    """``Circuit.update_neuron``: new values and ``updated_at``, one event."""
    new = {**row, **values}
    if "updated_at" in row:
        new["updated_at"] = b.ctx.at
    b.put("neuron", new)
    b.emit(
        snap.OP_NEURON_UPDATE,
        "neuron",
        row["id"],
        snap.neuron_snapshot(row),
        snap.neuron_snapshot(new),
    )


def plan_retire(b: Builder, p: dict[str, Any]) -> None:
    """``retire_neuron``."""
    retire(b, p["neuron"])


def plan_edit(b: Builder, p: dict[str, Any]) -> None:
    """``edit_content``."""
    row = b.view.live_neuron(p["neuron"])
    if row["content"] == p["content"]:
        raise ConflictError(f"neuron {p['neuron']} already has this content")
    update(b, row, content=p["content"])


def plan_set_domain(b: Builder, p: dict[str, Any]) -> None:
    """``set_domain``."""
    rows = [b.view.live_neuron(nid) for nid in p["neurons"]]
    moving = [row for row in rows if row.get("domain") != p["domain"]]
    if not moving:
        raise ConflictError(f"every named neuron is already in domain {p['domain']}")
    for row in moving:
        update(b, row, domain=p["domain"])


def _rename(b: Builder, old: str, new: str) -> None:
    rows = b.view.in_domain(old)
    if not any(r.get("retired_at") is None for r in rows):
        raise ConflictError(f"domain {old} has no live neurons")
    for row in rows:
        after = {**row, "domain": new}
        b.put("neuron", after)
        b.emit(
            snap.OP_NEURON_UPDATE,
            "neuron",
            row["id"],
            snap.neuron_snapshot(row),
            snap.neuron_snapshot(after),
        )


def plan_rename_domain(b: Builder, p: dict[str, Any]) -> None:
    """``rename_domain``."""
    _rename(b, p["old"], p["new"])


def plan_merge_domains(b: Builder, p: dict[str, Any]) -> None:
    """``merge_domains`` (sources in the given order)."""
    for source in p["sources"]:
        if source != p["target"]:
            _rename(b, source, p["target"])
