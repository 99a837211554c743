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

import json
import sqlite3
import uuid
from collections.abc import Callable, Collection, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from fsrs import Scheduler
from sqlalchemy import Connection

from brainview.core import fsrs_math
from brainview.core.grading import grade_for
from brainview.core.kinds import is_agent_kind, is_learning_kind
from brainview.errors import ConflictError, InvalidInputError
from brainview.services.apply import hooks, owner
from brainview.services.apply.gate import AcceptGate
from brainview.services.apply.mode import UserBrainApplier
from brainview.services.apply.runner import require_writable_user
from brainview.services.apply.stale import QueuedRef, stale_for
from brainview.services.audit import agent_log
from brainview.services.consolidate import apply_agent
from brainview.services.learnings import apply as learning_apply
from brainview.services.lifecycle import writing
from brainview.services.project import Project
from brainview.services.review.call import (
    APPLY_PENDING,
    APPLY_RECORDED,
    Options,
    Verdict,
    apply_on_agent,
    options,
)
from brainview.services.review.call import policy_text as checked_policy_text
from brainview.services.review.revert import UndoResult, group_decisions, undo, undo_unit
from brainview.store.brain_check import translate_sqlite
from brainview.store.clock_floor import not_before_last
from brainview.store.decision_rows import (
    claim,
    fire_consulted,
    insert_decision,
    latest_decision,
    latest_undone,
    pending_count,
    rejection_text,
)
from brainview.store.effects import EffectLog
from brainview.store.era import Era
from brainview.store.rows import driver, fetch_row, select_in
from brainview.store.writers import StdpStep

