"""Carrying out intents: the user-brain half of a decision (or of its undo).

The agent brain already holds the decision and a ``pending`` intent (one commit).
Here, in order:

1. **User brain**, one ``BEGIN IMMEDIATE`` for all intents written together: skip an
   intent whose changeset is already there (idempotent: a crash after step 1 is
   harmless); for an ``apply``, recompute its plan against the rows as they are now
   and require it to be byte-for-byte the plan recorded with the decision; execute
   it (rows + changeset + events).  A streamed plan (a big domain) is checked against
   its recorded digest and written chunk by chunk instead (:mod:`.stream_exec`), in
   the same transaction.  Commit.
2. **Agent brain**: mark the intents ``done`` (``apply_state`` = ``applied`` /
   ``reverted``).

If step 1 finds the brain changed (ConflictError), nothing was written there, and
the agent-brain half is undone instead (``rolled_back``): an accept's decision is
reverted exactly — grades, spikes, cards, STDP, proposal back to pending; an undo's
agent-side revert is re-done.  If even that cannot be done exactly, the intents are
marked ``failed`` for a person to look at.  Any other error (a locked brain) leaves
the intents pending for :func:`recover`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import Connection

from brainview.core import fsrs_math
from brainview.errors import ConflictError, LockedError, ReadOnlyError, UnsafeSchemaError
from brainview.services.apply import hooks, owner, stream_exec
from brainview.services.apply import intent as intents
from brainview.services.apply.execute import changeset_exists, describe_row, execute
from brainview.services.apply.plan import Plan
from brainview.services.apply.planner import build_plan, require_apply_era
from brainview.services.apply.stream_exec import ChunkSource
from brainview.services.apply.view import Ctx, UserView
from brainview.services.project import Project
from brainview.store.apply_intents import clear_decision_undone, mark_decision_undone
from brainview.store.domain_stream import roomy_cache
from brainview.store.effects import reapply_effects, revert_effects
from brainview.store.era import Era
from brainview.store.rows import driver

ROLLBACK_ACTOR = "brainview (rollback)"


@dataclass(frozen=True)
class Outcome:
    """What happened to one intent."""

    decision_id: str
    proposal_id: str
    action: str
    state: str
    """``done``, ``already`` (found in the user brain), ``rolled_back`` or ``failed``."""
    note: str | None = None


def require_writable_user(project: Project) -> None:
    """Applying needs the user brain open for writing."""
    if not project.user.writable:
        raise ReadOnlyError(
            f"the user brain is open read-only ({project.user.path}): open it writable to "
            "apply accepted proposals, or set review.record_only = true"
        )


def _difference(stored: Plan, fresh: Plan) -> str:
    for old, new in zip(stored.changes, fresh.changes, strict=False):
        if old != new:
            return f"{describe_row(old)} changed"
    if len(stored.changes) != len(fresh.changes):
        return "the set of rows to change is different now"
    return "its change log would differ"


def _run_user(project: Project, batch: Sequence[intents.Intent]) -> list[bool]:
    """Step 1; returns, per intent, whether it was executed now."""
    era = project.user.era
    require_apply_era(era)
    action = batch[0].action
    done: list[bool] = []
    try:
        with project.user.write() as uconn:
            _run_all(project, uconn, batch, era, done)
    except sqlite3.IntegrityError as err:  # a constraint Spikuit's schema does not have
        raise ConflictError(f"the user brain refused the change ({_first_line(err)})") from None
    except UnsafeSchemaError as err:  # planted after the decision was recorded
        raise ConflictError(str(err).split(";")[0]) from None
    hooks.step(f"{action}.user_committed")
    return done


def _first_line(err: BaseException) -> str:
    text = str(err).splitlines()[0] if str(err) else type(err).__name__
    return text[:200]


def _run_all(
    project: Project, uconn: Connection, batch: Sequence[intents.Intent], era: Era, done: list[bool]
) -> None:
    """Step 1's work inside the user brain's transaction (appends to ``done``)."""
    action = batch[0].action
    raw = driver(uconn)
    for it in batch:
        plan = it.plan
        if plan.stream is not None:
            done.append(_run_stream(project, raw, it, plan))
            continue
        if it.action == "apply" and not changeset_exists(raw, plan.changeset.id):
            now = fsrs_math.parse_ts(it.planned_at)
            fresh = build_plan(UserView(raw, era), plan.kind, plan.params, Ctx(now, plan.changeset))
            if fresh.to_json() != it.plan_json:
                raise ConflictError(
                    f"the user brain changed since proposal {it.proposal_id} was accepted "
                    f"({_difference(plan, fresh)})"
                )
        done.append(execute(raw, plan, mid_step=f"{action}.user_mid_txn"))


def _run_stream(project: Project, raw: sqlite3.Connection, it: intents.Intent, plan: Plan) -> bool:
    """A streamed plan, chunk by chunk, in the caller's transaction (:mod:`.stream_exec`)."""
    with roomy_cache(raw):
        if it.action == "apply":
            return stream_exec.apply_stream(raw, plan, what=f"proposal {it.proposal_id}")
        assert plan.stream is not None and plan.stream.revert_of is not None
        with project.require_agent().read() as aconn:  # a read: never waits on the writer
            source = ChunkSource(aconn, plan.stream.revert_of)
            return stream_exec.revert_stream(raw, plan, source.get, source.count)


