"""Streamed plans: a ``rename_domain`` / ``merge_domains`` too big to plan row by row.

Above :data:`STREAM_MIN_LIVE` live neurons the in-memory plan (every row's image
before and after, and its event, in Python and in the intent's JSON) cost 3 GB and
~110 s of CPU to accept for a 200,000-neuron domain (2.5 GB to undo).  Such a proposal gets a
:class:`~brainview.services.apply.plan.Stream` instead — the same rows, the same
order, the same events, described rather than listed:

* **preview** (:func:`preview_stream`): which domain moves where, how many rows (live
  and retired) and events — counted, not read; it is what the apply will do;
* **accept** (:func:`plan_stream`, from the gate): every row is read once, chunk by
  chunk, in the order the in-memory planner would take it (each domain's rows in
  rowid order, the domains in the proposal's order); each chunk's neuron ids and the
  digest of its rows' full before-images go to the agent brain
  (``brainview_apply_chunk``) with the intent; the plan keeps the counts, the chunk
  size and the digest of all chunks;
* **apply / undo** (:mod:`.stream_exec`): the rows are read again, checked against the
  digest and written chunk by chunk, in **one** user-brain transaction.

Why one transaction and not one per chunk: a reader (the console, ``spkt``) must
never see a half-renamed domain, and a concurrent ``spkt`` write must never land
between two chunks of a change that may still roll back; SQLite's WAL keeps the
page cache bounded (dirty pages spill to the log), so one transaction costs no more
memory than many, and measured within 10 % of their CPU and the same wall time on a
50k-neuron domain (docs/performance.md, "Streamed apply of a big domain").  A
crash anywhere leaves the user brain as before (SQLite drops the unfinished
transaction) and the intent pending: :func:`~brainview.services.apply.recover`
applies it again from the start.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable, Iterator
from operator import itemgetter
from typing import Any

from brainview.core.kinds import ParamError, check_params
from brainview.errors import ConflictError
from brainview.services.apply import snapshots as snap
from brainview.services.apply.plan import Move, Plan, Stream, event_id
from brainview.services.apply.planner import require_apply_era
from brainview.services.apply.view import Ctx
from brainview.store import domain_stream
from brainview.store.era import Era

STREAM_MIN_LIVE = 2_000
"""A domain rename or merge whose domains hold more live neurons than this is
previewed summarised and applied streamed."""

CHUNK_ROWS = 5_000
"""Rows per chunk (recorded in each plan: the apply and the undo chunk alike)."""

DOMAIN_KINDS = ("rename_domain", "merge_domains")

Sink = Callable[[int, int, list[str], str], None]
"""Receives each chunk at accept: ``(seq, move index, neuron ids, digest)``."""


def domain_moves(kind: str, params: dict[str, Any]) -> list[tuple[str, str]]:
    """``(old, new)`` per domain the proposal moves, in order."""
    if kind == "rename_domain":
        return [(str(params["old"]), str(params["new"]))]
    target = str(params["target"])
    return [(str(s), target) for s in params["sources"] if s != target]


def streams(raw: sqlite3.Connection, kind: str, params: dict[str, Any]) -> bool:
    """Whether this proposal is planned streamed (a domain kind over the threshold)."""
    if kind not in DOMAIN_KINDS:
        return False
    try:
        moves = domain_moves(kind, params)
    except (KeyError, TypeError):
        return False
    return sum(domain_stream.domain_sizes(raw, old)[1] for old, _ in moves) > STREAM_MIN_LIVE


def _moves(raw: sqlite3.Connection, era: Era, kind: str, params: dict[str, Any]) -> list[Move]:
    """The counted moves, refusing what the in-memory planner refuses, in its order."""
    require_apply_era(era)
    try:
        check_params(kind, params)
    except ParamError as err:
        raise ConflictError(f"params no longer valid: {err}") from None
    moves: list[Move] = []
    for old, new in domain_moves(kind, params):
        rows, live = domain_stream.domain_sizes(raw, old)
        if not live:
            raise ConflictError(f"domain {old} has no live neurons")
        moves.append(Move(old, new, rows, live))
    return moves


def preview_stream(
    raw: sqlite3.Connection, era: Era, kind: str, params: dict[str, Any], ctx: Ctx
) -> Plan:
    """The streamed plan as a preview shows it: counts, no digest (nothing read)."""
    stream = Stream(tuple(_moves(raw, era, kind, params)), CHUNK_ROWS)
    return Plan(kind, dict(params), ctx.changeset, stream=stream)


def plan_stream(
    raw: sqlite3.Connection,
    era: Era,
    kind: str,
    params: dict[str, Any],
    ctx: Ctx,
    sink: Sink,
    *,
    chunk_rows: int | None = None,
) -> Plan:
    """The streamed plan to apply: every row read once (inside the caller's read
    transaction), each chunk handed to ``sink``, the digest of all of them kept."""
    moves = _moves(raw, era, kind, params)
    size = chunk_rows or CHUNK_ROWS
    cols = domain_stream.neuron_columns(raw)
    at = cols.index("id")
    total = hashlib.blake2b(digest_size=16)
    seen = [0] * len(moves)
    for seq, (index, _first, _last, rows) in enumerate(scan(raw, moves, size)):
        digest = chunk_digest(cols, rows)
        total.update(chunk_line(index, len(rows), digest))
        seen[index] += len(rows)
        sink(seq, index, [r[at] for r in rows], digest)
    if seen != [m.rows for m in moves]:  # only if the caller holds no read transaction
        raise ConflictError("the domain changed while it was being planned; try again")
    stream = Stream(tuple(moves), size, total.hexdigest())
    return Plan(kind, dict(params), ctx.changeset, stream=stream)


def scan(
    raw: sqlite3.Connection, moves: list[Move] | tuple[Move, ...], size: int
) -> Iterator[tuple[int, int, int, list[tuple[Any, ...]]]]:
    """``(move index, first rowid, last rowid, rows)`` chunk by chunk: each move's
    domain in rowid order."""
    for index, move in enumerate(moves):
        for first, last, rows in domain_stream.domain_chunks(raw, move.old, size):
            yield index, first, last, rows


def chunk_digest(cols: tuple[str, ...], rows: list[tuple[Any, ...]]) -> str:
    """The digest of rows' full images, column names included (``repr`` of plain
    SQLite values — text, numbers, ``None``, bytes — is exact and made in C)."""
    h = hashlib.blake2b(repr(cols).encode(), digest_size=16)
    h.update(repr(rows).encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def chunk_line(index: int, n: int, digest: str) -> bytes:
    """One chunk's contribution to a plan's digest."""
    return f"{index}:{n}:{digest}\n".encode()


def _snapshot_values(cols: tuple[str, ...]) -> Callable[[tuple[Any, ...]], list[Any]]:
    """Row tuple → its :data:`~.snapshots.NEURON_FIELDS` values (a missing column —
    Spikuit 0.7 always has them — reads as null, as the in-memory planner's ``get``)."""
    where = [cols.index(name) if name in cols else None for name in snap.NEURON_FIELDS]
    if None not in where:
        get = itemgetter(*where)
        return lambda row: list(get(row))

    def pick(row: tuple[Any, ...]) -> list[Any]:
        return [None if i is None else row[i] for i in where]

    return pick


def update_events(
    cols: tuple[str, ...],
    befores: list[tuple[Any, ...]],
    new: str,
    changeset_id: str,
    first_seq: int,
    at: str,
) -> list[tuple[Any, ...]]:
    """The ``neuron.update`` events of rows moving to domain ``new`` (``event`` tuples
    in :data:`~brainview.store.domain_stream.EVENT_COLUMNS` order), seq from
    ``first_seq``: the event the in-memory planner logs for each row."""
    pick = _snapshot_values(cols)
    at_id = cols.index("id")
    pair = snap.neuron_snapshot_pair_values
    op = snap.OP_NEURON_UPDATE
    out: list[tuple[Any, ...]] = []
    for seq, row in enumerate(befores, first_seq):
        before, after = pair(pick(row), new)
        eid = event_id(changeset_id, seq)
        out.append((eid, changeset_id, seq, op, "neuron", row[at_id], before, after, at))
    return out
