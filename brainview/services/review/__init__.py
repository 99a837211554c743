"""Deciding curator proposals: one atomic agent-brain transaction per call.

A decision (:func:`decide`, :func:`decide_many`, :func:`dismiss`) does, inside one
``BEGIN IMMEDIATE`` transaction on the agent brain:

1. **Claim** the proposal: ``UPDATE … SET status = 'accepted'|'rejected'|'dismissed',
   version = version + 1 WHERE id = … AND status = 'pending'``.  Zero rows means
   somebody else decided it first → :class:`~brainview.errors.ConflictError` (or
   :class:`~brainview.errors.NotFoundError` for an unknown id), and nothing is written.
2. On **accept**, the user-brain gate (:class:`~brainview.services.apply.gate.
   AcceptGate`): a stale proposal is refused (ConflictError naming the reason); when
   applying, the change is planned (the preview's code) and an **intent** row is
   written — the first half of the two-file protocol.
3. **Record** a ``brainview_decision`` row (``apply_state``: ``recorded``,
   ``pending`` — the intent is open — or ``applied`` when there is nothing to apply).
4. **Grade** every *consulted* reflection (``brainview_consult.role = 'consulted'``)
   with :func:`brainview.core.grading.grade_for`: a ``spike`` row (``session_id`` =
   the decision id, ``notes`` = ``brainview:<proposal id>``) and, where the era keeps
   cards in ``fsrs_state``, the reviewed card.  In the ``tutor`` and ``replay`` eras
   only the spike row is written.  Retrieved-only reflections, annotations and
   retired or missing reflections get nothing; a **dismissal** grades nobody.
   ``brainview_grade`` rows link decision, reflection, stance, grade and spike id.
5. **STDP** (contracts §4) between the graded reflections, in consulted order, all
   at ``now`` (details: :func:`brainview.store.writers.write_stdp`); ``stdp=False``
   leaves every weight alone (an experiment's switch, ``brainview simulate``).
6. On **reject** (unless ``write_reflections=False`` or the project paused reflection
   writing, :mod:`brainview.services.lifecycle.writing`), a new reflection recording
   the lesson, linked ``relates_to`` (both ways, 0.5) to every live consulted reflection,
   with its card and one ``changeset`` (``neuron.add``, ``synapse.add`` per link;
   :mod:`brainview.services.audit.agent_log`).
   On **accept** of an agent-brain kind (a consolidation item: prune, decay, policy),
   its change is written to the agent brain here, through the same effect log
   (``apply_state = 'agent'``; :mod:`brainview.services.consolidate.apply_agent`).
   On **accept** of a ``learning_tier`` (a ``.learnings`` tier move), the Markdown files
   and the tier row are written here too (``apply_state = 'agent'``;
   :mod:`brainview.services.learnings.apply`); the files are put back if the
   transaction fails.
7. An **effect log** of every changed row (:mod:`brainview.store.effects`), so
   :func:`~brainview.services.review.revert.undo` is exact.

Then, when applying, the user-brain change runs in its own transaction and the
intent is marked done (:mod:`brainview.services.apply.runner`); a crash anywhere is
repaired by :func:`brainview.services.apply.recover` at the next start.  Pass
``applier=apply.applier_for(paths)`` (``None`` in record-only mode) and open the
project with ``write_user=True``.  Any other callable ``applier(project, result)``
is called after the commit with the decision left ``pending`` (a seam for curators
that apply changes themselves).

FSRS: the default scheduler is ``fsrs.Scheduler()`` — Spikuit's own, fuzzing on.
Pass ``scheduler=Scheduler(enable_fuzzing=False)`` for bit-exact reproducibility.
``skip`` is a UI matter and writes nothing.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Collection, Sequence
from contextlib import nullcontext
from dataclasses import replace
from datetime import datetime
from typing import Any

from fsrs import Scheduler

from brainview.services.apply import hooks, owner
from brainview.services.apply.gate import AcceptGate
from brainview.services.apply.mode import UserBrainApplier
from brainview.services.apply.runner import require_writable_user
from brainview.services.apply.stale import QueuedRef, stale_for
from brainview.services.learnings import apply as learning_apply
from brainview.services.lifecycle import writing
from brainview.services.project import Project
from brainview.services.review.call import (
    APPLY_PENDING,
    APPLY_RECORDED,
    Verdict,
    options,
)
from brainview.services.review.call import policy_text as checked_policy_text
from brainview.services.review.flags import refuse_unconfirmed
from brainview.services.review.one import (
    APPLY_AGENT,
    APPLY_APPLIED,
    REFLECTION_LINK_WEIGHT,
    DecisionResult,
    decide_in,
    only_agent_kinds,
)
from brainview.services.review.revert import UndoResult, undo, undo_unit
from brainview.services.review.units import group_decisions
from brainview.store.brain_check import translate_sqlite
from brainview.store.clock_floor import not_before_last
from brainview.store.decision_rows import (
    latest_decision,
    latest_undone,
    pending_count,
    rejection_text,
)
from brainview.store.rows import fetch_row

__all__ = [
    "APPLY_AGENT",
    "APPLY_APPLIED",
    "APPLY_PENDING",
    "APPLY_RECORDED",
    "REFLECTION_LINK_WEIGHT",
    "Applier",
    "DecisionResult",
    "UndoResult",
    "decide",
    "decide_many",
    "dismiss",
    "latest_decision",
    "latest_undone",
    "pending_count",
    "rejection_text",
    "undo",
    "undo_unit",
]

Applier = Callable[[Project, DecisionResult], None]
"""Applies an accepted decision to the user brain (after the agent commit)."""


# -- public API -------------------------------------------------------------------------


def decide(
    project: Project,
    proposal_id: str,
    verdict: Verdict,
    *,
    reason: str | None = None,
    decider: str,
    seconds_on_screen: float | None = None,
    now: datetime,
    write_reflections: bool = True,
    scheduler: Scheduler | None = None,
    annotate_grade: int | None = None,
    applier: Applier | UserBrainApplier | None = None,
    policy_text: str | None = None,
    stdp: bool = True,
) -> DecisionResult:
    """Accept, reject or dismiss one pending proposal, atomically (module docstring).

    ``policy_text`` replaces the draft of a ``summarize_community`` proposal being
    accepted (the maintainer's edit); the proposal keeps the draft as ``params.draft``.

    Raises ConflictError (already decided, not pending, stale on accept, cannot be
    applied), NotFoundError (unknown id, no agent brain), InvalidInputError (bad
    verdict or reason), ReadOnlyError, LockedError.  Nothing is written when it
    raises — except a LockedError on the user brain *after* the decision committed,
    which says so (the change is then finished by ``recover``).
    """
    return decide_many(
        project,
        [proposal_id],
        verdict,
        reason=reason,
        decider=decider,
        seconds_on_screen=seconds_on_screen,
        now=now,
        write_reflections=write_reflections,
        scheduler=scheduler,
        annotate_grade=annotate_grade,
        applier=applier,
        policy_text=policy_text,
        stdp=stdp,
    )[0]


def decide_many(
    project: Project,
    ids: Sequence[str],
    verdict: Verdict,
    *,
    reason: str | None = None,
    decider: str,
    seconds_on_screen: float | None = None,
    now: datetime,
    write_reflections: bool = True,
    scheduler: Scheduler | None = None,
    annotate_grade: int | None = None,
    applier: Applier | UserBrainApplier | None = None,
    policy_text: str | None = None,
    confirmed_flags: Collection[str] | None = None,
    stdp: bool = True,
    inside: Callable[[Any], None] | None = None,
) -> list[DecisionResult]:
    """Decide several proposals in **one** transaction: all of them or none.

    ``inside(conn)`` runs first inside that transaction and may refuse it (raise): the
    two-person rule re-reads there that the first person's vote still stands.

    They are decided in the given order (repeats ignored), each with its own decision
    id and effect log, and share one ``group_id``: :func:`undo_unit` reverts the bulk
    as one unit (:func:`undo` still reverts one decision).  Later decisions see the
    spikes of earlier ones (STDP co-fires across the batch, Δt = 0) and, when
    applying, the user-brain changes of earlier ones.  If any proposal is not pending
    (or, on accept, is stale or cannot be applied), the whole batch is refused; if
    the user-brain change then fails, the whole batch is rolled back.
    """
    opts = options(
        verdict, reason, decider, seconds_on_screen, now, write_reflections, scheduler,
        annotate_grade, applier,
    )  # fmt: skip
    if policy_text is not None:
        edited = checked_policy_text(policy_text, verdict, len(set(ids)))
        opts = replace(opts, policy_text=edited)
    if not stdp:
        opts = replace(opts, stdp=False)
    unique = list(dict.fromkeys(ids))
    if not unique:
        return []
    agent = project.require_agent()
    applying = isinstance(applier, UserBrainApplier) and verdict == "accept"
    if applying and only_agent_kinds(project, unique):
        applying = False  # consolidation items change the agent brain only
    if applying:
        require_writable_user(project)
    gate_cm: Any = (
        AcceptGate(project, applying=applying, decider=decider, now=opts.now)
        if verdict == "accept"
        else nullcontext(None)
    )
    batch = gate_cm.batch_id if applying else None  # its intents are ours until applied
    with owner.holding(batch):
        with learning_apply.staged(), agent.write() as conn, gate_cm as gate:
            if inside is not None:
                inside(conn)
            opts = replace(opts, now=not_before_last(conn, opts.now))  # the clock went back?
            if confirmed_flags is not None and verdict == "accept":
                refuse_unconfirmed(conn, agent.era, unique, confirmed_flags)
            try:
                paused = opts.verdict == "reject" and writing.read_state(conn).paused
                results = [decide_in(conn, agent.era, pid, opts, gate, paused) for pid in unique]
                group_decisions(conn, [r.decision_id for r in results])  # one undo for a bulk
            except sqlite3.Error as err:  # raw driver statements: translate, then roll back
                raise translate_sqlite(err, agent.path) from None
            hooks.step("decision.before_commit")
        hooks.step("decision.committed")
        if applying:
            assert isinstance(applier, UserBrainApplier)
            pending = [r.decision_id for r in results if r.apply_state == APPLY_PENDING]
            if pending:
                applier.apply(project, pending, now=opts.now)
                done = set(pending)
                results = [
                    replace(r, apply_state=APPLY_APPLIED) if r.decision_id in done else r
                    for r in results
                ]
        elif applier is not None and verdict == "accept":
            for result in results:
                if result.apply_state != APPLY_AGENT:  # already applied, to the agent brain
                    applier(project, result)
    return results


def dismiss(
    project: Project,
    proposal_id: str,
    reason: str | None = None,
    *,
    decider: str,
    now: datetime,
    seconds_on_screen: float | None = None,
) -> DecisionResult:
    """Set a pending proposal aside without a verdict (status ``dismissed``): no grades,
    no new reflection, nothing applied; undoable like any decision.  Meant for stale
    proposals (their reason is recorded when none is given), allowed for any."""
    if reason is None:
        reason = _stale_reason(project, proposal_id)
    return decide_many(
        project,
        [proposal_id],
        "dismiss",
        reason=reason,
        decider=decider,
        seconds_on_screen=seconds_on_screen,
        now=now,
    )[0]


def _stale_reason(project: Project, proposal_id: str) -> str | None:
    agent = project.require_agent()
    with agent.read() as conn:
        try:
            row = fetch_row(conn, "brainview_proposal", (proposal_id,))
        except sqlite3.OperationalError:
            return None
        if row is None or row["status"] != "pending":
            return None
        ref = QueuedRef(row["id"], row["kind"], row["params_json"], row["created_at"])
        found = stale_for(project, [ref], agent_conn=conn).get(proposal_id)
    return f"stale: {found}" if found else None
