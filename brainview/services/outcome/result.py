"""What recording an outcome came to (:class:`OutcomeResult`), and reading a recorded
outcome back from its rows (agent brain, inside the caller's connection)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection

from brainview.core.grading import GRADE_NAMES
from brainview.core.outcomes import OUTCOME_KIND, RESULT_OF
from brainview.errors import ConflictError, NotFoundError
from brainview.store.decision_rows import latest_decision
from brainview.store.outcome_rows import consulted_of, grades_of
from brainview.store.readmodel import table_exists
from brainview.store.rows import Row, fetch_row


@dataclass(frozen=True)
class OutcomeResult:
    """What recording (or finding) one outcome came to."""

    id: str
    skill: str
    result: str
    situation: str
    decision_id: str
    decided_at: str
    decider: str
    grades: list[tuple[str, str, int]]
    """``(reflection, stance, grade)`` in consulted order."""
    skipped: list[tuple[str, str]]
    """Consulted reflections that got nothing: ``(reflection, why)``."""
    lesson_id: str | None
    """The new reflection a failure wrote (``None`` for a success or while paused)."""
    already_recorded: bool = False
    """True when this call wrote nothing: the outcome was recorded before."""

    def to_json(self) -> dict[str, Any]:
        """Plain JSON (the CLI's ``--json`` and the MCP tool's answer)."""
        return {
            "id": self.id,
            "skill": self.skill,
            "result": self.result,
            "situation": self.situation,
            "decision_id": self.decision_id,
            "decided_at": self.decided_at,
            "decider": self.decider,
            "already_recorded": self.already_recorded,
            "grades": [
                {"reflection": r, "stance": s, "grade": g, "grade_name": GRADE_NAMES[g]}
                for r, s, g in self.grades
            ],
            "skipped": [{"reflection": r, "why": why} for r, why in self.skipped],
            "lesson_id": self.lesson_id,
        }


def outcome_row(conn: Connection, outcome_id: str) -> Row:
    row = None
    if table_exists(conn, "brainview_proposal"):
        row = fetch_row(conn, "brainview_proposal", (outcome_id,))
    if row is None or row["kind"] != OUTCOME_KIND:
        raise NotFoundError(f"no outcome {outcome_id!r} (never recorded, or undone)")
    return row


def standing(conn: Connection, row: Row) -> dict[str, Any]:
    decision = latest_decision(conn, str(row["id"]))
    if decision is None:
        raise ConflictError(f"outcome {row['id']} has no standing decision")
    return decision


def stored(conn: Connection, row: Row, *, already: bool) -> OutcomeResult:
    decision = standing(conn, row)
    params = json.loads(row["params_json"])
    grades = grades_of(conn, str(decision["id"]))
    graded = {rid for rid, _s, _g in grades}
    skipped = [
        (rid, f"{stance}: no event" if stance == "annotate" else "not live when reported")
        for rid, stance, _n in consulted_of(conn, str(row["id"]))
    ]
    return OutcomeResult(
        str(row["id"]), str(row["skill"]), RESULT_OF.get(str(decision["verdict"]), "?"),
        str(params.get("situation", "")), str(decision["id"]), str(decision["decided_at"]),
        str(decision["decider"]), grades, [s for s in skipped if s[0] not in graded],
        decision["new_reflection_id"], already_recorded=already,
    )  # fmt: skip
