"""Reflection communities: the cached partition and what each community looks like now.

The partition comes from :mod:`~brainview.services.communities.cache` (this process's
memory, else the user's cache dir — never a brain) when its fingerprint still matches
the graph, else from a :class:`~brainview.services.communities.runner.ClusteringJob`
(:func:`ensure_partition`); the per-reflection arrays come from
:mod:`~brainview.services.communities.data`. Both are re-exported here. This module turns
them into the list (labels, sorts), a community's members and its curves. Nothing here
writes a brain; everything that depends on time or on decisions (retrievability,
strong/miss grades) is computed at load, vectorised over all live reflections.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import numpy as np

import brainview.services.communities.labels as labels
from brainview.core import fsrs_math
from brainview.services import lifecycle
from brainview.services.communities.cache import (
    current_fingerprint,
    ensure_partition,
    load_partition,
    store_partition,
)
from brainview.services.communities.curves import titles
from brainview.services.communities.data import (
    NOT_CLUSTERED,
    SINGLETONS,
    CommunityData,
    load_data,
)
from brainview.services.communities.labels import Placement, placement, shown_number
from brainview.services.project import Project

__all__ = [
    "NOT_CLUSTERED",
    "SINGLETONS",
    "Placement",
    "MAX_ROWS",
    "SORTS",
    "ClusterCurves",
    "CommunityData",
    "CommunityRow",
    "MemberRow",
    "cluster_curves",
    "community_rows",
    "current_fingerprint",
    "ensure_partition",
    "load_data",
    "load_partition",
    "member_rows",
    "placement",
    "shown_number",
    "store_partition",
]

# -- the list, labels, members and curves --------------------------------------------------

SORTS = ("size", "fading", "misses")
MAX_ROWS = 300


@dataclass(frozen=True)
class CommunityRow:
    """One line of the communities list."""

    number: int
    size: int
    skills: dict[str, int]
    mean_r: float | None
    """Mean R now over reviewed members (``None`` if none was reviewed)."""
    reviewed: int
    below: int
    """Reviewed members whose R now is below the pruning threshold."""
    strong: int
    miss: int
    policies: list[str]
    label: str
    """The first line of its most central reflection, references folded to ``⟦…⟧``."""
    spikuit: tuple[int, float] | None
    """Spikuit's most common ``community_id`` among members and its share."""


def community_rows(
    project: Project,
    data: CommunityData,
    *,
    threshold: float,
    sort: str = "size",
    limit: int = MAX_ROWS,
) -> tuple[list[CommunityRow], int]:
    """The first ``limit`` communities in ``sort`` order (all singletons as one row)."""
    numbers = [int(n) for n in np.flatnonzero(~data.singletons)]
    if data.singletons.any():
        numbers.append(SINGLETONS)
    groups = {n: data.members(n) for n in numbers}
    stats = {n: _stats(data, idx, threshold) for n, idx in groups.items()}
    if sort == "fading":
        numbers.sort(key=lambda n: (stats[n][0] is None, stats[n][0] or 0.0, n))
    elif sort == "misses":
        numbers.sort(key=lambda n: (-int(data.miss[groups[n]].sum()), n))
    shown = numbers[:limit]
    labels = _labels(project, data, {n: groups[n] for n in shown if n != SINGLETONS})
    rows = []
    for n in shown:
        idx = groups[n]
        mean_r, reviewed, below = stats[n]
        skills = np.bincount(data.skill[idx], minlength=len(data.skill_names))
        rows.append(
            CommunityRow(
                number=n,
                size=int(idx.size),
                skills={data.skill_names[k]: int(c) for k, c in enumerate(skills) if c},
                mean_r=mean_r,
                reviewed=reviewed,
                below=below,
                strong=int(data.strong[idx].sum()),
                miss=int(data.miss[idx].sum()),
                policies=data.policies.get(n, []),
                label=labels.get(n, "unclustered reflections" if n == SINGLETONS else ""),
                spikuit=_spikuit(data.spikuit[idx]),
            )
        )
    return rows, len(numbers)


