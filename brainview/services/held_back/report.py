"""Recording a held-back draft: one append-only row, its lessons, nothing graded.

Idempotent by the caller's id: the same id with the same content again records nothing
and answers ``already_reported``; the same id with other content is a
:class:`~brainview.errors.ConflictError`.  The check runs inside the write transaction,
so two processes reporting the same draft at once record it once.  Every lesson must
exist (an invalidated or retired one is taken: it was what the curator saw); a named
recall must be logged.  Rows go through the :class:`~brainview.store.effects.EffectLog`
(its text rule), never flushed: a report is not a decision and has nothing to undo.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime
from typing import Any

from sqlalchemy import Connection

from brainview.core import fsrs_math
from brainview.core.held_back import HeldBackReport
from brainview.core.params import ParamError
from brainview.core.proposal_parse import Proposal
from brainview.errors import ConflictError, InvalidInputError
from brainview.services.project import Project
from brainview.store import held_back_rows as rows
from brainview.store.brain_check import translate_sqlite
from brainview.store.effects import EffectLog
from brainview.store.era import Era
from brainview.store.readmodel import neurons_by_ids
from brainview.store.recall_log import hit_ids
from brainview.store.rows import Row, driver

SOURCES = frozenset({"api", "cli", "mcp", "simulate"})


def parse_report(raw: object, now: datetime) -> tuple[HeldBackReport, Proposal]:
    """A report from its JSON object, its draft shape-checked as a proposal by intake's
    own parser; InvalidInputError names the first bad field (``held_back.draft.params``)."""
    from brainview.core.proposal_parse import parse_one
    from brainview.core.text_rules import FieldError

    try:
        report = HeldBackReport.from_json(raw)
    except ParamError as err:
        raise InvalidInputError(str(err)) from None
    draft = {k: v for k, v in report.draft.items() if k != "recall"}
    try:
        parsed = parse_one(draft, 0, now)
    except FieldError as err:
        where = err.field.removeprefix("proposal[0]").lstrip(".")
        fld = "held_back.draft" + (f".{where}" if where else "")
        raise InvalidInputError(f"{fld}: {err.reason}") from None
    return report, parsed


def report_held_back(
    project: Project,
    report: HeldBackReport,
    draft: Proposal,
    *,
    runtime: str,
    now: datetime,
    source: str = "api",
) -> dict[str, Any]:
    """Record one held-back draft; ``runtime`` is the reporting identity when the
    report names none.  Returns ``{"id", "already_reported", "reported_at", ...}``.

    Raises InvalidInputError (a bad field, an unknown lesson or recall), ConflictError
    (the id was reported with other content), NotFoundError (no agent brain),
    ReadOnlyError, LockedError; nothing is written when it raises."""
    if source not in SOURCES:
        raise InvalidInputError(f"source must be one of {', '.join(sorted(SOURCES))}")
    agent = project.require_agent()
    row = _row(report, draft, report.runtime or runtime, fsrs_math.ensure_utc(now), source)
    with agent.write() as conn:
        try:
            rows.ensure(conn)
            existing = rows.item(conn, report.id)
            if existing is not None:
                return _already(conn, report, existing, row)
            _check_lessons(conn, agent.era, report)
            _check_recall(conn, report)
            log = EffectLog(conn)
            log.insert(rows.HELD_BACK, [row])
            log.insert(
                rows.LESSONS,
                [
                    {"held_back_id": report.id, "reflection_id": r, "stance": s, "seq": q}
                    for q, (r, s) in enumerate(report.lessons)
                ],
            )
        except sqlite3.Error as err:  # raw driver statements: translate, then roll back
            raise translate_sqlite(err, agent.path) from None
    return _answer(row, report.lessons, already=False)


def _row(report: HeldBackReport, draft: Proposal, runtime: str, now: datetime, source: str) -> Row:
    return {
        "id": report.id, "kind": draft.kind,
        "draft_json": json.dumps(report.draft, ensure_ascii=False, sort_keys=True),
        "action": report.action, "rewritten_as": report.rewritten_as,
        "recall_id": report.recall, "runtime": runtime, "skill": report.skill,
        "reason": report.reason, "reported_at": fsrs_math.format_ts(now), "source": source,
        "confidence": report.confidence,
    }  # fmt: skip


def _answer(row: Row, lessons: list[tuple[str, str]], *, already: bool) -> dict[str, Any]:
    return {
        "id": row["id"],
        "already_reported": already,
        "kind": row["kind"],
        "action": row["action"],
        "rewritten_as": row["rewritten_as"],
        "recall_id": row["recall_id"],
        "runtime": row["runtime"],
        "reported_at": row["reported_at"],
        "lessons": [{"reflection": r, "stance": s} for r, s in lessons],
    }


def _check_lessons(conn: Connection, era: Era, report: HeldBackReport) -> None:
    found = neurons_by_ids(conn, era, [r for r, _s in report.lessons])
    for j, (rid, _stance) in enumerate(report.lessons):
        if rid not in found:
            raise InvalidInputError(
                f"held_back.lessons[{j}].reflection: reflection {rid} does not exist"
            )


def _check_recall(conn: Connection, report: HeldBackReport) -> None:
    if report.recall is not None and hit_ids(driver(conn), report.recall) is None:
        raise InvalidInputError(f"held_back.recall: no recall {report.recall} was logged")


def _already(conn: Connection, report: HeldBackReport, existing: Row, row: Row) -> dict[str, Any]:
    """The same id again: the stored report if the content agrees, else a conflict."""
    theirs = {k: existing[k] for k in ("kind", "draft_json", "action", "rewritten_as",
                                       "recall_id", "skill", "reason")}  # fmt: skip
    ours = {k: row[k] for k in theirs}
    lessons = rows.lessons_of(conn, [report.id])[report.id]
    theirs["lessons"], ours["lessons"] = lessons, list(report.lessons)
    differs = [k for k in ours if ours[k] != theirs[k]]
    if differs:
        raise ConflictError(
            f"held-back draft {report.id} was already reported with a different "
            f"{differs[0]}; nothing was written — report it under a new id"
        )
    return _answer(existing, lessons, already=True)
