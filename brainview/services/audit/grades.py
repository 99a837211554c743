"""The grades section of a reflection's audit trail: every grade ever fired into it.

Live grades are its spikes (with the decision behind each one brainview fired, or
``outside`` for Spikuit and other tools).  Grades an undo took back are gone from the
live tables — the undo is exact — but not from the trail: they are read back from the
undone decision's effect log (:mod:`brainview.store.grade_history`) and marked
``fate = "undone"`` with who undid them and when.  So undoing a decision only ever
*adds* to what the trail says.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection

from brainview.core.grading import GRADE_NAMES
from brainview.store import history_reads
from brainview.store.grade_history import undone_grades

UNDONE_LIMIT = 500
"""Undone grades read per trail by default (the total is always counted)."""


@dataclass(frozen=True)
class GradeEntry:
    """One grade of the reflection, with the decision behind it when brainview fired it."""

    fired_at: str
    grade: int
    grade_name: str
    spike_id: int | None
    session_id: str | None
    via: str
    """``brainview`` (a decision graded it) or ``outside`` (Spikuit or another tool)."""
    decision_id: str | None = None
    proposal_id: str | None = None
    proposal_kind: str | None = None
    proposal_summary: str | None = None
    stance: str | None = None
    verdict: str | None = None
    decider: str | None = None
    fate: str = "live"
    """``live`` (its spike is in the brain) or ``undone`` (the decision was undone: the
    spike is gone, this entry is read from the decision's effect log)."""
    undone_at: str | None = None
    undone_by: str | None = None


def live_grades(conn: Connection, rid: str) -> list[GradeEntry]:
    """Every spike of ``rid``, oldest first, with its decision when brainview fired it."""
    spikes = history_reads.spikes_of(conn, rid)
    behind = history_reads.grades_behind(conn, rid)
    out = []
    for sid, grade, fired_at, session in spikes:
        extra = behind.get(int(sid))
        via = "brainview" if extra else "outside"
        base = (str(fired_at), int(grade), _name(int(grade)), int(sid), session, via)
        out.append(GradeEntry(*base, *(extra or ())))
    return out


def taken_back(conn: Connection, rid: str, limit: int) -> tuple[list[GradeEntry], int]:
    """The first ``limit`` grades undone decisions had fired into ``rid`` (oldest
    first), marked undone, and how many there are in all."""
    rows, total = undone_grades(conn, rid, limit=limit)
    out = [
        GradeEntry(
            u.fired_at, u.grade, _name(u.grade), u.spike_id, None,
            "brainview", u.decision_id, u.proposal_id, u.proposal_kind, u.proposal_summary,
            u.stance, u.verdict, u.decider, "undone", u.undone_at, u.undone_by,
        )
        for u in rows
    ]  # fmt: skip
    return out, total


def merged(live: list[GradeEntry], undone: list[GradeEntry]) -> list[GradeEntry]:
    """Both lists in the order the grades were fired (an undone grade before a live one
    fired at the same moment: the undo came first)."""
    both = [(g.fired_at, 1, n, g) for n, g in enumerate(live)]
    both += [(g.fired_at, 0, n, g) for n, g in enumerate(undone)]
    return [g for *_key, g in sorted(both, key=lambda item: item[:3])]


def _name(grade: int) -> str:
    return GRADE_NAMES.get(grade, str(grade))
