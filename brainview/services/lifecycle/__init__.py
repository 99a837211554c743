"""Reflection lifecycle: ``live → challenged → invalidated``, and ``reinstate``.

* **challenge** (reason required): a flag only — the reflection is still consulted
  and graded, but shown with a warning (and intake flags proposals that lean on it).
* **invalidate** (reason required): soft-retire it the Spikuit way — ``retired_at`` on
  the neuron and on its live synapses (as ``Circuit.remove_neuron`` does, with a
  ``changeset`` and ``neuron.retire`` / ``synapse.retire`` events where the era keeps
  them), so Spikuit stops using it too; its text becomes a tombstone.  History stays.
* **reinstate**: back to live; un-retires only what an invalidation retired (rows
  retired by anything else stay retired), lifts the tombstone.

Every call is one ``BEGIN IMMEDIATE`` transaction and one **batch** (one id for the
whole bulk action): a ``brainview_lifecycle`` row per reflection (actor, at, reason,
batch id), a ``brainview_lifecycle_batch`` row, and the before-images of every row it
changed, so :func:`undo_batch` reverts the whole batch exactly (or refuses when a
row changed since).  An undo is a batch too, so the history reads back completely;
Spikuit's change log is never undone, only added to: the undo writes its own
``brainview.undo`` changeset (:mod:`brainview.services.audit.agent_log`).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, text

from brainview.core import fsrs_math
from brainview.errors import ConflictError, InvalidInputError, NotFoundError
from brainview.services import text_guard
from brainview.services.audit import agent_log
from brainview.services.lifecycle import tombstones
from brainview.services.project import Project
from brainview.store.bv_schema_lifecycle import BatchLog, ensure_lifecycle_schema, revert
from brainview.store.era import Era
from brainview.store.lifecycle_rows import (
    Changeset,
    retire_neuron,
    unretire_neuron,
    unretire_synapses,
)
from brainview.store.readmodel import neurons_by_ids, table_exists

LIVE, CHALLENGED, INVALIDATED, RETIRED = "live", "challenged", "invalidated", "retired"
MISSING = "missing"
"""What a screen shows for a reflection that is no longer in the brain at all."""
TARGET = {"challenge": CHALLENGED, "invalidate": INVALIDATED, "reinstate": LIVE}
"""Verb → the state it leads to."""
MARK = {
    LIVE: "● live",
    CHALLENGED: "⚠ challenged",
    INVALIDATED: "⊘ invalidated",
    RETIRED: "⊘ retired",
}
"""State labels that never rely on colour alone."""
MAX_REASON = 10_000
MAX_BATCH = 50_000


@dataclass(frozen=True)
class Status:
    """Where one agent-brain neuron stands."""

    reflection_id: str
    state: str
    reason: str = ""
    actor: str | None = None
    at: str | None = None
    batch_id: str | None = None
    retired_at: str | None = None


@dataclass(frozen=True)
class BatchResult:
    """What one lifecycle batch did."""

    batch_id: str
    verb: str
    at: str
    changed: list[tuple[str, str, str]]
    """``(reflection_id, from_state, to_state)``."""
    unchanged: list[tuple[str, str]] = field(default_factory=list)
    """``(reflection_id, why)`` for ids left as they were."""
    flagged: list[str] = field(default_factory=list)
    """Pending proposals flagged stale-by-suspicion."""
    synapses: int = 0
    """Synapse rows retired (invalidate) or restored (reinstate)."""


def statuses(conn: Connection, era: Era, ids: Sequence[str]) -> dict[str, Status]:
    """Current status of each existing id (unknown ids are absent)."""
    found = neurons_by_ids(conn, era, list(ids))
    latest: dict[str, tuple[str, str, str, str, str | None]] = {}
    if found and table_exists(conn, "brainview_lifecycle"):
        keys = list(found)
        raw = conn.connection.driver_connection  # many ids: plain ? placeholders
        for start in range(0, len(keys), 400):
            chunk = keys[start : start + 400]
            marks = ",".join("?" * len(chunk))
            for rid, state, reason, actor, at, batch in raw.execute(  # type: ignore[union-attr]
                "SELECT reflection_id, state, reason, actor, at, batch_id FROM "
                f"brainview_lifecycle WHERE reflection_id IN ({marks}) ORDER BY id",
                chunk,
            ):
                latest[rid] = (state, reason, actor, at, batch)
    out: dict[str, Status] = {}
    for rid, n in found.items():
        state, reason, actor, at, batch = latest.get(rid, (LIVE, "", None, None, None))
        if n.retired_at is not None and state != INVALIDATED:
            state = RETIRED
        out[rid] = Status(rid, state, reason, actor, at, batch, n.retired_at)
    return out


def status_of(project: Project, rid: str) -> Status:
    """One reflection's status (NotFoundError when it does not exist)."""
    agent = project.require_agent()
    with agent.read() as conn:
        found = statuses(conn, agent.era, [rid])
    if rid not in found:
        raise NotFoundError(f"no reflection {rid!r} in the agent brain")
    return found[rid]


