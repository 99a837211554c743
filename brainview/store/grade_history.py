"""Grades a decision fired into a reflection and an undo took back, read from history.

An exact undo deletes the decision's ``brainview_grade`` (and ``spike``) rows, so the
live tables no longer know the grade was ever fired.  History does: the decision row
stays with ``undone_at`` / ``undone_by`` and its ``brainview_effect`` rows keep the
after-image of every ``brainview_grade`` row it inserted.  This module reads those
images back (read-only, bounded) so the audit trail only ever grows
(:mod:`brainview.services.audit`).

Candidates are narrowed by index: the proposals that consulted the reflection
(``ix_bv_consult_refl``), their decisions (``ix_bv_decision_prop``), their effect rows
(primary key); then the stored JSON must mention the reflection id.  An undone tutor /
QABot outcome took its proposal and consult rows with it (:mod:`brainview.services.
outcome`): its decision is found among the undone ones (``ix_bv_decision_undone``) whose
proposal row is gone, and its kind and summary are read from its own effect log.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection

from brainview.errors import UnknownSchemaError
from brainview.store.effect_codec import mention_pattern, unpack
from brainview.store.readmodel import table_exists
from brainview.store.rows import Row, driver, select_in

_TABLES = ("brainview_decision", "brainview_effect", "brainview_consult", "brainview_proposal")

_FROM = "FROM brainview_decision d JOIN brainview_effect e ON e.decision_id = d.id "
_WHERE = (
    "WHERE d.proposal_id IN (SELECT proposal_id FROM brainview_consult "
    "WHERE reflection_id = ?) AND d.undone_at IS NOT NULL AND e.tbl = 'brainview_grade' "
    "AND (e.after_json LIKE ? ESCAPE '\\' OR e.key_json LIKE ? ESCAPE '\\')"
)

_DAMAGE = (ValueError, KeyError, IndexError, TypeError, AttributeError, AssertionError,
           UnknownSchemaError)  # fmt: skip
"""What a hand-edited, truncated or newer effect row can raise (such a row is skipped:
the trail is for reading, undo reports the damage)."""


@dataclass(frozen=True)
class UndoneGrade:
    """One grade an undone decision had fired into the reflection."""

    fired_at: str
    grade: int
    spike_id: int | None
    """The spike the undo removed (its id may since belong to another spike)."""
    stance: str
    decision_id: str
    proposal_id: str
    proposal_kind: str | None
    proposal_summary: str | None
    verdict: str
    decider: str
    undone_at: str
    undone_by: str | None


def undone_grades(conn: Connection, rid: str, *, limit: int) -> tuple[list[UndoneGrade], int]:
    """The first ``limit`` grades undone decisions fired into ``rid`` (oldest decision
    first) and how many there are in all; ``([], 0)`` without brainview's tables."""
    if limit < 0 or not all(table_exists(conn, t) for t in _TABLES):
        return [], 0
    pattern = mention_pattern(rid)
    args = (rid, pattern, pattern)
    raw = driver(conn)
    total = raw.execute(f"SELECT COUNT(DISTINCT d.id) {_FROM}{_WHERE}", args).fetchone()[0]
    total = int(total or 0)
    if limit == 0:
        return [], total + _without_proposal(raw, args[1:], 0)[0]
    rows = raw.execute(
        "SELECT d.id, d.proposal_id, p.kind, p.summary, d.verdict, d.decider, d.undone_at, "
        "d.undone_by, e.tbl, e.op, e.key_json, e.before_json, e.after_json, d.decided_at "
        f"{_FROM}LEFT JOIN brainview_proposal p ON p.id = d.proposal_id {_WHERE} "
        "ORDER BY d.decided_at, d.id, e.seq LIMIT ?",
        (*args, limit),
    ).fetchall()
    gone_total, gone = _without_proposal(raw, args, limit)
    if gone:
        rows = sorted([*rows, *gone], key=lambda r: (r[-1], r[0]))[:limit]
    total += gone_total
    out: list[UndoneGrade] = []
    for did, pid, kind, summary, verdict, decider, undone_at, undone_by, *stored, _at in rows:
        try:
            effects = unpack(*stored)
        except _DAMAGE:
            continue
        for e in effects:
            row = e.after
            if e.op != "insert" or row is None or row.get("reflection_id") != rid:
                continue
            spike = row.get("spike_id")
            out.append(
                UndoneGrade(
                    str(row["fired_at"]), int(row["grade"]),
                    None if spike is None else int(spike), str(row["stance"]), str(did),
                    str(pid), kind, summary, str(verdict), str(decider), str(undone_at),
                    undone_by,
                )
            )  # fmt: skip
    return out, total


