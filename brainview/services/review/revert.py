"""Undoing a decision exactly — in the agent brain and, if it was applied, in the user
brain too.

Exactness over convenience: every row the decision touched must still look the way
the decision left it (its after-image); if anything changed it since — another
decision, the curator firing a reflection, an ``spkt`` edit of a neuron the apply
changed — the undo is refused with a :class:`~brainview.errors.ConflictError` and
nothing is written.

Agent brain (:func:`brainview.store.effects.revert_effects`): every before-image
is written back, newest first, except ``brainview_proposal.version`` (it goes *up*,
so caches see the change; ``status`` is ``pending`` again) and ``sqlite_sequence``
(restored only if nobody inserted a spike since).  The ``brainview_decision`` row
stays with ``undone_at`` / ``undone_by``, as do its ``brainview_effect`` rows.  The
change log stays too: when the decision wrote Spikuit events (a rejection lesson, a
consolidation item), the undo adds an inverse changeset saying what it did
(:func:`brainview.services.audit.agent_log.log_undo`).

User brain (``apply_state = 'applied'``): the applied plan's inverse is executed as a
new changeset tagged ``brainview:undo:<proposal id>`` — rows updated by the apply
get their before-image back (a retired neuron or synapse is live again), rows it
inserted (redirected synapses, lineage, source links) are removed — so every row is
as before the accept, and Spikuit's change log only grows.  The two files follow the
same protocol as an accept: the agent-brain revert and a ``revert`` intent commit
together, then the user brain, then the intent is marked done; a user-brain
conflict at that point re-does the agent-brain half (see
:mod:`brainview.services.apply.runner`).
"""

from __future__ import annotations

import sqlite3
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection

from brainview.core import fsrs_math
from brainview.errors import ConflictError
from brainview.services import text_guard
from brainview.services.apply import hooks, owner
from brainview.services.apply import intent as intents
from brainview.services.apply.execute import check
from brainview.services.apply.plan import UNDO_TAG_PREFIX, ChangesetInfo, Plan
from brainview.services.apply.planner import new_changeset_id, require_apply_era
from brainview.services.apply.runner import carry_out, require_writable_user
from brainview.services.apply.stream_exec import ChunkSource, check_revert
from brainview.services.audit import agent_log
from brainview.services.learnings import apply as learning_apply
from brainview.services.project import Project
from brainview.services.review.units import find_decision, unit_of
from brainview.store import decision_reads
from brainview.store.brain_check import translate_sqlite
from brainview.store.clock_floor import not_before_last
from brainview.store.effects import revert_effects, stored_effects
from brainview.store.rows import driver

UNDOABLE_APPLY_STATES = frozenset({"recorded", "applied", "agent"})
"""``agent``: an agent-brain kind, applied inside the decision (its effects undo it)."""
"""Decisions undo can revert (``applied`` ones in both brains)."""


@dataclass(frozen=True)
class UndoResult:
    """What an undo reverted."""

    decision_id: str
    proposal_id: str
    verdict: str
    rows_restored: int
    undone_at: str
    user_rows_restored: int = 0
    """User-brain rows put back (0 unless the decision had been applied)."""


def undo(
    project: Project, decision_id: str | None = None, *, now: datetime, actor: str
) -> UndoResult:
    """Revert one decision exactly (``None``: the most recent one not undone yet).

    Undoing an applied decision needs the user brain open for writing.  A member of a
    bulk decision is reverted alone; :func:`undo_unit` reverts the whole bulk.
    """
    with project.require_agent().read() as conn:
        peek = find_decision(conn, decision_id)
    return _revert_all(project, [peek], now=now, actor=actor)[0]


def undo_unit(
    project: Project, decision_id: str | None = None, *, now: datetime, actor: str
) -> list[UndoResult]:
    """Revert a decision and every other decision of its bulk (one ``group_id``) in one
    agent-brain transaction, newest first (``None``: the most recent decision's unit).

    All of them or none: if one cannot be reverted, nothing is.
    """
    with project.require_agent().read() as conn:
        peeks = unit_of(conn, decision_id)
    return _revert_all(project, peeks, now=now, actor=actor)


def _revert_all(
    project: Project, peeks: list[dict[str, Any]], *, now: datetime, actor: str
) -> list[UndoResult]:
    """Revert ``peeks`` (newest first) in one agent-brain transaction, then the user
    brain for those that were applied (one batch of revert intents)."""
    text_guard.name("actor", actor)
    agent = project.require_agent()
    plans = {
        str(p["id"]): _applied_plan(project, p) for p in peeks if p["apply_state"] == "applied"
    }
    if any(not plan.empty for plan in plans.values()):  # refused before the agent brain
        with project.user.read() as uconn:
            project.user.refuse_unsafe_schema(uconn)
    batch_id = f"batch-{uuid.uuid4().hex[:12]}"
    done: list[tuple[dict[str, Any], int, intents.Intent | None]] = []
    with owner.holding(batch_id):  # its revert intents are ours until carried out
        with learning_apply.staged(), agent.write() as conn:
            now = not_before_last(conn, now)  # the clock went back? an undo is not older
            undone_at = fsrs_math.format_ts(now)
            for peek in peeks:
                done.append(_revert_one(project, conn, peek, plans, actor, now, batch_id))
            reverts = [revert for _d, _n, revert in done if revert is not None]
            if reverts:
                hooks.step("revert.before_commit")
        if reverts:
            hooks.step("revert.agent_committed")
            carry_out(project, reverts, now=now)
    return [
        UndoResult(
            str(d["id"]),
            str(d["proposal_id"]),
            str(d["verdict"]),
            restored,
            undone_at,
            revert.plan.rows_changed if revert is not None else 0,
        )  # fmt: skip
        for d, restored, revert in done
    ]