__all__ = [
    "APPLY_AGENT",
    "APPLY_APPLIED",
    "APPLY_PENDING",
    "APPLY_RECORDED",
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

APPLY_APPLIED = "applied"
"""Accepted and applied to the user brain (or nothing to apply, e.g. a note)."""
APPLY_AGENT = "agent"
"""Accepted agent-brain kind: applied to the agent brain inside the decision itself."""
REFLECTION_LINK_WEIGHT = 0.5


@dataclass(frozen=True)
class DecisionResult:
    """What one decision wrote."""

    decision_id: str
    proposal_id: str
    verdict: Verdict
    grades: list[tuple[str, str, int]]
    """``(reflection_id, stance, grade)`` in consulted order."""
    stdp: list[StdpStep]
    """``(pre, post, type, before, after)`` for every weight step, in processing order."""
    new_reflection_id: str | None
    decided_at: str = ""
    apply_state: str = APPLY_RECORDED
    skipped: list[tuple[str, str]] = field(default_factory=list)
    """Consulted reflections that got nothing: ``(reflection_id, why)``."""

    @property
    def weight_changes(self) -> dict[tuple[str, str, str], tuple[float, float]]:
        """Net ``(before, after)`` per synapse over all steps."""
        out: dict[tuple[str, str, str], tuple[float, float]] = {}
        for pre, post, typ, before, after in self.stdp:
            first = out.get((pre, post, typ), (before, after))[0]
            out[(pre, post, typ)] = (first, after)
        return out


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
) -> list[DecisionResult]:
    """Decide several proposals in **one** transaction: all of them or none.

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
    if applying and _only_agent_kinds(project, unique):
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
            opts = replace(opts, now=not_before_last(conn, opts.now))  # the clock went back?
            if confirmed_flags is not None and verdict == "accept":
                _refuse_unconfirmed_flags(conn, agent.era, unique, confirmed_flags)
            try:
                paused = opts.verdict == "reject" and writing.read_state(conn).paused
                results = [_decide_in(conn, agent.era, pid, opts, gate, paused) for pid in unique]
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
                    applier(project, result)  # type: ignore[call-arg]
    return results


def _refuse_unconfirmed_flags(
    conn: Connection, era: Era, ids: Sequence[str], confirmed: Collection[str]
) -> None:
    """Inside the decision's transaction: a proposal flagged since the maintainer was
    asked (a consulted lesson invalidated a moment ago) is not accepted unasked."""
    from brainview.services.review.flags import flagged_in

    for found in flagged_in(conn, era, ids):
        if found.proposal_id not in confirmed:
            raise ConflictError(
                f"not accepted: {found.proposal_id} was flagged just now "
                f"({found.reasons[0]}); nothing was written — look again"
            )


def _only_agent_kinds(project: Project, ids: Sequence[str]) -> bool:
    """Whether every proposal named is an agent-brain kind (unknown ids: no)."""
    sql = "SELECT kind FROM brainview_proposal WHERE id IN ({marks})"
    with project.require_agent().read() as conn:
        try:
            kinds = [k for (k,) in select_in(driver(conn), sql, ids)]
        except sqlite3.OperationalError:  # no queue yet
            return False
    return len(kinds) == len(ids) and all(is_agent_kind(k) or is_learning_kind(k) for k in kinds)


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


# -- one decision -------------------------------------------------------------------------


def _decide_in(
    conn: Connection,
    era: Era,
    proposal_id: str,
    opts: Options,
    gate: AcceptGate | None,
    paused: bool = False,
) -> DecisionResult:
    now_s = fsrs_math.format_ts(opts.now)
    log = EffectLog(conn)
    proposal = claim(conn, log, proposal_id, opts.verdict)
    decision_id = f"dec-{uuid.uuid4().hex[:12]}"
    apply_state = opts.apply_state
    kind = str(proposal["kind"])
    on_agent = is_agent_kind(kind) and opts.verdict == "accept"
    learning = is_learning_kind(kind) and opts.verdict == "accept"
    if opts.policy_text is not None and kind != "summarize_community":
        raise InvalidInputError(f"proposal {proposal_id} is not a policy: no text to edit")
    if on_agent:
        params = json.loads(proposal["params_json"])
        stale = apply_agent.stale_reason(conn, era, kind, params)
        if stale:
            raise ConflictError(
                f"proposal {proposal_id} is stale ({stale}): it cannot be accepted; "
                "reject or dismiss it"
            )
        apply_state = APPLY_AGENT
    elif learning:  # a .learnings tier move: files and tier row written below
        apply_state = APPLY_AGENT
    elif gate is not None:
        apply_state = gate.admit(conn, proposal, decision_id) or apply_state
    reject_note = opts.verdict == "reject" and opts.write_reflections and not paused
    new_id = f"r-{uuid.uuid4().hex[:12]}" if reject_note else None
    insert_decision(
        conn,
        {
            "id": decision_id,
            "proposal_id": proposal_id,
            "verdict": opts.verdict,
            "reason": opts.reason,
            "decider": opts.decider,
            "decided_at": now_s,
            "seconds_on_screen": opts.seconds_on_screen,
            "new_reflection_id": new_id,
            "apply_state": apply_state,
        },
    )
    verdict = opts.verdict

    agent_item = is_agent_kind(kind)

    def grade_of(stance: str) -> int | None:
        # A consolidation item is about its reflections, not advice they gave: deciding
        # it grades nobody (so items stay independent of one another).
        if verdict == "dismiss" or agent_item:
            return None
        return grade_for(stance, verdict, annotate_grade=opts.annotate_grade)

    def no_event(stance: str) -> str:
        if agent_item:
            return "consolidation item: no grades"
        return "dismissed: no event" if verdict == "dismiss" else f"{stance}: no event"

    fired = fire_consulted(
        log, era, proposal_id, decision_id, grade_of, no_event, opts.now, opts.scheduler,
        with_stdp=opts.stdp,
    )  # fmt: skip
    if on_agent:
        apply_on_agent(log, era, proposal, decision_id, opts)
    if learning:
        learning_apply.apply_in(log, proposal, decision_id, opts.now)
    if new_id is not None:
        agent_log.write_lesson(
            log, era, proposal_id=proposal_id, decider=opts.decider, neuron_id=new_id,
            content=rejection_text(proposal, opts.reason), skill=str(proposal["skill"]),
            link_to=fired.live, weight=REFLECTION_LINK_WEIGHT, now=opts.now,
        )  # fmt: skip
    log.flush(decision_id)
    return DecisionResult(
        decision_id=decision_id,
        proposal_id=proposal_id,
        verdict=opts.verdict,
        grades=fired.grades,
        stdp=fired.stdp,
        new_reflection_id=new_id,
        decided_at=now_s,
        apply_state=apply_state,
        skipped=fired.skipped,
    )