_GONE = (
    "WHERE d.undone_at IS NOT NULL AND NOT EXISTS "
    "(SELECT 1 FROM brainview_proposal p WHERE p.id = d.proposal_id) "
    "AND e.tbl = 'brainview_grade' AND (e.after_json LIKE ? ESCAPE '\\' OR e.key_json LIKE ? "
    "ESCAPE '\\')"
)


def _without_proposal(
    raw: sqlite3.Connection, args: tuple[str, ...], limit: int
) -> tuple[int, list[tuple[Any, ...]]]:
    """Undone decisions whose proposal row the undo removed (tutor / QABot outcomes)
    that graded the reflection: how many, and the first ``limit`` effect rows, shaped as
    :func:`undone_grades` reads them (kind and summary from the decision's own log)."""
    patterns = args[-2:]
    total = raw.execute(f"SELECT COUNT(DISTINCT d.id) {_FROM}{_GONE}", patterns).fetchone()[0]
    if not total or limit == 0:
        return int(total or 0), []
    rows = raw.execute(
        "SELECT d.id, d.proposal_id, d.verdict, d.decider, d.undone_at, d.undone_by, e.tbl, "
        f"e.op, e.key_json, e.before_json, e.after_json, d.decided_at {_FROM}{_GONE} "
        "ORDER BY d.decided_at, d.id, e.seq LIMIT ?",
        (*patterns, limit),
    ).fetchall()
    out = []
    for did, pid, *rest in rows:
        kind, summary = _proposal_image(raw, str(did), str(pid))
        out.append((did, pid, kind, summary, *rest))
    return int(total), out


def _proposal_image(raw: sqlite3.Connection, did: str, pid: str) -> tuple[str | None, str | None]:
    """``(kind, summary)`` of the proposal row a decision inserted (from its effects)."""
    for stored in raw.execute(
        "SELECT tbl, op, key_json, before_json, after_json FROM brainview_effect "
        "WHERE decision_id = ? AND tbl = 'brainview_proposal' ORDER BY seq",
        (did,),
    ):
        try:
            effects = unpack(*stored)
        except _DAMAGE:
            continue
        for e in effects:
            if e.after is not None and e.after.get("id") == pid:
                return e.after.get("kind"), e.after.get("summary")
    return None, None


def grades_of_undone(conn: Connection, decision_ids: Sequence[str]) -> dict[str, list[Row]]:
    """The ``brainview_grade`` rows each of ``decision_ids`` inserted, read back from its
    effect log (an undone decision's live rows are gone), in the order recorded.

    Rows are ``{reflection_id, stance, grade, spike_id, fired_at, decision_id}``; a
    damaged effect row is skipped.  Every id is a key of the result."""
    out: dict[str, list[Row]] = {d: [] for d in decision_ids}
    if not decision_ids or not table_exists(conn, "brainview_effect"):
        return out
    sql = (
        "SELECT decision_id, tbl, op, key_json, before_json, after_json FROM brainview_effect "
        "WHERE tbl = ? AND decision_id IN ({marks}) ORDER BY decision_id, seq"
    )
    for did, *stored in select_in(driver(conn), sql, decision_ids, args=("brainview_grade",)):
        try:
            effects = unpack(*stored)
        except _DAMAGE:
            continue
        out[did] += [e.after for e in effects if e.op == "insert" and e.after is not None]
    return out
