"""Reflection lifecycle: ``live → challenged → quarantined → invalidated``, and back.

* **challenge** (reason required): a flag only — the reflection is still consulted
  and graded, but shown with a warning (and intake flags proposals that lean on it).
* **quarantine** (reason required): recall never returns it (nor spreads activation
  through it), and nothing else changes — no Spikuit row, no tombstone, its card and
  synapses as they were, still gradable if a proposal names it (intake flags that).
  The cheap, fully reversible "stop using this while we look"; **release** (or
  reinstate) brings it back to live.
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

__all__ = [
    "CHALLENGED",
    "INVALIDATED",
    "LIVE",
    "MARK",
    "MAX_BATCH",
    "MAX_REASON",
    "MISSING",
    "QUARANTINED",
    "RECALLABLE",
    "RETIRED",
    "TARGET",
    "BatchLog",
    "BatchResult",
    "Status",
    "UndoBatchResult",
    "challenge",
    "invalidate",
    "quarantine",
    "reinstate",
    "release",
    "run_batch",
    "status_of",
    "statuses",
    "undo_batch",
]

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

import brainview.services.audit.agent_log as agent_log
import brainview.services.lifecycle.tombstones as tombstones
from brainview.core import fsrs_math
from brainview.core.suspicion import MARK
from brainview.errors import ConflictError, InvalidInputError, NotFoundError
from brainview.services import text_guard
from brainview.services.lifecycle.states import (
    CHALLENGED,
    INVALIDATED,
    LIVE,
    MAX_BATCH,
    MAX_REASON,
    MISSING,
    NO_REASON,
    QUARANTINED,
    RECALLABLE,
    RETIRED,
    TARGET,
    Status,
    status_of,
    statuses,
)
from brainview.services.lifecycle.undo import UndoBatchResult, undo_batch
from brainview.services.project import Project
from brainview.store import lifecycle_log
from brainview.store.bv_schema_lifecycle import BatchLog, ensure_lifecycle_schema
from brainview.store.era import Era
from brainview.store.lifecycle_rows import (
    Changeset,
    retire_neuron,
    unretire_neuron,
    unretire_synapses,
)


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
    held_vote: str | None = None
    """The two-person rule held the batch: nothing changed, this vote (``apv-…``) waits
    for a second, different person (``batch_id`` is then that vote's id, not a batch:
    there is nothing to undo; the vote is withdrawn instead)."""


def _check(verb: str, ids: Sequence[str], reason: str | None, actor: str) -> tuple[list[str], str]:
    if verb not in TARGET:
        raise InvalidInputError(f"unknown lifecycle action {verb!r}")
    unique = list(dict.fromkeys(ids))
    if not unique or not all(isinstance(r, str) and r for r in unique):
        raise InvalidInputError("give at least one reflection id")
    if len(unique) > MAX_BATCH:
        raise InvalidInputError(f"{len(unique)} reflections exceed the limit of {MAX_BATCH}")
    why = (reason or "").strip()
    if verb not in NO_REASON and not why:
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
        moves = [(r, TARGET[verb]) for r, _f in plan]
        lifecycle_log.record_moves(conn, batch_id, moves, why=why, actor=actor, at=at)
        log.flush()
        lifecycle_log.insert_batch(
            conn, batch_id, verb, actor=actor, at=at, why=why,
            n_reflections=len(plan), n_proposals=len(flagged),
        )  # fmt: skip
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
    """Back to live: undo a challenge or a quarantine, or un-retire what an
    invalidation retired."""
    return run_batch(project, "reinstate", ids, reason=reason, actor=actor, now=now)


def quarantine(
    project: Project, ids: Sequence[str], *, reason: str, actor: str, now: datetime
) -> BatchResult:
    """Never recalled again until released; every row and its history kept."""
    return run_batch(project, "quarantine", ids, reason=reason, actor=actor, now=now)


def release(
    project: Project, ids: Sequence[str], *, reason: str = "", actor: str, now: datetime
) -> BatchResult:
    """Quarantined → live (recalled again)."""
    return run_batch(project, "release", ids, reason=reason, actor=actor, now=now)


# -- inside the transaction ------------------------------------------------------------

_FROM = {
    "challenge": (LIVE,),
    "quarantine": (LIVE, CHALLENGED),
    "invalidate": (LIVE, CHALLENGED, QUARANTINED, RETIRED),
    "reinstate": (CHALLENGED, QUARANTINED, INVALIDATED),
    "release": (QUARANTINED,),
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
    """The row changes of a verb (challenge, quarantine and release change no Spikuit
    row: the lifecycle log alone says where the reflection stands)."""
    if verb in ("challenge", "quarantine", "release") or not ids:
        return 0
    cs = Changeset(log, era, f"brainview.{verb}", actor, at, snapshots=agent_log.SNAPSHOTS)
    synapses = 0
    if verb == "invalidate":
        for rid in ids:
            synapses += retire_neuron(log, era, cs, rid, at)
            content, domain = lifecycle_log.neuron_text(log.conn, rid)
            tombstones.bury(log, rid, content, domain, why, at)
    else:
        for rid in ids:
            unretire_neuron(log, cs, rid)
            tombstones.lift(log, rid, at)
        synapses = unretire_synapses(log, era, cs, ids)
    cs.close()
    return synapses
