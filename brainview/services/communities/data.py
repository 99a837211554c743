"""Per-reflection arrays behind the communities views, aligned with a partition.

:func:`load_data` reads live reflections, their cards (→ R now, vectorised) and the
strong / miss grades of standing decisions, and lines them up with a
:class:`~brainview.core.clustering.Partition` (cached or fresh; see
:mod:`~brainview.services.communities.cache`). Time- and decision-dependent values are
computed at each load, never cached. Reads only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

import numpy as np
from sqlalchemy import Connection

from brainview.core import community_label, fsrs_math
from brainview.core.clustering import Partition
from brainview.services.communities.curves import reflection_cards
from brainview.services.project import Project
from brainview.store import bv_schema_communities as reads

NOT_CLUSTERED = -2
"""Community of a reflection that appeared after the cached partition was computed."""
SINGLETONS = community_label.SINGLETONS
"""The pseudo-community gathering every isolated reflection."""


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
    with agent.read() as conn:
        rows = reads.live_reflections(conn, agent.era)
        ids = [r[0] for r in rows]
        stab, last = reflection_cards(conn, agent.era, ids)
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


def _grades(conn: Connection, ids: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Strong and miss grades per reflection from standing decisions (zeros if none yet)."""
    strong = np.zeros(len(ids), dtype=np.int64)
    miss = np.zeros(len(ids), dtype=np.int64)
    pos = {rid: k for k, rid in enumerate(ids)}
    for rid, s, m in reads.standing_grade_counts(conn):
        k = pos.get(rid)
        if k is not None:
            strong[k], miss[k] = s, m
    return strong, miss
