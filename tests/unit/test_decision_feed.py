"""The decision feed (``decisions_since``): a reader that keeps its cursor misses no
decision and no undo — even when the clock stands still, so that every change has the
same stamp and the random decision ids fall on either side of the cursor — and pages
through a bulk decision exactly once."""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

import pytest

from brainview.core import fsrs_math
from brainview.demo.generator import DEMO_NOW
from brainview.errors import UsageError
from brainview.services import intake, review
from brainview.services.audit.decision_feed import FeedQuery, decisions_since
from brainview.services.project import Project
from brainview.store.discovery import discover

T = DEMO_NOW + timedelta(hours=1)


def _queue(project: Project, n: int) -> list[str]:
    with project.user.read() as conn:
        users = [r[0] for r in conn.exec_driver_sql(
            "SELECT id FROM neuron WHERE retired_at IS NULL ORDER BY id LIMIT 3")]  # fmt: skip
    batch = [
        {"id": f"feed-{i:02d}", "kind": "note", "params": {"neurons": users[:1]}, "rationale": "x"}
        for i in range(n)
    ]
    intake.submit(project, batch, now=DEMO_NOW)
    return [b["id"] for b in batch]


class Reader:
    """A curator polling with its cursor, keeping what it has seen."""

    def __init__(self, project: Project, limit: int = 100) -> None:
        self.project, self.limit = project, limit
        self.cursor: str | None = None
        self.seen: list[tuple[str, bool]] = []

    def poll(self) -> None:
        while True:
            query = FeedQuery(since="2h" if self.cursor is None else None, cursor=self.cursor,
                              limit=self.limit)  # fmt: skip
            page: dict[str, Any] = decisions_since(self.project, query, now=T)
            for d in page["decisions"]:
                if (d["decision_id"], d["undone"]) not in self.seen:
                    self.seen.append((d["decision_id"], d["undone"]))
            self.cursor = page["next_cursor"]
            if not page["more"]:
                return


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_no_change_is_missed_when_the_clock_stands_still(demo, seed: int) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    rng = random.Random(seed)
    with Project.open(discover(root), write_agent=True) as project:
        pids = _queue(project, 8)
        reader = Reader(project, limit=rng.choice([1, 2, 100]))
        made: list[tuple[str, bool]] = []
        for pid in pids:
            verdict = rng.choice(["accept", "reject", "dismiss"])
            result = review.decide(project, pid, verdict, decider="m", now=T, reason="r")  # type: ignore[arg-type]
            made.append((result.decision_id, False))
            if rng.random() < 0.4:
                undone = rng.choice([d for d, u in made if not u and (d, True) not in made])
                review.undo(project, undone, now=T - timedelta(minutes=30), actor="m")
                made.append((undone, True))
            if rng.random() < 0.6:
                reader.poll()
        reader.poll()
    # Every decision is read, and its last state read is its state now (one decided
    # and undone between two polls is read once, undone).
    assert dict(reader.seen) == dict(made)
    assert len(reader.seen) == len(set(reader.seen))


def test_a_bulk_decision_pages_once_and_a_quiet_poll_returns_nothing(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    with Project.open(discover(root), write_agent=True) as project:
        pids = _queue(project, 5)
        results = review.decide_many(project, pids, "reject", reason="no", decider="m", now=T)
        pages, cursor = [], None
        while True:
            page = decisions_since(project, FeedQuery(since="2h", cursor=cursor, limit=2), now=T)
            pages.append([d["decision_id"] for d in page["decisions"]])
            cursor = page["next_cursor"]
            if not page["more"]:
                break
        quiet = decisions_since(project, FeedQuery(cursor=cursor), now=T)
    assert [len(p) for p in pages] == [2, 2, 1]
    assert sorted(sum(pages, [])) == sorted(r.decision_id for r in results)
    assert quiet["decisions"] == [] and quiet["next_cursor"] == cursor


def test_an_undo_is_never_stamped_before_the_last_decision(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    with Project.open(discover(root), write_agent=True) as project:
        (pid,) = _queue(project, 1)
        decided = review.decide(project, pid, "accept", decider="m", now=T)
        undone = review.undo(project, decided.decision_id, now=T - timedelta(days=1), actor="m")
    assert undone.undone_at == decided.decided_at == fsrs_math.format_ts(T)


@pytest.mark.parametrize(
    ("query", "message"),
    [
        (FeedQuery(limit=0), "limit must be between 1 and 1000"),
        (FeedQuery(since="soon"), "since: expected an ISO 8601 date/time or an age like 7d"),
        (FeedQuery(cursor="2026-11-30T09:00:00+00:00|dec-1"), "cursor: not a cursor"),
        (FeedQuery(cursor="yesterday|dec-1|2"), "cursor: not a cursor"),
        (FeedQuery(cursor="2026-11-30T09:00:00+00:00|dec-1|-1"), "cursor: not a cursor"),
    ],
)
def test_bad_arguments_are_usage_errors(project, query: FeedQuery, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(UsageError, match=message.replace("|", r"\|")):
        decisions_since(project, query, now=T)