def carry_out(
    project: Project, batch: Sequence[intents.Intent], *, now: datetime | None = None
) -> list[Outcome]:
    """Steps 1 and 2 for intents written together (one action); see the module doc.

    Raises ConflictError after rolling back, LockedError when a brain stays busy.
    """
    if not batch:
        return []
    require_writable_user(project)
    at = fsrs_math.format_ts(now or datetime.now(UTC))
    with owner.holding(batch[0].batch_id or batch[0].id):
        return _carry_out(project, batch, at)


def _carry_out(project: Project, batch: Sequence[intents.Intent], at: str) -> list[Outcome]:
    try:
        executed = _run_user(project, batch)
    except ConflictError as err:
        outcomes = roll_back(project, batch, str(err), at)
        verb = "the accept" if batch[0].action == "apply" else "the undo"
        raise ConflictError(
            f"{err}; nothing was changed in the user brain and {verb} was "
            f"{'rolled back' if outcomes[0].state == intents.ROLLED_BACK else 'NOT rolled back'}"
        ) from None
    except LockedError as err:
        raise LockedError(
            f"{err} — the decision is recorded and its user-brain change is pending; "
            "it is finished on the next start (brainview recover)"
        ) from None
    with project.require_agent().write() as aconn:
        for it in batch:
            intents.finish(aconn, it, intents.DONE, at)
    hooks.step(f"{batch[0].action}.done")
    return [
        Outcome(it.decision_id, it.proposal_id, it.action, "done" if new else "already")
        for it, new in zip(batch, executed, strict=True)
    ]


def roll_back(
    project: Project, batch: Sequence[intents.Intent], reason: str, at: str
) -> list[Outcome]:
    """Undo the agent-brain half of intents whose user-brain half cannot be done."""
    agent = project.require_agent()
    try:
        with agent.write() as aconn:
            for it in reversed(batch):
                if it.action == "apply":
                    revert_effects(aconn, it.decision_id, what="roll back")
                    mark_decision_undone(aconn, it.decision_id, at, ROLLBACK_ACTOR)
                else:
                    reapply_effects(aconn, it.decision_id)
                    clear_decision_undone(aconn, it.decision_id)
                intents.finish(aconn, it, intents.ROLLED_BACK, at, reason)
        state = intents.ROLLED_BACK
    except ConflictError as err:
        with agent.write() as aconn:
            for it in batch:
                intents.finish(aconn, it, intents.FAILED, at, f"{reason}; {err}")
        state = intents.FAILED
    return [Outcome(it.decision_id, it.proposal_id, it.action, state, reason) for it in batch]


def recover(
    project: Project, *, now: datetime | None = None, roll_back_all: bool = False
) -> list[Outcome]:
    """Finish or roll back every intent left pending — by a crash, or a busy brain —
    except those another live process is carrying out right now (:mod:`.owner`); run
    at start, needs both brains writable when there is something to do.  Returns what
    happened to each, oldest first; a batch that had to be rolled back is reported, not
    raised.  ``roll_back_all`` (``brainview recover --roll-back``) rolls back every
    batch whose user-brain half is not already there instead of carrying it out."""
    agent = project.require_agent()
    with agent.read() as aconn:
        pending = intents.pending(aconn)
    clock = now or datetime.now(UTC)
    batches: dict[str, list[intents.Intent]] = {}
    for it in pending:
        batches.setdefault(it.batch_id or it.id, []).append(it)
    for key, batch in list(batches.items()):  # someone alive is carrying it out
        if any(owner.in_flight_elsewhere(key, it.owner, it.created_at, clock) for it in batch):
            del batches[key]
    outcomes: list[Outcome] = []
    for batch in batches.values():
        if roll_back_all and not _all_in_user_brain(project, batch):
            at = fsrs_math.format_ts(clock)
            outcomes += roll_back(project, batch, "rolled back by brainview recover", at)
            continue
        try:
            outcomes += carry_out(project, batch, now=now)
        except ConflictError as err:
            with agent.read() as aconn:
                states = {it.id: intents.state_of(aconn, it.id) for it in batch}
            outcomes += [
                Outcome(it.decision_id, it.proposal_id, it.action, states[it.id], str(err))
                for it in batch
            ]
    return outcomes


def _all_in_user_brain(project: Project, batch: Sequence[intents.Intent]) -> bool:
    """Whether every intent's changeset is in the user brain already (done, not yet
    marked): those are finished, never rolled back."""
    with project.user.read() as uconn:
        raw = driver(uconn)
        return all(
            it.plan.stream is None and changeset_exists(raw, it.plan.changeset.id) for it in batch
        )


def open_intents(project: Project) -> int:
    """How many intents wait for :func:`recover` (0 without an agent brain)."""
    if project.agent is None:
        return 0
    with project.agent.read() as aconn:
        return len(intents.pending(aconn))