def _revert_one(
    project: Project,
    conn: Connection,
    peek: dict[str, Any],
    plans: dict[str, Plan],
    actor: str,
    now: datetime,
    batch_id: str,
) -> tuple[dict[str, Any], int, intents.Intent | None]:
    """One decision's agent-brain revert (and its revert intent), inside the undo's
    transaction: (the decision row, rows restored, the intent or ``None``)."""
    agent = project.require_agent()
    decision = find_decision(conn, str(peek["id"]))
    did = str(decision["id"])
    _check_undoable(decision, peek)
    plan = plans.get(did)
    revert: intents.Intent | None = None
    try:
        if plan is not None:
            revert = _prepare_revert(project, conn, decision, plan, actor, now, batch_id)
        learning_apply.undo_in(conn, did)  # .learnings files first: their rows go next
        restored = revert_effects(conn, did)
        _no_link_to_a_retired_neuron(conn, did)
        pid = str(decision["proposal_id"])
        agent_log.log_undo(conn, agent.era, did, pid, actor=actor, now=now)
    except sqlite3.Error as err:  # raw driver statements: translate, roll back
        raise translate_sqlite(err, agent.path) from None
    decision_reads.mark_undone(conn, did, at=fsrs_math.format_ts(now), by=actor)
    if plan is not None and revert is None:
        intents.set_apply_state(conn, did, "reverted")  # nothing was applied
    return decision, restored, revert


def _no_link_to_a_retired_neuron(conn: Connection, decision_id: str) -> None:
    """Refuse (rolling the undo back) when it would bring a synapse back to life whose
    other end a later decision retired — Spikuit would load that neuron as a node with
    no attributes.  Undo the later decision first."""
    revived = [
        e.key
        for e in stored_effects(conn, decision_id)
        if e.tbl == "synapse"
        and e.before is not None
        and "retired_at" in e.before  # a pre-0.7 brain retires nothing (and has no column)
        and e.before["retired_at"] is None
    ]
    ends = sorted({str(k[end]) for k in revived for end in ("pre", "post")})
    if not ends:
        return
    for gone in decision_reads.retired_neurons(conn, ends):
        raise ConflictError(
            f"cannot undo decision {decision_id}: it would bring back links to "
            f"{gone}, which a later decision retired; undo that one first"
        )


def _check_undoable(decision: dict[str, Any], peek: dict[str, Any]) -> None:
    did = decision["id"]
    if decision["undone_at"] is not None:
        raise ConflictError(
            f"decision {did} was already undone at {decision['undone_at']} "
            f"by {decision['undone_by']}"
        )
    state = decision["apply_state"]
    if state != peek["apply_state"]:
        raise ConflictError(f"decision {did} changed while undoing it ({state}); try again")
    if state == "failed":
        raise ConflictError(
            f"decision {did} could not be applied to the user brain nor rolled back "
            "(apply_state=failed); see its brainview_apply_intent note"
        )
    if state not in UNDOABLE_APPLY_STATES:
        raise ConflictError(
            f"decision {did} is being applied to the user brain (apply_state={state}); "
            "it can be undone once that is finished (brainview recover)"
        )


def _applied_plan(project: Project, decision: dict[str, Any]) -> Plan:
    with project.require_agent().read() as conn:
        found = intents.of_decision(conn, str(decision["id"]), "apply")
    if found is None or found.state != intents.DONE:
        raise ConflictError(f"decision {decision['id']} has no finished apply to revert")
    plan = found.plan
    if not plan.empty:
        require_writable_user(project)
        require_apply_era(project.user.era)
    return plan


def _prepare_revert(
    project: Project,
    conn: Connection,
    decision: dict[str, Any],
    plan: Plan,
    actor: str,
    now: datetime,
    batch_id: str,
) -> intents.Intent | None:
    """Check the user brain still holds what the apply wrote; write the revert intent
    (``batch_id``: one for every revert of one undo)."""
    if plan.empty:
        return None
    pid = str(decision["proposal_id"])
    at = fsrs_math.format_ts(now)
    cs = ChangesetInfo(new_changeset_id(), f"{UNDO_TAG_PREFIX}{pid}", actor, at)
    inverse = plan.inverse(cs)
    with project.user.read() as uconn:
        try:
            if inverse.stream is not None:  # a big domain: its chunks, newest first
                source = ChunkSource(conn, plan.changeset.id)
                check_revert(driver(uconn), inverse, source.get, source.count)
            else:
                check(driver(uconn), inverse)
        except ConflictError as err:
            raise ConflictError(
                f"cannot undo decision {decision['id']}: in the user brain, {err} — it was "
                "changed after the proposal was applied (by spkt or another change); "
                "nothing was undone"
            ) from None
    intents.set_apply_state(conn, str(decision["id"]), "reverting")
    return intents.write(
        conn,
        decision_id=str(decision["id"]),
        proposal_id=pid,
        action="revert",
        plan=inverse,
        state=intents.PENDING,
        created_at=at,
        batch_id=batch_id,
    )
