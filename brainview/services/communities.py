"""Reflection communities: the cached partition and what each community looks like now.

The partition comes from :mod:`~brainview.services.community_cache` (this process's
memory, else the user's cache dir — never a brain) when its fingerprint still matches
the graph, else from a :class:`~brainview.services.clustering_runner.ClusteringJob`.
Nothing here writes a brain. Everything that depends on time or on decisions
(retrievability, strong/miss grades) is computed at load, vectorised over all live
reflections, never cached.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

import numpy as np
from sqlalchemy import text

from brainview.core import clustering, fsrs_math
from brainview.core.clustering import Partition
from brainview.services import community_cache
from brainview.services.clustering_runner import ClusteringJob, Progress, graph_fingerprint
from brainview.services.curves import reflection_cards, titles
from brainview.services.project import Project
from brainview.store.readmodel import table_exists

NOT_CLUSTERED = -2
"""Community of a reflection that appeared after the cached partition was computed."""
SINGLETONS = -1
"""The pseudo-community gathering every isolated reflection."""


def current_fingerprint(project: Project) -> str:
    """The agent brain's reflection-graph fingerprint now (one short read)."""
    agent = project.require_agent()
    with agent.read() as conn:
        return graph_fingerprint(conn, agent.era)


def load_partition(project: Project) -> tuple[Partition | None, bool]:
    """The cached partition (if any) and whether it matches the graph as it is now."""
    agent = project.require_agent()
    return community_cache.lookup(agent.path, current_fingerprint(project))


def store_partition(project: Project, part: Partition) -> bool:
    """Cache ``part`` outside the brains (memory and the user's cache dir); ``False`` if
    only the memory copy could be kept. Never writes a brain."""
    return community_cache.save(project.require_agent().path, part)


def ensure_partition(
    project: Project,
    *,
    now: datetime,
    progress: Progress | None = None,
    in_process: bool | None = None,
) -> Partition:
    """A partition matching the graph now: the cache, or a fresh run (then cached
    outside the brains)."""
    cached, fresh = load_partition(project)
    if cached is not None and fresh:
        return cached
    agent = project.require_agent()
    job = ClusteringJob(
        agent.path, now_iso=fsrs_math.format_ts(now), progress=progress, in_process=in_process
    )
    part = job.run()
    store_partition(project, part)
    return part


@dataclass
class CommunityData:
    """Per-reflection arrays (aligned to ``ids``) behind the communities screen."""

    partition: Partition
    fresh: bool
    ids: list[str]
    community: np.ndarray
    """Community per reflection (``NOT_CLUSTERED`` for ones newer than the partition)."""
    skill_names: list[str]
    skill: np.ndarray
    """Index into ``skill_names`` per reflection."""
    r_now: np.ndarray
    """Retrievability now (py-fsrs, 0 for never reviewed)."""
    reviewed: np.ndarray
    stability: np.ndarray
    last_review: np.ndarray
    strong: np.ndarray
    miss: np.ndarray
    spikuit: np.ndarray
    """Spikuit's own ``community_id`` (``-1`` where absent), for comparison."""
    singletons: np.ndarray
    """Whether each community number is a singleton."""
    policies: dict[int, list[str]] = field(default_factory=dict)
    _sorted: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False)

    def members(self, number: int) -> np.ndarray:
        """Row indices of a community's members (``SINGLETONS`` = every isolated one)."""
        if number == SINGLETONS:
            clustered = self.community >= 0
            mask = np.zeros(self.community.size, dtype=bool)
            mask[clustered] = self.singletons[self.community[clustered]]
            return np.flatnonzero(mask)
        order, starts = self._index()
        if not 0 <= number < starts.size - 1:
            return np.zeros(0, dtype=np.int64)
        return order[starts[number] : starts[number + 1]]

    def _index(self) -> tuple[np.ndarray, np.ndarray]:
        """Rows sorted by community and where each community starts (built once)."""
        if self._sorted is None:
            order = np.argsort(self.community, kind="stable")
            bounds = np.arange(self.singletons.size + 1)
            starts = np.searchsorted(self.community[order], bounds, side="left")
            self._sorted = (order, starts)
        return self._sorted


