"""Deciding curator proposals: one atomic agent-brain transaction per call.

A decision (:func:`decide`, :func:`decide_many`) does, inside one ``BEGIN IMMEDIATE``
transaction on the agent brain:

1. **Claim** the proposal: ``UPDATE … SET status = 'accepted'|'rejected',
   version = version + 1 WHERE id = … AND status = 'pending'``.  Zero rows means
   somebody else decided it first → :class:`~brainview.errors.ConflictError` (or
   :class:`~brainview.errors.NotFoundError` for an unknown id), and nothing is written.
2. **Record** a ``brainview_decision`` row (``apply_state = 'recorded'``).
3. **Grade** every *consulted* reflection (``brainview_consult.role = 'consulted'``)
   with :func:`brainview.core.grading.grade_for`: a ``spike`` row (``session_id`` =
   the decision id, ``notes`` = ``brainview:<proposal id>``) and, where the era keeps
   cards in ``fsrs_state``, the reviewed card.  In the ``tutor`` and ``replay`` eras
   only the spike row is written (the overlay is another file; a replayed card *is*
   the spike log).  Retrieved-only reflections, annotations and retired or missing
   reflections get nothing.  ``brainview_grade`` rows link decision, reflection,
   stance, grade and spike id.
4. **STDP** (contracts §4): the graded reflections fire one after another in
   consulted order, all at ``now``, as if ``Circuit.fire`` ran for each in turn
   (details: :func:`brainview.store.writers.write_stdp`).  "Last fired" comes from
   the spike log, so a reflection fired earlier in the same decision co-fires with
   Δt = 0, and a neighbour that fired 3 days ago with factor e^(−3/7).
5. On **reject** (unless ``write_reflections=False``), a new reflection recording the
   lesson — the proposal's summary, ``[user:<id>]`` refs to the user neurons it
   named, the curator's rationale, ``Maintainer rejected: <reason>`` — with a fresh
   card (as Spikuit's ``add_neuron``) and ``relates_to`` links (both directions,
   weight 0.5) to every live consulted reflection.
6. An **effect log**: every changed row with its full before-image and its
   after-image (:mod:`brainview.store.writers` has the format), so
   :func:`~brainview.services.review_undo.undo` is exact.  ``sqlite_sequence`` for
   ``spike`` is part of it.

FSRS: the default scheduler is ``fsrs.Scheduler()`` — Spikuit's own, fuzzing on, so
``due`` dates carry the same random jitter ``spkt`` would give.  Pass
``scheduler=Scheduler(enable_fuzzing=False)`` for bit-exact reproducibility (fuzz
only moves ``due``; stability and difficulty are deterministic either way).  A
reflection with no stored card starts from ``Card(card_id=<48-bit hash of its id>,
due=now)`` so replays are deterministic.

Applying an accepted change to the *user* brain is a separate step after the
commit: pass ``applier`` and the decision is written with ``apply_state =
'pending'`` (the intent), then ``applier(project, result)`` runs in its own
user-brain transaction and owns the ``apply_state`` transitions and recovery (its
errors propagate; the decision stays committed with the intent open).  Without an
applier the decision is recorded only (``apply_state = 'recorded'``).

Statements run on the driver connection under the SQLAlchemy one (same transaction;
see :mod:`brainview.store.writers`); the claim stays plain portable SQL decided by
its row count.  ``skip`` is a UI matter and writes nothing.
"""

from __future__ import annotations

import json
import math
import sqlite3
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from fsrs import Scheduler
from sqlalchemy import Connection, text

from brainview.core import fsrs_math, stdp
from brainview.core.grading import grade_for
from brainview.core.kinds import ParamError, check_params
from brainview.core.refs import format_ref
from brainview.errors import ConflictError, InvalidInputError, NotFoundError
from brainview.services.project import Project
from brainview.services.review_undo import UndoResult, undo
from brainview.store.brain_check import translate_sqlite
from brainview.store.era import Era
from brainview.store.readmodel import table_exists
from brainview.store.writers import (
    EffectLog,
    Row,
    StdpStep,
    consulted_of,
    driver,
    fetch_row,
    last_fires,
    liveness,
    touching_synapses,
    write_cards,
    write_reflection,
    write_spikes,
    write_stdp,
)

__all__ = [
    "APPLY_PENDING",
    "APPLY_RECORDED",
    "Applier",
    "DecisionResult",
    "UndoResult",
    "decide",
    "decide_many",
    "latest_decision",
    "pending_count",
    "undo",
]

Verdict = Literal["accept", "reject"]
VERDICT_STATUS: dict[str, str] = {"accept": "accepted", "reject": "rejected"}
APPLY_RECORDED = "recorded"
"""The decision is recorded; nothing is (or will be) applied by brainview."""
APPLY_PENDING = "pending"
"""Accepted with an applier: the user-brain change is still to be applied."""
REFLECTION_LINK_WEIGHT = 0.5
MAX_REASON = 10_000

