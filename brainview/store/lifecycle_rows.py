"""Lifecycle row writes the Spikuit way: soft-retire and restore, with their changeset.

:func:`retire_neuron` does what Spikuit's ``Circuit.remove_neuron`` does (same stamp on
the neuron and its live synapses, a ``changeset`` with ``neuron.retire`` /
``synapse.retire`` events); the ``unretire_*`` helpers restore only rows a lifecycle
batch retired (``neuron.add`` / ``synapse.add`` with the row's snapshot, as the user
brain's undo logs a row brought back to life).  Every write goes through a
:class:`~brainview.store.bv_schema_lifecycle.BatchLog`, so the batch can be undone;
the change log itself is never undone, only added to.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from sqlalchemy import Connection, text

from brainview.store.bv_schema_lifecycle import BatchLog, read_row
from brainview.store.era import Era
from brainview.store.writers import dump_row, load_row

Snapshot = Callable[[dict[str, Any]], str]
"""A row → its ``before_json`` / ``after_json`` text (the caller's Spikuit shape)."""


class Changeset:
    """One Spikuit ``changeset`` with its ``event`` rows (written only if events exist),
    through the batch log.  ``snapshots``: how a neuron and a synapse row are written
    into an event (the services pass Spikuit's msgspec shape)."""

    def __init__(
        self,
        log: BatchLog,
        era: Era,
        tag: str,
        actor: str,
        at: str,
        *,
        snapshots: tuple[Snapshot, Snapshot],
    ) -> None:
        self.log, self.tag, self.actor, self.at = log, tag, actor, at
        self.enabled = era.has_changelog
        self.neuron_snapshot, self.synapse_snapshot = snapshots
        self.events: list[tuple[str, str, str, str | None, str | None]] = []
        self.id: str | None = None

    def neuron(self, op: str, row: dict[str, Any], *, before: bool) -> None:
        """A neuron event; the snapshot goes to ``before_json`` or ``after_json``."""
        snap = self.neuron_snapshot(row)
        self.event(op, "neuron", str(row["id"]), snap if before else None, None if before else snap)

    def synapse(self, op: str, row: dict[str, Any], *, snapshot: bool = False) -> None:
        """A synapse event (Spikuit's ``synapse.retire`` carries no snapshot)."""
        target = f"{row['pre']}|{row['post']}|{row['type']}"
        after = self.synapse_snapshot(row) if snapshot else None
        self.event(op, "synapse", target, None, after)

    def event(self, op: str, kind: str, target: str, before: str | None, after: str | None) -> None:
        """Any event, already shaped."""
        self.events.append((op, kind, target, before, after))

    def close(self) -> str | None:
        """Write the changeset and its events (through the batch log); its id, or
        ``None`` when nothing was written."""
        if not self.enabled or not self.events:
            return None
        cs_id = self.id = f"cs_{uuid.uuid4().hex[:12]}"
        self.log.insert(
            "changeset",
            {
                "id": cs_id, "tag": self.tag, "actor_id": self.actor, "actor_kind": "human",
                "started_at": self.at, "committed_at": self.at, "status": "committed",
            },
        )  # fmt: skip
        for seq, (op, kind, target, before, after) in enumerate(self.events):
            self.log.insert(
                "event",
                {
                    "id": f"ev_{uuid.uuid4().hex[:12]}", "changeset_id": cs_id, "seq": seq,
                    "op": op, "target_kind": kind, "target_id": target,
                    "before_json": before, "after_json": after, "at": self.at,
                },
            )  # fmt: skip
        return cs_id


def retire_neuron(log: BatchLog, era: Era, cs: Changeset, rid: str, at: str) -> int:
    """As ``Circuit.remove_neuron``: ``retired_at`` on the neuron and on every live synapse
    touching it (same stamp), with ``neuron.retire`` + ``synapse.retire`` events.
    Returns the synapse rows retired."""
    row = read_row(log.conn, "neuron", {"id": rid})
    if row is not None and row.get("retired_at") is None:
        log.update("neuron", {"id": rid}, {"retired_at": at})
        cs.neuron("neuron.retire", row, before=True)
    if "retired_at" not in era.synapse_cols:
        return 0
    live = log.conn.execute(
        text(
            "SELECT * FROM synapse WHERE (pre = :r OR post = :r) AND retired_at IS NULL "
            "ORDER BY pre, post, type"
        ),
        {"r": rid},
    ).mappings()
    synapses = [dict(s) for s in live]
    for s in synapses:
        log.update(
            "synapse", {"pre": s["pre"], "post": s["post"], "type": s["type"]}, {"retired_at": at}
        )
        cs.synapse("synapse.retire", s)
    return len(synapses)


def retired_by_lifecycle(conn: Connection, tbl: str, key: dict[str, Any], stamp: str) -> bool:
    """Whether a not-undone lifecycle batch set this row's ``retired_at`` to ``stamp``."""
    rows = conn.execute(
        text(
            "SELECT e.after_json FROM brainview_lifecycle_effect e "
            "JOIN brainview_lifecycle_batch b ON b.id = e.batch_id "
            "WHERE e.tbl = :t AND e.key_json = :k AND e.op = 'update' AND b.undone_at IS NULL"
        ),
        {"t": tbl, "k": dump_row(key)},
    )
    return any((load_row(a) or {}).get("retired_at") == stamp for (a,) in rows)


def unretire_neuron(log: BatchLog, cs: Changeset, rid: str) -> bool:
    """Clear ``retired_at`` if (and only if) a lifecycle batch set it."""
    row = read_row(log.conn, "neuron", {"id": rid})
    stamp = None if row is None else row.get("retired_at")
    if (
        row is None
        or stamp is None
        or not retired_by_lifecycle(log.conn, "neuron", {"id": rid}, stamp)
    ):
        return False
    log.update("neuron", {"id": rid}, {"retired_at": None})
    cs.neuron("neuron.add", {**row, "retired_at": None}, before=False)
    return True


def unretire_synapses(log: BatchLog, era: Era, cs: Changeset, rids: list[str]) -> int:
    """Restore synapse rows a lifecycle batch retired, where both ends are live now."""
    if "retired_at" not in era.synapse_cols:
        return 0
    restored = 0
    seen: set[tuple[str, str, str]] = set()
    for rid in rids:
        rows = log.conn.execute(
            text(
                "SELECT s.* FROM synapse s JOIN neuron a ON a.id = s.pre JOIN neuron b "
                "ON b.id = s.post WHERE (s.pre = :r OR s.post = :r) AND s.retired_at IS NOT NULL "
                "AND a.retired_at IS NULL AND b.retired_at IS NULL ORDER BY s.pre, s.post, s.type"
            ),
            {"r": rid},
        ).mappings()
        for s in [dict(r) for r in rows]:
            key = {"pre": s["pre"], "post": s["post"], "type": s["type"]}
            k = (s["pre"], s["post"], s["type"])
            if k in seen or not retired_by_lifecycle(log.conn, "synapse", key, s["retired_at"]):
                continue
            seen.add(k)
            log.update("synapse", key, {"retired_at": None})
            cs.synapse("synapse.add", {**s, "retired_at": None}, snapshot=True)
            restored += 1
    return restored
