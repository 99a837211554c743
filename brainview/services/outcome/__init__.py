"""Outcomes from the tutor and QABot skills: a hint or an answer that succeeded or
failed grades the reflections it consulted, and a failure writes a lesson.

An outcome is recorded as a proposal row (skill ``tutor`` or ``qabot``, kind
``outcome``) **decided in the same transaction** — success = accept, failure =
reject — through the decision machinery of :mod:`brainview.services.review`, so grades
(support+success → strong, support+failure → miss, oppose the other way round, annotate
→ nothing), spikes, FSRS cards, STDP, the lesson (a new reflection linked ``relates_to``
to the live consulted ones, with its card and one ``changeset`` whose actor kind is
``agent``), the effect log and exact undo are the real ones.  One ``BEGIN IMMEDIATE``
transaction on the agent brain does it all; the user brain is never touched.

Unlike a proposal, an outcome is never pending: its row is *inserted* decided, through
the decision's effect log, so undoing the decision (:func:`undo_outcome`, or
``proposals undo``) removes the proposal and consult rows too — every row is back as
before the report; only the audit trail (the decision row marked undone, its effect
rows, Spikuit's change log) grows.  The queue, ``proposals list`` and the curator's
acceptance and MAC metrics leave outcomes out; ``stats`` and the metrics count them per
skill under ``outcomes``.

Idempotent by the caller's id: the same id with the same content again records nothing
and answers ``already_recorded``; the same id with other content (or an id a proposal
uses) is a :class:`~brainview.errors.ConflictError`.  The check runs inside the write
transaction, so two processes reporting the same outcome at once record it once.
Consulted reflections follow proposal intake: an unknown one refuses the report; an
invalidated or retired one is accepted and gets nothing (``skipped``).  While the
project paused reflection writing, a failure still grades but writes no lesson.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from datetime import datetime

from fsrs import Scheduler
from sqlalchemy import Connection

from brainview.core import fsrs_math
from brainview.core.grading import grade_for
from brainview.core.outcomes import (
    OUTCOME_KIND,
    OutcomeReport,
    check_decider,
    lesson_text,
)
from brainview.core.params import ParamError
from brainview.core.signals import text_flags
from brainview.core.suspicion import add_flags
from brainview.errors import ConflictError, InvalidInputError
from brainview.services import lifecycle
from brainview.services.audit import agent_log
from brainview.services.lifecycle import writing
from brainview.services.outcome.result import OutcomeResult, outcome_row, standing, stored
from brainview.services.project import Project
from brainview.services.review.call import DEFAULT_SCHEDULER
from brainview.services.review.revert import UndoResult, undo
from brainview.store.brain_check import translate_sqlite
from brainview.store.bv_schema import ensure_schema
from brainview.store.clock_floor import not_before_last
from brainview.store.decision_rows import fire_consulted, insert_decision
from brainview.store.effects import EffectLog
from brainview.store.era import Era
from brainview.store.outcome_rows import consulted_of, outcome_ids
from brainview.store.readmodel import neurons_by_ids
from brainview.store.rows import Row, fetch_row

__all__ = [
    "OutcomeReport",
    "OutcomeResult",
    "is_outcome",
    "parse_report",
    "report_outcome",
    "show_outcome",
    "undo_outcome",
]

LESSON_LINK_WEIGHT = 0.5
"""As a rejection lesson's links (:data:`brainview.services.review.REFLECTION_LINK_WEIGHT`)."""
SOURCES = frozenset({"api", "cli", "mcp"})


def parse_report(raw: object) -> OutcomeReport:
    """An outcome from its JSON object (docs/curator.md); InvalidInputError names the
    first bad field."""
    try:
        return OutcomeReport.from_json(raw)
    except ParamError as err:
        raise InvalidInputError(str(err)) from None


def report_outcome(
    project: Project,
    report: OutcomeReport,
    *,
    decider: str,
    now: datetime,
    scheduler: Scheduler | None = None,
    source: str = "api",
) -> OutcomeResult:
    """Record one outcome atomically (module docstring).

    Raises InvalidInputError (a bad field, an unknown consulted reflection),
    ConflictError (the id is taken by other content or by a proposal), NotFoundError
    (no agent brain), ReadOnlyError, LockedError; nothing is written when it raises.
    """
    try:
        report = report.checked()
        check_decider(decider)
    except ParamError as err:
        raise InvalidInputError(str(err)) from None
    if source not in SOURCES:
        raise InvalidInputError(f"source must be one of {', '.join(sorted(SOURCES))}")
    agent = project.require_agent()
    with agent.write() as conn:
        try:
            ensure_schema(conn)
            existing = fetch_row(conn, "brainview_proposal", (report.id,))
            if existing is not None:
                return _already(conn, report, existing)
            _check_reflections(conn, agent.era, report)
            at = not_before_last(conn, fsrs_math.ensure_utc(now))
            paused = report.result == "failure" and writing.read_state(conn).paused
            return _record(
                conn, agent.era, report, decider, at, scheduler or DEFAULT_SCHEDULER, source,
                lesson=not paused,
            )  # fmt: skip
        except sqlite3.Error as err:  # raw driver statements: translate, then roll back
            raise translate_sqlite(err, agent.path) from None


def show_outcome(project: Project, outcome_id: str) -> OutcomeResult:
    """A recorded outcome as :func:`report_outcome` answered it (NotFoundError when there
    is none: never recorded, or undone)."""
    agent = project.require_agent()
    with agent.read() as conn:
        return stored(conn, outcome_row(conn, outcome_id), already=True)