def _stats(data: CommunityData, idx: np.ndarray, threshold: float) -> tuple[float | None, int, int]:
    rev = idx[data.reviewed[idx]]
    if rev.size == 0:
        return None, 0, 0
    r = data.r_now[rev]
    return float(r.mean()), int(rev.size), int((r < threshold).sum())


def _spikuit(ids: np.ndarray) -> tuple[int, float] | None:
    present = ids[ids >= 0]
    if present.size == 0:
        return None
    values, counts = np.unique(present, return_counts=True)
    k = int(np.argmax(counts))
    return int(values[k]), float(counts[k] / ids.size)


def _labels(project: Project, data: CommunityData, groups: dict[int, np.ndarray]) -> dict[int, str]:
    """Each community's label: its most central member's first line (references folded)."""
    return labels.labels(project, {n: [data.ids[k] for k in idx] for n, idx in groups.items()})


@dataclass(frozen=True)
class MemberRow:
    """One member of a community."""

    id: str
    title: str
    skill: str
    r_now: float | None
    stability: float | None
    strong: int
    miss: int
    spikuit: int | None
    state: str = "live"
    """Lifecycle state when read (:mod:`brainview.services.lifecycle`): ``live``,
    ``challenged``, ``invalidated`` or ``retired``."""


def member_rows(
    project: Project, data: CommunityData, number: int, *, limit: int = 500
) -> tuple[list[MemberRow], int]:
    """Members, weakest first (never reviewed, then R now ascending, then id), with
    their lifecycle state now."""
    idx = data.members(number)
    key = np.where(data.reviewed[idx], data.r_now[idx], -1.0)
    order = idx[np.lexsort((idx, key))][:limit]
    agent = project.require_agent()
    shown = [data.ids[k] for k in order]
    with agent.read() as conn:
        names = titles(project, conn, shown)
        states = lifecycle.statuses(conn, agent.era, shown)
    rows = [
        MemberRow(
            id=data.ids[k],
            title=names.get(data.ids[k], ""),
            skill=data.skill_names[data.skill[k]],
            r_now=float(data.r_now[k]) if data.reviewed[k] else None,
            stability=float(data.stability[k]) if data.reviewed[k] else None,
            strong=int(data.strong[k]),
            miss=int(data.miss[k]),
            spikuit=int(data.spikuit[k]) if data.spikuit[k] >= 0 else None,
            state=states[data.ids[k]].state if data.ids[k] in states else lifecycle.MISSING,
        )
        for k in order
    ]
    return rows, int(idx.size)


@dataclass(frozen=True)
class ClusterCurves:
    """R-now distribution and the mean forecast of one community."""

    number: int
    counts: list[int]
    """Reviewed members per R decile [0, 0.1) … [0.9, 1.0]."""
    unreviewed: int
    mean_forecast: np.ndarray
    """Mean R over reviewed members at day offsets ``0..days`` (empty if none)."""
    threshold: float
    crossing: float | None
    """First day the mean falls below the threshold (``None`` if not within range)."""


def cluster_curves(
    data: CommunityData, number: int, now: datetime, *, threshold: float, days: int = 90
) -> ClusterCurves:
    """Histogram of R now and the mean forgetting curve over the next ``days`` days."""
    idx = data.members(number)
    rev = idx[data.reviewed[idx]]
    counts, _ = np.histogram(data.r_now[rev], bins=10, range=(0.0, 1.0))
    if rev.size == 0:
        return ClusterCurves(number, [0] * 10, int(idx.size), np.zeros(0), threshold, None)
    d, f = fsrs_math.decay_and_factor()
    elapsed = (fsrs_math.to_epoch_s(now) - data.last_review[rev]) / 86_400
    t = np.maximum(elapsed[:, None] + np.arange(days + 1)[None, :], 0.0)
    mean = ((1.0 + f * t / data.stability[rev][:, None]) ** (-d)).mean(axis=0)
    below = np.flatnonzero(mean < threshold)
    crossing = float(below[0]) if below.size else None
    return ClusterCurves(
        number, [int(c) for c in counts], int(idx.size - rev.size), mean, threshold, crossing
    )
