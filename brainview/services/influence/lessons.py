"""Lessons as the gaming signal sees them: who wrote each (its identity) and its word
shingles, the same normalisation the tombstones use
(:func:`brainview.services.lifecycle.tombstones.shingles`)."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable, Sequence

from brainview.core import fsrs_math
from brainview.core.signals import Lesson
from brainview.services.lifecycle.tombstones import buckets, shingles
from brainview.store import lesson_scan
from brainview.store.lesson_scan import LessonRow

_REF = re.compile(r"\[user:([^\]\s]*)\]", re.IGNORECASE)


def claim_shingles(content: str | None) -> frozenset[str]:
    """Shingles that keep the neurons a lesson names: the same template about other
    neurons is another claim, not a repeated one (tombstones fold them on purpose)."""
    return shingles(_REF.sub(lambda m: f" uref{m.group(1).replace('-', '')} ", content or ""))


def identity(row: LessonRow, author: str | None) -> str:
    """Who a lesson came from: the runtime or decider whose decision wrote it, the
    ``.learnings/`` file it was imported from, its Spikuit ``source``, else its skill."""
    if author:
        return author
    src = row.source or ""
    if src.startswith("learnings:"):
        return src.rsplit(":", 1)[0] if src.count(":") >= 2 else src
    return src or f"skill:{row.skill or '?'}"


def _epoch(value: str | None) -> float:
    if not value:
        return 0.0
    try:
        return fsrs_math.parse_ts(value).timestamp()
    except ValueError:
        return 0.0


def lessons_of(
    raw: sqlite3.Connection, rows: Sequence[LessonRow], authors: dict[str, str] | None = None
) -> list[Lesson]:
    """``rows`` as :class:`~brainview.core.signals.Lesson` s (``authors``: read when
    not given, for these rows only)."""
    who = authors if authors is not None else lesson_scan.authors(raw, [r.id for r in rows])
    return [
        Lesson(r.id, identity(r, who.get(r.id)), _epoch(r.created_at), claim_shingles(r.content))
        for r in rows
    ]


def candidate_groups(lessons: Iterable[Lesson], min_size: int) -> list[list[str]]:
    """Ids sharing a MinHash band bucket (near-duplicates almost surely share one),
    groups of at least ``min_size``: the only pairs worth an exact comparison."""
    by_bucket: dict[tuple[int, str], list[Lesson]] = {}
    for x in lessons:
        if x.shingles:
            for band, bucket in enumerate(buckets(x.shingles)):
                by_bucket.setdefault((band, bucket), []).append(x)
    seen: set[tuple[str, ...]] = set()
    out = []
    for members in by_bucket.values():
        if len(members) < min_size or len({m.identity for m in members}) < min_size:
            continue
        ids = tuple(sorted(m.id for m in members))
        if ids not in seen:
            seen.add(ids)
            out.append(list(ids))
    return out
