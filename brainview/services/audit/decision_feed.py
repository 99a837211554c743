"""What the maintainer decided, for the curator that proposed it (MCP ``decisions_since``).

A page of the decision feed (:mod:`brainview.store.decision_feed`): every decision —
accept, reject, dismiss — made since a time or after a cursor, in the order it last
changed, with the grades it fired into each consulted reflection.  A decision undone
later comes back once more, ``undone`` set; its grades are then the ones the undo took
back (read from its effect log, since the exact undo deleted the live rows).

Read-only.  The cursor is ``"<changed_at>|<decision_id>|<n>"``: the last decision
returned and a count that tells whether anything else changed at that same instant
since (:mod:`brainview.store.decision_feed`).  Keep it and pass it next time.  Rarely
(a brain whose clock stood still) a decision already read comes back unchanged: a
reader skips the ``(decision_id, undone)`` pairs it has seen.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from brainview.core import fsrs_math
from brainview.core.grading import GRADE_NAMES
from brainview.core.when import parse_when
from brainview.errors import UsageError
from brainview.services.project import Project
from brainview.services.readout import grades_of
from brainview.store.decision_feed import MAX_SKILLS, boundary_events, changed_decisions
from brainview.store.grade_history import grades_of_undone
from brainview.store.rows import Row

MAX_LIMIT = 1_000


@dataclass(frozen=True)
class FeedQuery:
    """Where to start and what to keep (``since``: ISO 8601 or an age such as ``7d``)."""

    since: str | None = None
    cursor: str | None = None
    skills: tuple[str, ...] = ()
    limit: int = 100


def _position(cursor: str | None) -> tuple[str, str, int] | None:
    if cursor is None:
        return None
    parts = cursor.split("|")
    try:
        at, did, count = parts
        fsrs_math.parse_ts(at)
        n = int(count)
    except (ValueError, IndexError):
        n = -1
    if n < 0 or not parts[1]:
        raise UsageError(f"cursor: not a cursor returned by decisions_since: {cursor[:80]!r}")
    return at, did, n


def _check(query: FeedQuery, now: datetime) -> tuple[str, tuple[str, str, int] | None]:
    if not 1 <= query.limit <= MAX_LIMIT:
        raise UsageError(f"limit must be between 1 and {MAX_LIMIT}")
    if len(query.skills) > MAX_SKILLS:
        raise UsageError(f"skills: at most {MAX_SKILLS}")
    since = ""
    if query.since is not None:
        try:
            since = parse_when(query.since, now)
        except ValueError as err:
            raise UsageError(f"since: {err}") from None
    return since, _position(query.cursor)


def _grade(row: Row) -> dict[str, Any]:
    grade = int(row["grade"])
    return {
        "reflection": row["reflection_id"],
        "stance": row["stance"],
        "grade": grade,
        "grade_name": GRADE_NAMES.get(grade, str(grade)),
        "fired_at": row["fired_at"],
    }


def decisions_since(project: Project, query: FeedQuery, *, now: datetime) -> dict[str, Any]:
    """One page of the feed: ``{"decisions", "count", "more", "next_cursor", "now"}``.

    Raises :class:`~brainview.errors.UsageError` for a bad ``since``, ``cursor`` or
    ``limit``; a project without an agent brain has decided nothing yet.
    """
    since, position = _check(query, now)
    rows: list[Row] = []
    live: dict[str, list[dict[str, Any]]] = {}
    taken: dict[str, list[Row]] = {}
    cursor = query.cursor
    if project.agent is not None:
        with project.agent.read() as conn:  # one snapshot: the page and its cursor
            after: tuple[str, str] | None = None
            if position is not None:
                at, did, seen = position
                if boundary_events(conn, at, did) == seen:
                    after = (at, did)  # nothing new at that instant: resume after it
                else:
                    since = max(since, at)  # read the instant again, in full
            rows = changed_decisions(
                conn, since=since, after=after, skills=query.skills, limit=query.limit + 1
            )
            page = rows[: query.limit]
            live_ids = [r["decision_id"] for r in page if r["undone_at"] is None]
            live = grades_of(conn, live_ids) if live_ids else {}
            taken = grades_of_undone(
                conn, [r["decision_id"] for r in page if r["undone_at"] is not None]
            )
            if page:
                last = page[-1]
                n = boundary_events(conn, last["changed_at"], last["decision_id"])
                cursor = f"{last['changed_at']}|{last['decision_id']}|{n}"
    more, rows = len(rows) > query.limit, rows[: query.limit]
    items = []
    for r in rows:
        did = r["decision_id"]
        grades = live.get(did) if r["undone_at"] is None else [_grade(g) for g in taken[did]]
        items.append(dict(r, undone=r["undone_at"] is not None, grades=grades or []))
    return {
        "decisions": items,
        "count": len(items),
        "more": more,
        "next_cursor": cursor,
        "now": fsrs_math.format_ts(now),
    }
