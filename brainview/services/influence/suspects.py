"""The suspicious ranking: every live lesson with a signal, ranked by influence ×
suspicion (:func:`brainview.core.signals.rank`), each signal with its reason.

One pass over the lessons in batches of :data:`BATCH` texts: the text signals and the
MinHash buckets are computed per batch and only the small results are kept (signals,
shingle sets for the gaming comparison); influence comes from the aggregates, one
``GROUP BY`` per table.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from brainview.core.influence import Influence
from brainview.core.safe_text import one_line
from brainview.core.signals import (
    Lesson,
    Settings,
    Signal,
    gaming,
    lesson_signals,
    rank,
    suspicion,
)
from brainview.services.influence import influence_many
from brainview.services.influence.lessons import candidate_groups, lessons_of
from brainview.services.project import Project
from brainview.store import influence_reads, lesson_scan
from brainview.store.rows import driver

BATCH = 500
PREVIEW = 120
"""Characters of a lesson's text kept for the listing."""


@dataclass(frozen=True)
class Suspect:
    """A lesson with at least one signal."""

    id: str
    skill: str | None
    preview: str
    influence: Influence
    signals: list[Signal]

    @property
    def suspicion(self) -> float:
        return suspicion(self.signals)

    @property
    def rank(self) -> float:
        return rank(self.influence, self.signals)

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.id,
            "skill": self.skill,
            "content": self.preview,
            "influence": self.influence.to_json(),
            "signals": [s.to_json() for s in self.signals],
            "suspicion": self.suspicion,
            "rank": self.rank,
        }


def suspects(project: Project, settings: Settings | None = None) -> list[Suspect]:
    """Every live lesson with a signal, highest rank first (ties by id)."""
    s = settings or Settings()
    agent = project.require_agent()
    texts: dict[str, tuple[str | None, str]] = {}
    flagged: dict[str, list[Signal]] = {}
    lessons: list[Lesson] = []
    with agent.read() as conn:
        raw = driver(conn)
        s = replace(s, project_deciders=influence_reads.project_deciders(raw))
        infl = influence_many(raw, None)
        authors = lesson_scan.authors(raw)
        for rows in lesson_scan.lesson_batches(raw, agent.era, BATCH):
            lessons += lessons_of(raw, rows, authors)
            for r in rows:
                inf = infl.get(r.id, Influence(r.id))
                found = lesson_signals(inf, r.content, s)
                if found:
                    flagged[r.id] = found
                texts[r.id] = (r.skill, one_line(r.content, PREVIEW))
    groups = candidate_groups(lessons, s.min_identities)
    for rid, sig in gaming(lessons, s, groups).items():
        flagged.setdefault(rid, []).insert(0, sig)
    named = _named(project, [rid for rid in flagged if rid in texts])
    out = [
        Suspect(
            rid, texts[rid][0], named.get(rid) or texts[rid][1], infl.get(rid, Influence(rid)),
            sigs,
        )
        for rid, sigs in flagged.items()
        if rid in texts
    ]  # fmt: skip
    out.sort(key=lambda x: (-x.rank, x.id))
    return out


def _named(project: Project, ids: list[str]) -> dict[str, str]:
    """Each lesson's first line with its ``[user:…]`` references as ``⟦title⟧``: people
    read titles, not ids (the same naming as the fading list)."""
    from brainview.services.communities.curves import titles

    if not ids:
        return {}
    with project.require_agent().read() as conn:
        return {rid: one_line(t, PREVIEW) for rid, t in titles(project, conn, ids).items()}