def _check(verb: str, ids: Sequence[str], reason: str | None, actor: str) -> tuple[list[str], str]:
    if verb not in TARGET:
        raise InvalidInputError(f"unknown lifecycle action {verb!r}")
    unique = list(dict.fromkeys(ids))
    if not unique or not all(isinstance(r, str) and r for r in unique):
        raise InvalidInputError("give at least one reflection id")
    if len(unique) > MAX_BATCH:
        raise InvalidInputError(f"{len(unique)} reflections exceed the limit of {MAX_BATCH}")
    why = (reason or "").strip()
    if verb != "reinstate" and not why:
        raise InvalidInputError(f"a reason is required to {verb}")
    if len(why) > MAX_REASON:
        raise InvalidInputError(f"reason must be at most {MAX_REASON} characters")
    text_guard.text("reason", why, max_len=MAX_REASON)
    text_guard.name("actor", actor)
    return unique, why


Extra = Callable[[BatchLog, list[str]], list[str]]
"""Runs inside a batch's transaction with the ids that changed; returns proposals flagged."""


def run_batch(
    project: Project,
    verb: str,
    ids: Sequence[str],
    *,
    reason: str | None,
    actor: str,
    now: datetime,
    extra: Extra | None = None,
) -> BatchResult:
    """One lifecycle batch: ``verb`` on every id, all or nothing (``extra`` adds more row
    changes to the same batch, e.g. suspicion flags).  Ids already in the target state
    are reported in ``unchanged``; when nothing would change, ConflictError, no batch."""
    unique, why = _check(verb, ids, reason, actor)
    agent = project.require_agent()
    at = fsrs_math.format_ts(now)
    batch_id = f"lcb-{uuid.uuid4().hex[:12]}"
    with agent.write() as conn:
        ensure_lifecycle_schema(conn)
        current = statuses(conn, agent.era, unique)
        missing = [r for r in unique if r not in current]
        if missing:
            raise NotFoundError(f"no reflection {missing[0]!r} in the agent brain")
        if verb == "invalidate" and not agent.era.has_retire:
            raise ConflictError(
                "this agent brain has no retired_at (Spikuit < 0.7): challenge instead"
            )
        log = BatchLog(conn, batch_id)
        plan, unchanged = _plan(verb, [current[r] for r in unique])
        synapses = _apply(log, agent.era, verb, [r for r, _f in plan], why, actor, at)
        flagged = extra(log, [r for r, _f in plan]) if extra is not None else []
        if not plan and not flagged:
            what = "; ".join(f"{r} {w}" for r, w in unchanged[:3])
            raise ConflictError(f"nothing to change: {what}")
        _record(conn, batch_id, [(r, TARGET[verb]) for r, _f in plan], why, actor, at)
        log.flush()
        _batch_row(conn, batch_id, verb, actor, at, why, len(plan), len(flagged))
    changed = [(r, f, TARGET[verb]) for r, f in plan]
    return BatchResult(batch_id, verb, at, changed, unchanged, flagged, synapses)


def challenge(
    project: Project, ids: Sequence[str], *, reason: str, actor: str, now: datetime
) -> BatchResult:
    """Flag reflections for review (still consulted, shown with a warning)."""
    return run_batch(project, "challenge", ids, reason=reason, actor=actor, now=now)


def invalidate(
    project: Project,
    ids: Sequence[str],
    *,
    reason: str,
    actor: str,
    now: datetime,
) -> BatchResult:
    """Soft-retire reflections (never consulted again); history and text are kept."""
    return run_batch(project, "invalidate", ids, reason=reason, actor=actor, now=now)


def reinstate(
    project: Project, ids: Sequence[str], *, reason: str = "", actor: str, now: datetime
) -> BatchResult:
    """Back to live: undo a challenge, or un-retire what an invalidation retired."""
    return run_batch(project, "reinstate", ids, reason=reason, actor=actor, now=now)


@dataclass(frozen=True)
class UndoBatchResult:
    """What undoing a batch reverted."""

    batch_id: str
    undo_batch_id: str
    action: str
    reflections: list[str]
    rows_restored: int
    at: str


def undo_batch(
    project: Project, batch_id: str | None = None, *, actor: str, now: datetime
) -> UndoBatchResult:
    """Revert a whole batch exactly (``None``: the most recent one not undone yet)."""
    text_guard.name("actor", actor)
    agent = project.require_agent()
    at = fsrs_math.format_ts(now)
    undo_id = f"lcb-{uuid.uuid4().hex[:12]}"
    with agent.write() as conn:
        ensure_lifecycle_schema(conn)
        batch = _find_batch(conn, batch_id)
        bid = str(batch["id"])
        if batch["action"] == "undo":
            raise ConflictError(f"{bid} is itself an undo; do the action again instead")
        if batch["undone_at"] is not None:
            raise ConflictError(
                f"{bid} was already undone at {batch['undone_at']} by {batch['undone_by']}"
            )
        previous = _previous_states(conn, bid)
        reverted = revert(conn, bid)
        log = BatchLog(conn, undo_id)
        agent_log.log_lifecycle_undo(log, agent.era, bid, reverted, actor=actor, at=at)
        log.flush()
        why = f"undo of {bid}"
        _record(conn, undo_id, list(previous.items()), why, actor, at)
        _batch_row(conn, undo_id, "undo", actor, at, why, len(previous), 0, undoes=bid)
        conn.execute(
            text(
                "UPDATE brainview_lifecycle_batch SET undone_at = :at, undone_by = :by "
                "WHERE id = :i"
            ),
            {"at": at, "by": actor, "i": bid},
        )
    return UndoBatchResult(bid, undo_id, str(batch["action"]), list(previous), len(reverted), at)


