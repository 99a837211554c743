"""Reads behind influence-ordered listings and the suspicion scan: a page of reflection
ids by influence (the score computed in SQL, keyset on ``(score, id)``), lessons in
batches with who wrote them, and the lessons written within a time window.  Nothing
writes; nothing holds more than a batch of texts."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from brainview.store.era import Era
from brainview.store.influence_reads import score_sql, tables

TYPES = ("reflection", "policy")
"""Neuron types a lesson can have in the agent brain."""


@dataclass(frozen=True)
class LessonRow:
    """A lesson's text and what says who wrote it."""

    id: str
    content: str
    skill: str | None
    created_at: str | None
    source: str | None


def _where(era: Era, skill: str | None, status: str, alias: str = "n") -> tuple[str, list]:
    clauses, args = [f"{alias}.type IN ('reflection', 'policy')"], []
    if skill is not None:
        clauses.append(f"{alias}.domain = ?")
        args.append(skill)
    if status == "live":
        clauses.append(era.live(alias))
    elif status == "retired":
        clauses.append(f"{alias}.retired_at IS NOT NULL" if era.has_retire else "1=0")
    return " AND ".join(clauses), args


def influence_page(
    raw: sqlite3.Connection,
    era: Era,
    *,
    skill: str | None,
    status: str,
    after: tuple[int, str] | None,
    limit: int,
) -> list[tuple[str, int]]:
    """Up to ``limit`` ``(id, score)`` by influence, highest first (ties by id), after
    the keyset ``(score, id)``."""
    where, args = _where(era, skill, status)
    scores = score_sql(raw)
    join = f"LEFT JOIN ({scores}) s ON s.rid = n.id" if scores else ""
    score = "COALESCE(s.score, 0)" if scores else "0"
    sql = (
        f"SELECT id, sc FROM (SELECT n.id AS id, {score} AS sc FROM neuron n {join} WHERE {where})"
    )
    if after is not None:
        sql += " WHERE sc < ? OR (sc = ? AND id > ?)"
        args += [after[0], after[0], after[1]]
    sql += " ORDER BY sc DESC, id LIMIT ?"
    return [(str(i), int(s)) for i, s in raw.execute(sql, [*args, limit])]


def _select(era: Era) -> str:
    source = "n.source" if "source" in era.neuron_cols else "NULL"
    return f"SELECT n.id, n.content, n.domain, n.created_at, {source} FROM neuron n"


def _lesson(r: Sequence[Any]) -> LessonRow:
    """A row of :func:`_select` as text (``id`` and ``content`` are NOT NULL)."""
    skill, created, source = (str(v) if v is not None else None for v in r[2:])
    return LessonRow(str(r[0]), str(r[1]), skill, created, source)


def lesson_batches(
    raw: sqlite3.Connection, era: Era, batch: int = 500
) -> Iterator[list[LessonRow]]:
    """Every live lesson, ``batch`` at a time, in id order."""
    where, args = _where(era, None, "live")
    sql = f"{_select(era)} WHERE {where} AND n.id > ? ORDER BY n.id LIMIT ?"
    after = ""
    while True:
        rows = [_lesson(r) for r in raw.execute(sql, [*args, after, batch])]
        if not rows:
            return
        yield rows
        after = rows[-1].id


def lessons_between(raw: sqlite3.Connection, era: Era, since: str, until: str) -> list[LessonRow]:
    """Live lessons created in ``[since, until]`` (the gaming window of one lesson)."""
    where, args = _where(era, None, "live")
    sql = f"{_select(era)} WHERE {where} AND n.created_at >= ? AND n.created_at <= ? LIMIT 5000"
    return [_lesson(r) for r in raw.execute(sql, [*args, since, until])]


def authors(raw: sqlite3.Connection, ids: list[str] | None = None) -> dict[str, str]:
    """Lesson id → who wrote it, for lessons written by a standing decision or outcome:
    the reporting runtime, else the decider."""
    if not {"brainview_decision", "brainview_proposal"} <= tables(raw):
        return {}
    sql = (
        "SELECT d.new_reflection_id, COALESCE(p.runtime, d.decider) FROM brainview_decision d "
        "LEFT JOIN brainview_proposal p ON p.id = d.proposal_id "
        "WHERE d.new_reflection_id IS NOT NULL AND d.undone_at IS NULL"
    )
    if ids is not None:
        if not ids:
            return {}
        marks = ",".join("?" * len(ids[:500]))
        return {
            str(a): str(b)
            for a, b in raw.execute(f"{sql} AND d.new_reflection_id IN ({marks})", ids[:500])
        }
    return {str(a): str(b) for a, b in raw.execute(sql)}
