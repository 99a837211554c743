"""The standing decisions as numpy columns, and their groupings: verdicts and time per
decision (MAC) by week, by agent-brain age, by runtime and by week × runtime.

A median is no SQL aggregate (not in SQLite, not portable), so MAC needs every
decision's seconds; one read of the standing decisions (seven small columns) therefore
serves the verdict counts too — a separate ``GROUP BY`` for the counts cost more than the
grouping it saved (measured in docs/metrics.md). Grouping is vectorised: ``np.unique``
codes, ``np.bincount`` counts, one ``lexsort`` for all the medians of a grouping.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np
from sqlalchemy import Connection

from brainview.core import fsrs_math
from brainview.store.metrics_reads import first_created, standing_decisions

UNKNOWN_RUNTIME = "unknown"
"""The runtime of proposals that named none."""
POLICY_KIND = "summarize_community"
"""Accepting a proposal of this kind creates a policy neuron."""
OUTCOME_KIND = "outcome"
"""A tutor / QABot outcome: success is an accept, failure a reject; never maintainer time."""
VERDICTS = ("accept", "reject", "dismiss")
DAY_S = 86_400
WEEK_S = 7 * DAY_S


def rate(accepted: int, rejected: int) -> float | None:
    """Accepted share of accept + reject (``None`` without either)."""
    decided = accepted + rejected
    return accepted / decided if decided else None


def epochs(stamps: Sequence[str]) -> np.ndarray:
    """Epoch seconds of brain timestamps (``+00:00``, ``Z``, space separator or naive =
    UTC), parsed by numpy in one go; any other offset falls back to ``parse_ts``."""
    plain: list[str] = []
    odd: list[int] = []
    for k, raw in enumerate(stamps):
        s = raw.strip()
        if s[-1:] in ("Z", "z"):
            s = s[:-1]
        elif s.endswith("+00:00"):
            s = s[:-6]
        elif len(s) > 19 and s[-6] in "+-" and s[-3] == ":":
            odd.append(k)
            s = "1970-01-01"
        plain.append(s)
    out = np.array(plain, dtype="datetime64[us]").astype(np.int64) / 1e6
    for k in odd:
        out[k] = fsrs_math.parse_ts(stamps[k]).timestamp()
    return out


def week_name(monday: int) -> str:
    """``YYYY-MM-DD`` of a Monday given as days since the epoch."""
    return str(np.datetime64(monday, "D"))


@dataclass(frozen=True)
class Decisions:
    """Standing decisions, one entry per decision in every column."""

    at: np.ndarray
    """``decided_at``, epoch seconds."""
    week: np.ndarray
    """Monday of the decision's UTC week, days since the epoch."""
    verdict: np.ndarray
    """Index into :data:`VERDICTS` (3 = anything else)."""
    seconds: np.ndarray
    """Seconds on screen, NaN when not timed."""
    skill: np.ndarray
    """Codes into ``skills``."""
    skills: list[str]
    runtime: np.ndarray
    """Codes into ``runtimes`` (``None`` → :data:`UNKNOWN_RUNTIME`)."""
    runtimes: list[str]
    policy: np.ndarray
    """Whether the proposal was a ``summarize_community``."""
    outcome: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    """Whether the row is a tutor / QABot outcome (:data:`OUTCOME_KIND`), not a proposal."""
    decider: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    """Codes into ``deciders``: who decided (a signed-in person, the OS user, a skill)."""
    deciders: list[str] = field(default_factory=list)

    def where(self, mask: np.ndarray) -> Decisions:
        """The decisions where ``mask`` holds (codes keep their name lists)."""
        return Decisions(
            self.at[mask], self.week[mask], self.verdict[mask], self.seconds[mask],
            self.skill[mask], self.skills, self.runtime[mask], self.runtimes,
            self.policy[mask], self.outcome[mask], self.decider[mask], self.deciders,
        )  # fmt: skip


def _codes(values: list[str]) -> tuple[np.ndarray, list[str]]:
    index: dict[str, int] = {}
    codes = np.array([index.setdefault(v, len(index)) for v in values], dtype=np.int64)
    return codes, list(index)