# -- inside the transaction ------------------------------------------------------------

_FROM = {
    "challenge": (LIVE,),
    "invalidate": (LIVE, CHALLENGED, RETIRED),
    "reinstate": (CHALLENGED, INVALIDATED),
}


def _plan(verb: str, current: list[Status]) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """Which ids move (with their state now) and which stay, with why."""
    moving: list[tuple[str, str]] = []
    staying: list[tuple[str, str]] = []
    for st in current:
        if st.state in _FROM[verb]:
            moving.append((st.reflection_id, st.state))
        else:
            staying.append((st.reflection_id, f"is {st.state}"))
    return moving, staying


def _apply(
    log: BatchLog, era: Era, verb: str, ids: list[str], why: str, actor: str, at: str
) -> int:
    """The row changes of a verb (challenge changes no Spikuit row)."""
    if verb == "challenge" or not ids:
        return 0
    cs = Changeset(log, era, f"brainview.{verb}", actor, at, snapshots=agent_log.SNAPSHOTS)
    synapses = 0
    if verb == "invalidate":
        for rid in ids:
            synapses += retire_neuron(log, era, cs, rid, at)
            row = log.conn.execute(
                text("SELECT content, domain FROM neuron WHERE id = :r"), {"r": rid}
            ).one()
            tombstones.bury(log, rid, str(row[0] or ""), row[1], why, at)
    else:
        for rid in ids:
            unretire_neuron(log, cs, rid)
            tombstones.lift(log, rid, at)
        synapses = unretire_synapses(log, era, cs, ids)
    cs.close()
    return synapses


def _record(
    conn: Connection, batch_id: str, moves: list[tuple[str, str]], why: str, actor: str, at: str
) -> None:
    if moves:
        conn.execute(
            text(
                "INSERT INTO brainview_lifecycle (reflection_id, state, reason, actor, at, "
                "batch_id) VALUES (:r, :s, :why, :actor, :at, :b)"
            ),
            [
                {"r": r, "s": s, "why": why, "actor": actor, "at": at, "b": batch_id}
                for r, s in moves
            ],
        )


def _batch_row(
    conn: Connection,
    batch_id: str,
    action: str,
    actor: str,
    at: str,
    why: str,
    n_reflections: int,
    n_proposals: int,
    *,
    undoes: str | None = None,
) -> None:
    conn.execute(
        text(
            "INSERT INTO brainview_lifecycle_batch (id, action, actor, at, reason, "
            "n_reflections, n_proposals, undoes) VALUES (:id, :a, :actor, :at, :why, :nr, :np, :u)"
        ),
        {"id": batch_id, "a": action, "actor": actor, "at": at, "why": why}
        | {"nr": n_reflections, "np": n_proposals, "u": undoes},
    )


def _find_batch(conn: Connection, batch_id: str | None) -> dict[str, Any]:
    if batch_id is None:
        sql = (
            "SELECT * FROM brainview_lifecycle_batch WHERE undone_at IS NULL AND action != 'undo' "
            "ORDER BY at DESC, rowid DESC LIMIT 1"
        )
        row = conn.execute(text(sql)).mappings().first()
        if row is None:
            raise NotFoundError("no lifecycle action left to undo")
        return dict(row)
    row = (
        conn.execute(
            text("SELECT * FROM brainview_lifecycle_batch WHERE id = :id"), {"id": batch_id}
        )
        .mappings()
        .first()
    )
    if row is None:
        raise NotFoundError(f"no lifecycle batch {batch_id!r}")
    return dict(row)


def _previous_states(conn: Connection, batch_id: str) -> dict[str, str]:
    """Each reflection's state before the batch; refuses if a later batch moved one."""
    out: dict[str, str] = {}
    rows = conn.execute(
        text("SELECT id, reflection_id FROM brainview_lifecycle WHERE batch_id = :b ORDER BY id"),
        {"b": batch_id},
    ).fetchall()
    for row_id, rid in rows:
        later = conn.execute(
            text(
                "SELECT batch_id FROM brainview_lifecycle WHERE reflection_id = :r AND id > :i "
                "ORDER BY id LIMIT 1"
            ),
            {"r": rid, "i": row_id},
        ).first()
        if later is not None:
            raise ConflictError(
                f"cannot undo {batch_id}: {rid} was changed since by {later[0]}; undo that first"
            )
        prev = conn.execute(
            text(
                "SELECT state FROM brainview_lifecycle WHERE reflection_id = :r AND id < :i "
                "ORDER BY id DESC LIMIT 1"
            ),
            {"r": rid, "i": row_id},
        ).first()
        out[str(rid)] = str(prev[0]) if prev else LIVE
    return out
