"""A plan: the exact user-brain rows one proposal changes, and its change log.

The preview *is* the plan: every row that changes, with its full image before and
after (``None`` = the row does not exist), plus the Spikuit ``event`` rows and the
``changeset`` that record it.  Applying executes exactly these changes; undoing
executes :meth:`Plan.inverse`.

A domain rename or merge too big to hold row by row (:mod:`.stream_plan`) is a
*streamed* plan instead: a :class:`Stream` says which domains move where, how many rows
(live and retired), in which chunks, and the digest of every row's before-image; the
rows and their events are written chunk by chunk (:mod:`.stream_exec`).
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


@dataclass(frozen=True)
class Move:
    """One domain of a streamed plan: every row of ``old`` (retired ones too) → ``new``."""

    old: str
    new: str
    rows: int
    live: int


@dataclass(frozen=True)
class Stream:
    """A streamed domain change: its moves in order, the chunking, and the digest of
    the rows' before-images in plan order (``None`` in a preview, which only counts)."""

    moves: tuple[Move, ...]
    chunk_rows: int
    digest: str | None = None
    revert_of: str | None = None
    """For an undo: the changeset id of the apply it reverts (its chunks are kept under
    that id in the agent brain)."""

    @property
    def rows(self) -> int:
        """How many neuron rows change (one ``neuron.update`` event each)."""
        return sum(m.rows for m in self.moves)

    def to_value(self) -> list[Any]:
        """A JSON-able value (see :meth:`from_value`)."""
        moves = [[m.old, m.new, m.rows, m.live] for m in self.moves]
        return [moves, self.chunk_rows, self.digest, self.revert_of]

    @classmethod
    def from_value(cls, value: list[Any]) -> Stream:
        """Inverse of :meth:`to_value`."""
        moves, chunk_rows, digest, revert_of = value
        return cls(tuple(Move(*m) for m in moves), chunk_rows, digest, revert_of)


@dataclass
class Plan:
    """The rows one proposal changes, in order, and its change log."""

    kind: str
    params: dict[str, Any]
    changeset: ChangesetInfo
    changes: list[RowChange] = field(default_factory=list)
    events: list[EventRow] = field(default_factory=list)
    stream: Stream | None = None
    """Set for a streamed plan (then ``changes`` and ``events`` are empty)."""

    @property
    def empty(self) -> bool:
        """Nothing to write (a ``note``, or a change already in place)."""
        return not self.changes and (self.stream is None or self.stream.rows == 0)

    @property
    def rows_changed(self) -> int:
        """How many rows the plan writes."""
        return self.stream.rows if self.stream is not None else len(self.changes)

    # -- persistence ----------------------------------------------------------------

    def to_json(self) -> str:
        """Canonical JSON: two plans are the same change iff their JSON is equal."""
        cs = self.changeset
        value: dict[str, Any] = {
            "kind": self.kind,
            "params": self.params,
            "changeset": [cs.id, cs.tag, cs.actor_id, cs.at, cs.actor_kind],
            "changes": [[c.table, list(c.key), c.before, c.after] for c in self.changes],
            "events": [
                [e.op, e.target_kind, e.target_id, e.before_json, e.after_json] for e in self.events
            ],
        }
        if self.stream is not None:
            value["stream"] = self.stream.to_value()
        return encode(value)

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
            stream=Stream.from_value(data["stream"]) if "stream" in data else None,
        )

    # -- the change log ---------------------------------------------------------------

    def changeset_row(self) -> Row:
        """The ``changeset`` row, ready to insert."""
        cs = self.changeset
        return {
            "id": cs.id,
            "tag": cs.tag,
            "actor_id": cs.actor_id,
            "actor_kind": cs.actor_kind,
            "started_at": cs.at,
            "committed_at": cs.at,
            "status": "committed",
        }

    def log_rows(self) -> tuple[Row, list[Row]]:
        """The ``changeset`` row and its ``event`` rows, ready to insert."""
        cs = self.changeset
        changeset = self.changeset_row()
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
        Spikuit reader expects for each row (the change log stays append-only).  A
        streamed plan's inverse names this plan's changeset: its chunks, read back in
        reverse, say which rows to put back."""
        if self.stream is not None:
            back = tuple(Move(m.new, m.old, m.rows, m.live) for m in self.stream.moves)
            stream = Stream(back, self.stream.chunk_rows, self.stream.digest, self.changeset.id)
            return Plan(self.kind, self.params, changeset, stream=stream)
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