def load_data(project: Project, part: Partition, fresh: bool, now: datetime) -> CommunityData:
    """Read live reflections, cards and grades, and align them with ``part``."""
    agent = project.require_agent()
    era = agent.era
    spk = "n.community_id" if era.has_community else "NULL"
    with agent.read() as conn:
        rows = conn.execute(
            text(
                f"SELECT n.id, n.domain, {spk} FROM neuron n "
                f"WHERE n.type = 'reflection' AND {era.live('n')} ORDER BY n.id"
            )
        ).all()
        ids = [r[0] for r in rows]
        stab, last = reflection_cards(conn, era, ids)
        strong, miss = _grades(conn, ids)
    where = dict(zip(part.ids, part.membership.tolist(), strict=True))
    community = np.fromiter((where.get(i, NOT_CLUSTERED) for i in ids), np.int64, len(ids))
    names = sorted({(r[1] or "") for r in rows})
    code = {n: k for k, n in enumerate(names)}
    reviewed = np.isfinite(stab) & np.isfinite(last)
    policies: dict[int, list[str]] = {}
    for pid, number in sorted(part.policies.items()):
        policies.setdefault(number, []).append(pid)
    return CommunityData(
        partition=part,
        fresh=fresh,
        ids=ids,
        community=community,
        skill_names=names,
        skill=np.fromiter((code[r[1] or ""] for r in rows), np.int64, len(rows)),
        r_now=fsrs_math.retrievability(stab, last, now),
        reviewed=reviewed,
        stability=stab,
        last_review=last,
        strong=strong,
        miss=miss,
        spikuit=np.fromiter((-1 if r[2] is None else int(r[2]) for r in rows), np.int64, len(rows)),
        singletons=part.sizes() == 1,
        policies=policies,
    )


def _grades(conn, ids: list[str]) -> tuple[np.ndarray, np.ndarray]:  # type: ignore[no-untyped-def]
    """Strong and miss grades per reflection from standing decisions (zeros if none yet)."""
    strong = np.zeros(len(ids), dtype=np.int64)
    miss = np.zeros(len(ids), dtype=np.int64)
    if not (table_exists(conn, "brainview_grade") and table_exists(conn, "brainview_decision")):
        return strong, miss
    pos = {rid: k for k, rid in enumerate(ids)}
    for rid, s, m in conn.execute(
        text(
            "SELECT g.reflection_id, SUM(CASE WHEN g.grade = 4 THEN 1 ELSE 0 END), "
            "SUM(CASE WHEN g.grade = 1 THEN 1 ELSE 0 END) FROM brainview_grade g "
            "JOIN brainview_decision d ON d.id = g.decision_id WHERE d.undone_at IS NULL "
            "GROUP BY g.reflection_id"
        )
    ):
        k = pos.get(rid)
        if k is not None:
            strong[k], miss[k] = int(s or 0), int(m or 0)
    return strong, miss


# -- the list, labels, members and curves --------------------------------------------------

SORTS = ("size", "fading", "misses")
MAX_ROWS = 300
LABEL_SAMPLE = 30
"""Members (first by id) whose text feeds a community's label."""
DF_SAMPLE = 5_000
"""Reflections (a rowid stride) that stand for the whole brain's term frequencies."""


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
                label=labels.get(n, "isolated reflections" if n == SINGLETONS else ""),
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
    """Most distinctive terms of each community against a sample of the whole brain."""
    agent = project.require_agent()
    live = agent.era.live("n")
    with agent.read() as conn:
        total = max(1, len(data.ids))
        stride = max(1, total // DF_SAMPLE)
        sample = conn.execute(
            text(
                f"SELECT substr(content, 1, {clustering.LABEL_CHARS}) FROM neuron n "
                f"WHERE n.type = 'reflection' AND {live} AND (n.rowid % :k) = 0"
            ),
            {"k": stride},
        )
        df, n_docs = clustering.document_frequency(clustering.terms(r[0]) for r in sample)
        wanted = {n: [data.ids[k] for k in idx[:LABEL_SAMPLE]] for n, idx in groups.items()}
        texts = _heads(conn, [rid for ids in wanted.values() for rid in ids])
    out = {}
    for n, ids in wanted.items():
        docs = [clustering.terms(texts.get(rid, "")) for rid in ids]
        out[n] = " · ".join(clustering.distinctive_terms(docs, df, n_docs))
    return out


def _heads(conn, ids: list[str]) -> dict[str, str]:  # type: ignore[no-untyped-def]
    """The start of each reflection's text (cut in SQL: huge texts stay cheap)."""
    out: dict[str, str] = {}
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        marks = ",".join(f":p{i}" for i in range(len(chunk)))
        sql = (
            f"SELECT id, substr(content, 1, {clustering.LABEL_CHARS}) FROM neuron "
            f"WHERE id IN ({marks})"
        )
        for rid, head in conn.execute(text(sql), {f"p{i}": v for i, v in enumerate(chunk)}):
            out[rid] = head or ""
    return out


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


def member_rows(
    project: Project, data: CommunityData, number: int, *, limit: int = 500
) -> tuple[list[MemberRow], int]:
    """Members, weakest first (never reviewed, then R now ascending, then id)."""
    idx = data.members(number)
    key = np.where(data.reviewed[idx], data.r_now[idx], -1.0)
    order = idx[np.lexsort((idx, key))][:limit]
    with project.require_agent().read() as conn:
        names = titles(project, conn, [data.ids[k] for k in order])
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