def undo_outcome(project: Project, outcome_id: str, *, now: datetime, actor: str) -> UndoResult:
    """Undo a recorded outcome exactly: its grades, cards, STDP steps and lesson go, and
    so do its proposal and consult rows (the id is free again)."""
    with project.require_agent().read() as conn:
        decision = standing(conn, outcome_row(conn, outcome_id))
    return undo(project, str(decision["id"]), now=now, actor=actor)


def is_outcome(project: Project, proposal_ids: list[str]) -> set[str]:
    """Which of ``proposal_ids`` are recorded outcomes (not proposals)."""
    if project.agent is None:
        return set()
    with project.agent.read() as conn:
        return outcome_ids(conn, proposal_ids)


# -- inside the transaction -------------------------------------------------------------


def _check_reflections(conn: Connection, era: Era, report: OutcomeReport) -> None:
    """As proposal intake: an unknown reflection is refused (invalidated or retired
    ones are taken, and graded by nobody)."""
    found = neurons_by_ids(conn, era, [rid for rid, _s, _n in report.consulted])
    for j, (rid, _stance, _note) in enumerate(report.consulted):
        if rid not in found:
            raise InvalidInputError(
                f"outcome.consulted[{j}].reflection: reflection {rid} does not exist"
            )


def _record(
    conn: Connection,
    era: Era,
    report: OutcomeReport,
    decider: str,
    at: datetime,
    scheduler: Scheduler,
    source: str,
    *,
    lesson: bool,
) -> OutcomeResult:
    log = EffectLog(conn)
    at_s = fsrs_math.format_ts(at)
    verdict = report.verdict
    status = "accepted" if verdict == "accept" else "rejected"
    lesson_id = f"r-{uuid.uuid4().hex[:12]}" if verdict == "reject" and lesson else None
    # The lesson it writes is checked like any other: a risky imperative or hidden text
    # is a suspicion flag on the outcome, naming the lesson (a signal, not a refusal).
    flagged = [
        {"kind": "risky", "field": "lesson", "reflection": lesson_id, "detail": why}
        for why in (text_flags(lesson_text(report)) if lesson_id else [])
    ]
    log.insert(
        "brainview_proposal",
        [
            {
                "id": report.id, "skill": report.skill, "kind": OUTCOME_KIND,
                "params_json": json.dumps(report.params(), ensure_ascii=False, sort_keys=True),
                "rationale": "", "created_at": at_s, "received_at": at_s, "status": status,
                "runtime": report.runtime, "source": source, "summary": report.summary(),
                "n_consulted": len(report.consulted), "suspicion": add_flags(None, flagged),
            }
        ],
    )  # fmt: skip
    log.insert(
        "brainview_consult",
        [
            {"proposal_id": report.id, "reflection_id": rid, "role": "consulted",
             "stance": stance, "note": note, "seq": q}
            for q, (rid, stance, note) in enumerate(report.consulted)
        ],
    )  # fmt: skip
    decision_id = f"dec-{uuid.uuid4().hex[:12]}"
    insert_decision(
        conn,
        {
            "id": decision_id, "proposal_id": report.id, "verdict": verdict,
            "reason": report.situation, "decider": decider, "decided_at": at_s,
            "seconds_on_screen": None, "new_reflection_id": lesson_id, "apply_state": "recorded",
        },
    )  # fmt: skip
    fired = fire_consulted(
        log, era, report.id, decision_id,
        lambda stance: grade_for(stance, verdict),  # type: ignore[arg-type]
        lambda stance: f"{stance}: no event", at, scheduler,
    )  # fmt: skip
    if lesson_id is not None:
        agent_log.write_lesson(
            log, era, proposal_id=report.id, decider=decider, neuron_id=lesson_id,
            content=lesson_text(report), skill=report.skill, link_to=fired.live,
            weight=LESSON_LINK_WEIGHT, now=at, actor_kind="agent",
        )  # fmt: skip
    log.flush(decision_id)
    return OutcomeResult(
        report.id, report.skill, report.result, report.situation, decision_id, at_s, decider,
        fired.grades, _why(conn, era, fired.skipped), lesson_id,
    )  # fmt: skip


def _why(conn: Connection, era: Era, skipped: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Name the lifecycle state (invalidated, retired) of a reflection not graded."""
    gone = [rid for rid, why in skipped if why in ("retired", "missing")]
    states = lifecycle.statuses(conn, era, gone) if gone else {}
    return [(rid, states[rid].state if rid in states else why) for rid, why in skipped]


def _already(conn: Connection, report: OutcomeReport, row: Row) -> OutcomeResult:
    """The same id again: the stored outcome if the content agrees, else a conflict."""
    if row["kind"] != OUTCOME_KIND:
        raise ConflictError(
            f"id {report.id} is taken by a proposal ({row['kind']}); nothing was written — "
            "report the outcome under another id"
        )
    params = json.loads(row["params_json"])
    theirs = {
        "skill": row["skill"], "result": params.get("result"),
        "situation": params.get("situation"), "lesson": params.get("lesson"),
        "consulted": consulted_of(conn, report.id),
    }  # fmt: skip
    ours = {
        "skill": report.skill, "result": report.result, "situation": report.situation,
        "lesson": report.lesson, "consulted": list(map(tuple, report.consulted)),
    }  # fmt: skip
    differs = [k for k in ours if ours[k] != theirs[k]]
    if differs:
        raise ConflictError(
            f"outcome {report.id} was already recorded with a different {differs[0]}; "
            "nothing was written — report a new outcome under a new id"
        )
    return stored(conn, row, already=True)
