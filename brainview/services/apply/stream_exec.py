"""Executing a streamed plan (:mod:`.stream_plan`) in the user brain, chunk by chunk,
inside the caller's one ``BEGIN IMMEDIATE`` — never more than one chunk of rows in
memory.

**Apply**: each chunk of the old domain is read (keyset on the ``domain`` index), its
digest added to the running digest, its rows moved (``UPDATE neuron SET domain``) and
their ``neuron.update`` events inserted; then the digest must be the one recorded at
accept (else :class:`~brainview.errors.ConflictError`: the caller's transaction rolls
back, nothing is written), and the ``changeset`` row goes in last.  A changeset id
already in the brain means it was applied before: idempotent, as :mod:`.execute`.

**Undo**: the apply's chunks come back from the agent brain newest first; each row
must still be as the apply left it (its domain the new one, and — domain put back —
the digest of its before-image recorded at accept), then it gets its domain back and
an inverse ``neuron.update``, newest row first: exactly what undoing the in-memory
plan writes.  :func:`check_revert` runs the same checks without writing (before the
undo is recorded).

``<action>.user_chunk`` (:mod:`.hooks`) is announced after every chunk written.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable, Iterator

from sqlalchemy import Connection

from brainview.errors import ConflictError
from brainview.services.apply import hooks
from brainview.services.apply.plan import Plan, Stream
from brainview.services.apply.stream_plan import (
    chunk_digest,
    chunk_line,
    scan,
    update_events,
)
from brainview.store import apply_chunks, domain_stream
from brainview.store.apply_chunks import Chunk
from brainview.store.apply_rows import changeset_exists
from brainview.store.rows import insert_row

ChunkAt = Callable[[int], Chunk | None]
"""Reads one stored chunk of the apply being undone (``None``: missing)."""


class ChunkSource:
    """The stored chunks of one streamed apply, read one at a time from the agent
    brain (``conn``: any connection to it, kept open while they are read)."""

    def __init__(self, conn: Connection, changeset_id: str) -> None:
        self.conn = conn
        self.changeset_id = changeset_id
        self.count = apply_chunks.chunk_count(conn, changeset_id)

    def get(self, seq: int) -> Chunk | None:
        """Chunk ``seq`` (``None``: missing)."""
        return apply_chunks.chunk(self.conn, self.changeset_id, seq)


def _stream(plan: Plan) -> Stream:
    assert plan.stream is not None and plan.stream.digest is not None, "not an applied stream"
    return plan.stream


def apply_stream(raw: sqlite3.Connection, plan: Plan, *, what: str) -> bool:
    """Write a streamed apply; ``False`` when its changeset is already there.

    ``what`` names the proposal in the message when the brain changed since accept."""
    stream = _stream(plan)
    cs = plan.changeset
    if changeset_exists(raw, cs.id):
        return False
    cols = domain_stream.neuron_columns(raw)
    total = hashlib.blake2b(digest_size=16)
    seen = [0] * len(stream.moves)
    seq = 0
    for index, first, last, rows in scan(raw, stream.moves, stream.chunk_rows):
        move = stream.moves[index]
        total.update(chunk_line(index, len(rows), chunk_digest(cols, rows)))
        seen[index] += len(rows)
        moved = domain_stream.move_domain_range(raw, move.old, move.new, first, last)
        assert moved == len(rows), (moved, len(rows))  # same rows, same transaction
        events = update_events(cols, rows, move.new, cs.id, seq, cs.at)
        domain_stream.insert_event_tuples(raw, events)
        seq += len(rows)
        hooks.step("apply.user_chunk")
    if total.hexdigest() != stream.digest:
        counts = ", ".join(
            f"domain {m.old}: {n} rows now, {m.rows} when accepted"
            for m, n in zip(stream.moves, seen, strict=True)
        )
        raise ConflictError(f"the user brain changed since {what} was accepted ({counts})")
    hooks.step("apply.user_mid_txn")
    insert_row(raw, "changeset", plan.changeset_row())
    return True


def _chunks_newest_first(
    raw: sqlite3.Connection, plan: Plan, chunk_at: ChunkAt, n_chunks: int
) -> Iterator[tuple[Chunk, list[int], list[tuple[object, ...]]]]:
    """Each stored chunk (newest first) with its rows' rowids and the rows as they are
    now, checked: every row as the apply left it.  Raises ConflictError naming what
    changed."""
    stream = _stream(plan)
    cols = domain_stream.neuron_columns(raw)
    at_dom = cols.index("domain")
    lines: list[bytes] = [b""] * n_chunks
    for seq in range(n_chunks - 1, -1, -1):
        chunk = chunk_at(seq)
        if chunk is None or not 0 <= chunk.move < len(stream.moves):
            raise ConflictError(f"the record of the apply is incomplete (chunk {seq} is missing)")
        move = stream.moves[chunk.move]  # new → old: the undo's direction
        found = domain_stream.neurons_by_id(raw, chunk.ids)
        for nid in chunk.ids:
            hit = found.get(nid)
            if hit is None:
                raise ConflictError(f"neuron {nid} is gone since it was planned")
            if hit[1][at_dom] != move.old:
                raise ConflictError(f"neuron {nid} changed since it was planned")
        now = [found[nid][1] for nid in chunk.ids]
        befores = [(*r[:at_dom], move.new, *r[at_dom + 1 :]) for r in now]
        if chunk_digest(cols, befores) != chunk.digest:
            raise ConflictError(
                f"one of the {len(now)} neurons {chunk.ids[0]} … {chunk.ids[-1]} changed "
                "since it was planned"
            )
        lines[seq] = chunk_line(chunk.move, len(now), chunk.digest)
        yield chunk, [found[nid][0] for nid in chunk.ids], now
    if hashlib.blake2b(b"".join(lines), digest_size=16).hexdigest() != stream.digest:
        raise ConflictError("the record of the apply does not match its plan")


def check_revert(raw: sqlite3.Connection, plan: Plan, chunk_at: ChunkAt, n_chunks: int) -> None:
    """Refuse (ConflictError) unless every row of the apply is as it left it."""
    for _checked in _chunks_newest_first(raw, plan, chunk_at, n_chunks):
        pass


def revert_stream(raw: sqlite3.Connection, plan: Plan, chunk_at: ChunkAt, n_chunks: int) -> bool:
    """Write a streamed undo; ``False`` when its changeset is already there."""
    stream = _stream(plan)
    cs = plan.changeset
    if changeset_exists(raw, cs.id):
        return False
    cols = domain_stream.neuron_columns(raw)
    seq = 0
    for chunk, rowids, rows in _chunks_newest_first(raw, plan, chunk_at, n_chunks):
        back = stream.moves[chunk.move].new
        rows.reverse()
        domain_stream.move_rowids(raw, rowids[::-1], back)
        domain_stream.insert_event_tuples(raw, update_events(cols, rows, back, cs.id, seq, cs.at))
        seq += len(rows)
        hooks.step("revert.user_chunk")
    hooks.step("revert.user_mid_txn")
    insert_row(raw, "changeset", plan.changeset_row())
    return True