def read_decisions(conn: Connection) -> Decisions:
    """Every standing (not undone) decision with its proposal's skill, runtime, kind."""
    rows = standing_decisions(conn)
    at = epochs([r[0] for r in rows]) if rows else np.zeros(0)
    days = np.floor(at / DAY_S).astype(np.int64)
    slot = {v: k for k, v in enumerate(VERDICTS)}
    skill, skills = _codes([r[3] or "" for r in rows])
    runtime, runtimes = _codes([r[4] or UNKNOWN_RUNTIME for r in rows])
    decider, deciders = _codes([str(r[6]) for r in rows])
    return Decisions(
        at=at,
        week=days - (days + 3) % 7,  # 1970-01-01 was a Thursday
        verdict=np.array([slot.get(r[1], 3) for r in rows], dtype=np.int64),
        seconds=np.array([np.nan if r[2] is None else float(r[2]) for r in rows], dtype=float),
        skill=skill,
        skills=skills,
        runtime=runtime,
        runtimes=runtimes,
        policy=np.array([r[5] == POLICY_KIND for r in rows], dtype=bool),
        outcome=np.array([r[5] == OUTCOME_KIND for r in rows], dtype=bool),
        decider=decider,
        deciders=deciders,
    )


@dataclass(frozen=True)
class Group:
    """Decisions sharing one key: how many, their median seconds, their verdicts."""

    key: int
    decisions: int
    median_seconds: float | None
    accepted: int
    rejected: int
    dismissed: int
    total_seconds: float = 0.0
    """Summed seconds on screen of the group's timed decisions (every verdict)."""
    timed: int = 0

    @property
    def seconds_per_accepted(self) -> float | None:
        """Maintainer seconds per accepted change: all the timed decision time (rejections
        and dismissals included) over the accepts; ``None`` without an accept or a time."""
        return per_accepted(self.total_seconds, self.timed, self.accepted)


def per_accepted(total_seconds: float, timed: int, accepted: int) -> float | None:
    """``total_seconds / accepted`` (``None`` when nothing was accepted or timed)."""
    return total_seconds / accepted if accepted and timed else None


def group(keys: np.ndarray, d: Decisions) -> list[Group]:
    """One :class:`Group` per distinct key, in key order."""
    if not len(keys):
        return []
    uniq, inv = np.unique(keys, return_inverse=True)
    n = len(uniq)
    counts = np.bincount(inv, minlength=n)
    verdicts = np.bincount(inv * 4 + d.verdict, minlength=n * 4).reshape(n, 4)
    medians = _medians(inv, d.seconds, n)
    timed = ~np.isnan(d.seconds)
    totals = np.bincount(inv[timed], weights=d.seconds[timed], minlength=n)
    n_timed = np.bincount(inv[timed], minlength=n)
    return [
        Group(
            int(uniq[g]), int(counts[g]), medians[g],
            accepted=int(verdicts[g, 0]), rejected=int(verdicts[g, 1]),
            dismissed=int(verdicts[g, 2]), total_seconds=float(totals[g]), timed=int(n_timed[g]),
        )
        for g in range(n)
    ]  # fmt: skip


def _medians(inv: np.ndarray, seconds: np.ndarray, n: int) -> list[float | None]:
    """Median of the timed seconds of each group (``None`` where none was timed)."""
    timed = ~np.isnan(seconds)
    gi, secs = inv[timed], seconds[timed]
    if not len(secs):
        return [None] * n
    order = np.lexsort((secs, gi))
    gi, secs = gi[order], secs[order]
    sizes = np.bincount(gi, minlength=n)
    start = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    last = len(secs) - 1
    lo = np.minimum(start + np.maximum(sizes - 1, 0) // 2, last)
    hi = np.minimum(start + sizes // 2, last)
    mid = (secs[lo] + secs[hi]) / 2
    return [float(mid[g]) if sizes[g] else None for g in range(n)]


def age_weeks(d: Decisions, born: datetime | None) -> np.ndarray:
    """Whole weeks of agent-brain age at each decision (a decision stamped before the
    first neuron counts as week 0)."""
    if born is None:
        return np.zeros(0, dtype=np.int64)
    return np.maximum(0, np.floor((d.at - born.timestamp()) / WEEK_S)).astype(np.int64)


def agent_born(conn: Connection) -> datetime | None:
    """When the agent brain's first neuron (of any type, live or retired) was created."""
    first = first_created(conn)
    return fsrs_math.parse_ts(first) if first else None


def policies_accepted(d: Decisions) -> dict[str, int]:
    """Standing accepts of ``summarize_community`` proposals (new policies) per week."""
    weeks, counts = np.unique(d.week[d.policy & (d.verdict == 0)], return_counts=True)
    return {week_name(int(w)): int(c) for w, c in zip(weeks, counts, strict=True)}
