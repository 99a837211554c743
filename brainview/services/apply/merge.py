"""The ``merge_neurons`` planner: Spikuit 0.7.1's ``Circuit.merge_neurons``, row for row.

In order, all in one changeset:

1. The survivor's content: ``content: "append"`` (Spikuit's only behaviour) makes it
   ``survivor + "\\n\\n---\\n\\n" + merged`` for each merged neuron in order;
   ``"keep"`` leaves the text alone.  Either way ``updated_at`` = now, as
   ``update_neuron`` does.  No ``neuron.update`` event (Spikuit logs none).
2. Each merged neuron's live synapses to a third neuron are copied onto the survivor
   unless a live row with that (pre, post, type) exists: weight kept, ``co_fires`` 0,
   confidence ``extracted``/1.0.  Edges between the merged neurons and the survivor
   are dropped, not redirected.  ``synapse.add`` per copy.
3. ``neuron_source`` links are copied to the survivor (``INSERT OR IGNORE``).
4. Each merged neuron is retired as ``retire_neuron`` does (its remaining synapses
   cascade), then ``neuron_predecessor(child=survivor, parent=merged, at)``.
   Spikuit then re-embeds the survivor with the user's embedder; brainview has none,
   so when the survivor's text changed it deletes the survivor's ``neuron_vec_map``
   row instead (:func:`~.kinds_neuron.drop_vector`): ``spkt embed-all`` embeds every
   neuron without one, which re-embeds it from the merged text.
5. One ``neuron.merge`` event on the survivor: before = its snapshot before step 1,
   after = ``{"into": survivor, "sources": [merged…]}``.
"""

from __future__ import annotations

from typing import Any

from brainview.services.apply import snapshots as snap
from brainview.services.apply.kinds_neuron import drop_vector, retire
from brainview.services.apply.kinds_synapse import new_synapse, put_synapse
from brainview.services.apply.view import Builder

SEPARATOR = "\n\n---\n\n"


def plan_merge(b: Builder, p: dict[str, Any]) -> None:
    """``merge_neurons``."""
    keep: str = p["keep"]
    merged: list[str] = list(p["merge"])
    target = b.view.live_neuron(keep)
    sources = [b.view.live_neuron(nid) for nid in merged]
    before_target = snap.neuron_snapshot(target)

    content = target["content"]
    if p.get("content", "append") == "append":
        content += "".join(SEPARATOR + s["content"] for s in sources)
    new_target = {**target, "content": content}
    if "updated_at" in target:
        new_target["updated_at"] = b.ctx.at
    b.put("neuron", new_target)

    skip = {keep, *merged}
    for sid in merged:
        for syn in b.view.live_synapses(sid, "pre"):
            if syn["post"] not in skip:
                put_synapse(b, new_synapse(b, keep, syn["post"], syn["type"], syn["weight"]))
        for syn in b.view.live_synapses(sid, "post"):
            if syn["pre"] not in skip:
                put_synapse(b, new_synapse(b, syn["pre"], keep, syn["type"], syn["weight"]))

    for sid in merged:
        for link in b.view.source_links(sid):
            if b.view.row("neuron_source", (keep, link["source_id"])) is None:
                b.put("neuron_source", {**link, "neuron_id": keep})

    lineage = "neuron_predecessor" in b.view.era.tables
    for sid in merged:
        retire(b, sid)
        if lineage and b.view.row("neuron_predecessor", (keep, sid)) is None:
            b.put("neuron_predecessor", {"child_id": keep, "parent_id": sid, "at": b.ctx.at})

    if content != target["content"]:
        drop_vector(b, keep)  # stale: Spikuit re-embeds it; `spkt embed-all` will
    b.emit(snap.OP_NEURON_MERGE, "neuron", keep, before_target, snap.merge_payload(keep, merged))