_DEFAULT_SCHEDULER = Scheduler()


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


@dataclass(frozen=True)
class _Options:
    verdict: Verdict
    reason: str | None
    decider: str
    seconds_on_screen: float | None
    now: datetime
    write_reflections: bool
    scheduler: Scheduler
    annotate_grade: int | None
    apply_state: str


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
    applier: Applier | None = None,
) -> DecisionResult:
    """Accept or reject one pending proposal, atomically (see the module docstring).

    Raises ConflictError (already decided / not pending), NotFoundError (unknown id,
    no agent brain), InvalidInputError (bad verdict or reason), ReadOnlyError,
    LockedError.  Nothing is written when it raises.
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
    applier: Applier | None = None,
) -> list[DecisionResult]:
    """Decide several proposals in **one** transaction: all of them or none.

    They are decided in the given order (repeats ignored), each with its own decision
    id and effect log, so each can be undone on its own.  Later decisions see the
    spikes of earlier ones (STDP co-fires across the batch, Δt = 0).  If any proposal
    is not pending, the whole batch is refused.
    """
    opts = _options(
        verdict,
        reason,
        decider,
        seconds_on_screen,
        now,
        write_reflections,
        scheduler,
        annotate_grade,
        applier,
    )
    unique = list(dict.fromkeys(ids))
    if not unique:
        return []
    agent = project.require_agent()
    with agent.write() as conn:
        try:
            results = [_decide_in(conn, agent.era, pid, opts) for pid in unique]
        except sqlite3.Error as err:  # raw driver statements: translate, then roll back
            raise translate_sqlite(err, agent.path) from None
    if applier is not None:
        for result in results:
            if result.verdict == "accept":
                applier(project, result)
    return results


def pending_count(conn: Connection) -> int:
    """How many proposals wait for a decision (0 when the queue does not exist yet)."""
    if not table_exists(conn, "brainview_proposal"):
        return 0
    return int(
        conn.execute(
            text("SELECT COUNT(*) FROM brainview_proposal WHERE status = 'pending'")
        ).scalar_one()
    )


def latest_decision(conn: Connection, proposal_id: str | None = None) -> dict[str, Any] | None:
    """The most recent not-undone decision (of one proposal, or of all)."""
    if not table_exists(conn, "brainview_decision"):
        return None
    where = "undone_at IS NULL" + (" AND proposal_id = :p" if proposal_id is not None else "")
    row = (
        conn.execute(
            text(
                f"SELECT * FROM brainview_decision WHERE {where} "
                "ORDER BY decided_at DESC, rowid DESC LIMIT 1"
            ),
            {"p": proposal_id},
        )
        .mappings()
        .first()
    )
    return dict(row) if row else None


# -- one decision -------------------------------------------------------------------------


def _options(
    verdict: str,
    reason: str | None,
    decider: str,
    seconds: float | None,
    now: datetime,
    write_reflections: bool,
    scheduler: Scheduler | None,
    annotate_grade: int | None,
    applier: Applier | None,
) -> _Options:
    if verdict not in VERDICT_STATUS:
        raise InvalidInputError(f"verdict must be 'accept' or 'reject', not {verdict!r}")
    if reason is not None and (not isinstance(reason, str) or len(reason) > MAX_REASON):
        raise InvalidInputError(f"reason must be text of at most {MAX_REASON} characters")
    if not isinstance(decider, str) or not decider.strip() or len(decider) > 128:
        raise InvalidInputError("decider must be a non-empty name of at most 128 characters")
    if seconds is not None and not (math.isfinite(seconds) and seconds >= 0):
        raise InvalidInputError("seconds_on_screen must be a finite number ≥ 0")
    if annotate_grade is not None and annotate_grade not in fsrs_math.GRADE_TO_RATING:
        raise InvalidInputError("annotate_grade must be 1..4")
    apply_state = APPLY_PENDING if applier is not None and verdict == "accept" else APPLY_RECORDED
    return _Options(
        verdict,  # type: ignore[arg-type]
        reason or None,
        decider,
        seconds,
        fsrs_math.ensure_utc(now),
        write_reflections,
        scheduler or _DEFAULT_SCHEDULER,
        annotate_grade,
        apply_state,
    )


def _decide_in(conn: Connection, era: Era, proposal_id: str, opts: _Options) -> DecisionResult:
    now_s = fsrs_math.format_ts(opts.now)
    log = EffectLog(conn)
    proposal = _claim(conn, log, proposal_id, opts.verdict)
    decision_id = f"dec-{uuid.uuid4().hex[:12]}"
    reject_note = opts.verdict == "reject" and opts.write_reflections
    new_id = f"r-{uuid.uuid4().hex[:12]}" if reject_note else None
    driver(conn).execute(
        "INSERT INTO brainview_decision (id, proposal_id, verdict, reason, decider, "
        "decided_at, seconds_on_screen, new_reflection_id, apply_state) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            decision_id,
            proposal_id,
            opts.verdict,
            opts.reason,
            opts.decider,
            now_s,
            opts.seconds_on_screen,
            new_id,
            opts.apply_state,
        ),
    )
    consulted = consulted_of(conn, proposal_id)
    live = liveness(conn, era, [r for r, _s in consulted])
    skipped: list[tuple[str, str]] = []
    plan: list[tuple[str, str, int]] = []
    for rid, stance in consulted:
        if not live.get(rid):
            skipped.append((rid, "retired" if rid in live else "missing"))
            continue
        grade = grade_for(stance, opts.verdict, annotate_grade=opts.annotate_grade)
        if grade is None:
            skipped.append((rid, f"{stance}: no event"))
            continue
        plan.append((rid, stance, grade))
    # STDP inputs are read before this decision's spikes exist (see write_stdp).
    synapses = touching_synapses(conn, era, [r for r, _s, _g in plan]) if plan else []
    ends = {x for row in synapses for x in (row["pre"], row["post"])}
    history = last_fires(conn, ends, opts.now, stdp.TAU_DAYS) if ends else {}
    fired = [(rid, grade) for rid, _s, grade in plan]
    spikes = write_spikes(log, era, fired, now_s, decision_id, f"brainview:{proposal_id}")
    if era.card_source == "fsrs_state":
        write_cards(log, fired, opts.now, opts.scheduler)
    steps = write_stdp(log, era, fired, synapses, history, opts.now)
    if new_id is not None:
        linked = [r for r, _s in consulted if live.get(r)]
        content = rejection_text(proposal, opts.reason)
        write_reflection(
            log,
            era,
            new_id,
            content,
            str(proposal["skill"]),
            linked,
            REFLECTION_LINK_WEIGHT,
            opts.now,
        )
    log.insert(
        "brainview_grade",
        [
            {
                "decision_id": decision_id,
                "reflection_id": rid,
                "stance": stance,
                "grade": grade,
                "spike_id": spike["id"],
                "fired_at": now_s,
            }
            for (rid, stance, grade), spike in zip(plan, spikes, strict=True)
        ],
    )
    log.flush(decision_id)
    return DecisionResult(
        decision_id=decision_id,
        proposal_id=proposal_id,
        verdict=opts.verdict,
        grades=plan,
        stdp=steps,
        new_reflection_id=new_id,
        decided_at=now_s,
        apply_state=opts.apply_state,
        skipped=skipped,
    )


def _claim(conn: Connection, log: EffectLog, proposal_id: str, verdict: Verdict) -> Row:
    """Move the proposal out of ``pending``; exactly one caller can win."""
    try:
        before = fetch_row(conn, "brainview_proposal", (proposal_id,))
    except sqlite3.OperationalError as err:
        if "no such table" not in str(err):
            raise
        raise NotFoundError("no proposal queue in the agent brain yet") from None
    if before is None:
        raise NotFoundError(f"no proposal {proposal_id!r} in the queue")
    status = VERDICT_STATUS[verdict]
    # The claim: portable SQL, decided by the row count (run on the driver connection
    # like the rest of this transaction's statements, to keep the path short).
    claimed = (
        driver(conn)
        .execute(
            "UPDATE brainview_proposal SET status = ?, version = version + 1 "
            "WHERE id = ? AND status = 'pending'",
            (status, proposal_id),
        )
        .rowcount
    )
    if claimed != 1:
        raise ConflictError(_not_pending_message(conn, proposal_id, str(before["status"])))
    after = {**before, "status": status, "version": before["version"] + 1}
    log.record("brainview_proposal", before, after)
    return before


def _not_pending_message(conn: Connection, proposal_id: str, status: str) -> str:
    if status in ("accepted", "rejected"):
        last = latest_decision(conn, proposal_id)
        by = f" by {last['decider']} at {last['decided_at']}" if last else ""
        return f"proposal {proposal_id} was already decided ({status}{by})"
    return f"proposal {proposal_id} is {status}, not pending"


def rejection_text(proposal: Row, reason: str | None) -> str:
    """The new reflection's content: what was proposed, why, and why it was rejected."""
    try:
        refs, _summary = check_params(str(proposal["kind"]), json.loads(proposal["params_json"]))
        neurons = list(refs.neurons)
    except (ParamError, ValueError, TypeError):
        neurons = []
    lines = [
        f"Rejected proposal {proposal['id']} ({proposal['kind']}): {proposal['summary']}",
    ]
    if neurons:
        lines.append("User neurons: " + " ".join(format_ref(n) for n in neurons))
    rationale = str(proposal.get("rationale") or "").strip()
    lines.append(f"Curator rationale: {rationale or '(none given)'}")
    why = reason.strip() if reason and reason.strip() else "no reason given"
    lines.append(f"Maintainer rejected: {why}")
    return "\n".join(lines)
