"""A plan: the exact user-brain rows one proposal changes, and its change log.

The preview *is* the plan: every row that changes, with its full image before and
after (``None`` = the row does not exist), plus the Spikuit ``event`` rows and the
``changeset`` that record it.  Applying executes exactly these changes; undoing
executes :meth:`Plan.inverse`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from brainview.services.apply import snapshots as snap
from brainview.store.rows import KeyTuple, Row, encode, load_json

TAG_PREFIX = "brainview:"
UNDO_TAG_PREFIX = "brainview:undo:"


@dataclass(frozen=True)
class RowChange:
    """One row of the user brain: ``before`` → ``after`` (full images)."""

    table: str
    key: KeyTuple
    before: Row | None
    after: Row | None


@dataclass(frozen=True)
class EventRow:
    """One Spikuit ``event`` row (its id and seq follow from the changeset)."""

    op: str
    target_kind: str
    target_id: str
    before_json: str | None = None
    after_json: str | None = None


@dataclass(frozen=True)
class ChangesetInfo:
    """The ``changeset`` row that records a plan."""

    id: str
    tag: str
    actor_id: str
    at: str
    actor_kind: str = "human"


@dataclass
class Plan:
    """The rows one proposal changes, in order, and its change log."""

    kind: str
    params: dict[str, Any]
    changeset: ChangesetInfo
    changes: list[RowChange] = field(default_factory=list)
    events: list[EventRow] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        """Nothing to write (a ``note``, or a change already in place)."""
        return not self.changes

    # -- persistence ----------------------------------------------------------------

    def to_json(self) -> str:
        """Canonical JSON: two plans are the same change iff their JSON is equal."""
        cs = self.changeset
        return encode(
            {
                "kind": self.kind,
                "params": self.params,
                "changeset": [cs.id, cs.tag, cs.actor_id, cs.at, cs.actor_kind],
                "changes": [[c.table, list(c.key), c.before, c.after] for c in self.changes],
                "events": [
                    [e.op, e.target_kind, e.target_id, e.before_json, e.after_json]
                    for e in self.events
                ],
            }
        )

    @classmethod
    def from_json(cls, text: str) -> Plan:
        """Inverse of :meth:`to_json`."""
        data = load_json(text)
        return cls(
            kind=data["kind"],
            params=data["params"],
            changeset=ChangesetInfo(*data["changeset"]),
            changes=[RowChange(t, tuple(k), b, a) for t, k, b, a in data["changes"]],
            events=[EventRow(*e) for e in data["events"]],
        )

    # -- the change log ---------------------------------------------------------------

    def log_rows(self) -> tuple[Row, list[Row]]:
        """The ``changeset`` row and its ``event`` rows, ready to insert."""
        cs = self.changeset
        changeset = {
            "id": cs.id,
            "tag": cs.tag,
            "actor_id": cs.actor_id,
            "actor_kind": cs.actor_kind,
            "started_at": cs.at,
            "committed_at": cs.at,
            "status": "committed",
        }
        events = [
            {
                "id": event_id(cs.id, seq),
                "changeset_id": cs.id,
                "seq": seq,
                "op": e.op,
                "target_kind": e.target_kind,
                "target_id": e.target_id,
                "before_json": e.before_json,
                "after_json": e.after_json,
                "at": cs.at,
            }
            for seq, e in enumerate(self.events)
        ]
        return changeset, events

    def inverse(self, changeset: ChangesetInfo) -> Plan:
        """The plan that puts every row back, newest change first, with the events a
        Spikuit reader expects for each row (the change log stays append-only)."""
        changes = [RowChange(c.table, c.key, c.after, c.before) for c in reversed(self.changes)]
        events = [e for c in changes for e in row_events(c)]
        return Plan(self.kind, self.params, changeset, changes, events)


def event_id(changeset_id: str, seq: int) -> str:
    """A Spikuit-shaped event id (``ev_`` + 12 hex), derived from the changeset so a
    plan recomputed later is byte-for-byte the same."""
    digest = hashlib.blake2b(f"{changeset_id}:{seq}".encode(), digest_size=6).hexdigest()
    return f"ev_{digest}"


def _live(row: Row | None) -> bool:
    return row is not None and row.get("retired_at") is None


def row_events(change: RowChange) -> list[EventRow]:
    """The events Spikuit writes for one row moving from ``before`` to ``after`` (a row
    removed — only ever the undo of an add — logs brainview's ``*.delete``, so the log
    says what the write did)."""
    before, after = change.before, change.after
    if change.table == "neuron":
        nid = str(change.key[0])
        if before is not None and after is None:  # removed (undo of an add)
            gone = snap.neuron_snapshot(before)
            return [EventRow(snap.OP_NEURON_DELETE, "neuron", nid, gone)]
        if _live(before) and not _live(after):
            gone = snap.neuron_snapshot(before)  # type: ignore[arg-type]
            return [EventRow(snap.OP_NEURON_RETIRE, "neuron", nid, gone)]
        if _live(after) and not _live(before):
            back = snap.neuron_snapshot(after)  # type: ignore[arg-type]
            return [EventRow(snap.OP_NEURON_ADD, "neuron", nid, None, back)]
        if before is not None and after is not None:
            old, new = snap.neuron_snapshot(before), snap.neuron_snapshot(after)
            if old != new:
                return [EventRow(snap.OP_NEURON_UPDATE, "neuron", nid, old, new)]
        return []
    if change.table == "synapse":
        target = "|".join(str(k) for k in change.key)
        if before is not None and after is None:  # removed (undo of an add)
            gone = snap.synapse_snapshot(before)
            return [EventRow(snap.OP_SYNAPSE_DELETE, "synapse", target, gone)]
        if _live(after) and not _live(before):
            added = snap.synapse_snapshot(after)  # type: ignore[arg-type]
            return [EventRow(snap.OP_SYNAPSE_ADD, "synapse", target, None, added)]
        if _live(before) and not _live(after):
            return [EventRow(snap.OP_SYNAPSE_RETIRE, "synapse", target)]
        if before is not None and after is not None:
            old, new = snap.synapse_snapshot(before), snap.synapse_snapshot(after)
            if old != new:
                return [EventRow(snap.OP_SYNAPSE_UPDATE, "synapse", target, old, new)]
    return []  # lineage and source links: Spikuit logs no event for them
