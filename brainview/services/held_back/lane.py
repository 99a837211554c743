"""Reading held-back drafts: the triage lane (which ones a maintainer should see, and
why) and one draft with its lessons.

The lane (:func:`lane`) is every *undecided* draft that :func:`brainview.core.held_back.
why_shown` picks — opposed by a suspect lesson, by a weakly corroborated one, or
sampled — in that order, newest first within each;
``everything=True`` lists every reported draft, decided or not, each with its reason
(``None``: not in the lane) and its standing verdict.  Read-only: one read transaction,
no write, nothing cached.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

from sqlalchemy import Connection

from brainview.config import HeldBackConfig
from brainview.core.held_back import lane_order, why_shown
from brainview.core.influence import Influence
from brainview.core.kinds import ParamError, check_params
from brainview.core.signals import Settings, lesson_signals
from brainview.errors import NotFoundError
from brainview.services.project import Project
from brainview.store import held_back_rows as rows
from brainview.store.era import Era
from brainview.store.influence_reads import project_deciders
from brainview.store.readmodel import neurons_by_ids
from brainview.store.rows import Row, driver

PAGE = 500
SCAN = 5_000
"""Reports the lane orders (the newest): a bound, so the lane never reads a whole log."""
PREVIEW = 1_000
"""Characters of a lesson's content an item carries (the reflection view has it all)."""


@dataclass(frozen=True)
class Lesson:
    """One lesson a held-back draft names."""

    id: str
    stance: str
    state: str
    """``live``, ``challenged``, ``invalidated``, ``retired`` or ``missing``."""
    content: str
    deciders: tuple[str, ...]
    """Distinct deciders who confirmed it (see :func:`held_back_rows.confirmations`)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "reflection": self.id, "stance": self.stance, "state": self.state,
            "confirmations": len(self.deciders), "deciders": list(self.deciders),
            "content": self.content,
        }  # fmt: skip


@dataclass(frozen=True)
class HeldBackItem:
    """One reported draft, its lessons, why the lane shows it and its verdict."""

    id: str
    kind: str
    summary: str
    draft: dict[str, Any]
    action: str
    rewritten_as: str | None
    recall_id: str | None
    runtime: str
    skill: str | None
    reason: str | None
    reported_at: str
    lessons: list[Lesson] = field(default_factory=list)
    why: str | None = None
    """Why the lane shows it (``None``: it does not)."""
    verdict: dict[str, Any] | None = None
    """The standing verdict (``decision_id``, ``verdict``, ``decider``, ``decided_at``,
    ``reason``, ``proposal_id``), ``None`` while undecided."""
    confidence: float | None = None
    """How sure the curator was that holding it back was right (``None``: not said)."""

    @property
    def opposing(self) -> list[Lesson]:
        return [lesson for lesson in self.lessons if lesson.stance == "oppose"]

    def to_json(self) -> dict[str, Any]:
        """Plain JSON (``held-back list --json``)."""
        return {
            "id": self.id, "kind": self.kind, "summary": self.summary, "action": self.action,
            "rewritten_as": self.rewritten_as, "recall_id": self.recall_id,
            "runtime": self.runtime, "skill": self.skill, "reason": self.reason,
            "reported_at": self.reported_at, "confidence": self.confidence,
            "in_lane": self.why is not None,
            "why": self.why, "verdict": self.verdict, "draft": self.draft,
            "lessons": [lesson.to_json() for lesson in self.lessons],
        }  # fmt: skip


def lane(
    project: Project,
    cfg: HeldBackConfig,
    *,
    everything: bool = False,
    limit: int = 200,
    signals: Settings | None = None,
) -> list[HeldBackItem]:
    """The lane, at most ``limit``: drafts a suspect lesson held back first, then the
    weakly corroborated, then the random check (:func:`~brainview.core.held_back.tier`),
    newest first within each, among the newest :data:`SCAN` reports; ``everything``:
    every reported draft, newest first.  Empty without an agent brain."""
    if project.agent is None:
        return []
    agent = project.agent
    out: list[HeldBackItem] = []
    with agent.read() as conn:
        s = replace(signals or Settings(), project_deciders=project_deciders(driver(conn)))
        offset = 0
        while (len(out) < limit) if everything else offset < SCAN:
            page = rows.items(conn, limit=PAGE, offset=offset)
            if not page:
                break
            offset += len(page)
            for it in _build(conn, agent.era, page, cfg, s):
                if everything or (it.verdict is None and it.why is not None):
                    out.append(it)
    if not everything:
        out.sort(key=lambda it: lane_order(it.why, it.confidence))  # stable: then newest
    return out[:limit]


def show(project: Project, held_back_id: str, cfg: HeldBackConfig) -> HeldBackItem:
    """One reported draft (NotFoundError when there is none)."""
    agent = project.require_agent()
    with agent.read() as conn:
        row = rows.item(conn, held_back_id)
        if row is None:
            raise NotFoundError(f"no held-back draft {held_back_id!r}")
        return _build(conn, agent.era, [row], cfg)[0]


def _suspect(
    conn: Connection, ids: list[str], texts: dict[str, Any], s: Settings
) -> dict[str, str]:
    """Lessons among ``ids`` with a suspicion signal → the first signal's reason."""
    from brainview.services.influence import influence_many

    infl = influence_many(driver(conn), ids)
    out = {}
    for rid in ids:
        text = texts[rid].content if rid in texts else None
        found = lesson_signals(infl.get(rid, Influence(rid)), text, s)
        if found:
            out[rid] = found[0].reason
    return out


def _build(
    conn: Connection, era: Era, page: list[Row], cfg: HeldBackConfig, s: Settings | None = None
) -> list[HeldBackItem]:
    from brainview.services.lifecycle import statuses

    ids = [str(r["id"]) for r in page]
    named = rows.lessons_of(conn, ids)
    verdicts = rows.standing_verdicts(conn, ids)
    refl = list(dict.fromkeys(r for hid in ids for r, _s in named.get(hid, [])))
    texts = neurons_by_ids(conn, era, refl)
    states = statuses(conn, era, refl)
    confirmed = rows.confirmations(conn, refl)
    opposing = list(
        dict.fromkeys(r for hid in ids for r, st in named.get(hid, []) if st == "oppose")
    )
    suspect = _suspect(conn, opposing, texts, s or Settings())
    for rid in opposing:  # held back by a lesson since taken out of recall: first of all
        state = states[rid].state if rid in states else "missing"
        if state in ("quarantined", "invalidated"):
            suspect[rid] = f"since {state}"
    out = []
    for row in page:
        hid = str(row["id"])
        lessons = [
            Lesson(
                rid,
                stance,
                states[rid].state if rid in states else "missing",
                (texts[rid].content or "")[:PREVIEW] if rid in texts else "",
                tuple(sorted(confirmed.get(rid, set()))),
            )  # fmt: skip
            for rid, stance in named.get(hid, [])
        ]
        counts = {lesson.id: len(lesson.deciders) for lesson in lessons}
        why = why_shown(
            hid, [lesson.id for lesson in lessons if lesson.stance == "oppose"], counts,
            min_confirmations=cfg.min_confirmations, sample_rate=cfg.sample_rate,
            seed=cfg.sample_seed, suspect=suspect,
        )  # fmt: skip
        out.append(_item(row, lessons, why, verdicts.get(hid)))
    return out


def _item(row: Row, lessons: list[Lesson], why: str | None, verdict: Row | None) -> HeldBackItem:
    draft = json.loads(str(row["draft_json"]))
    try:
        _refs, summary = check_params(str(row["kind"]), draft.get("params", {}))
    except (ParamError, AttributeError, TypeError, ValueError):
        summary = str(row["kind"])
    shown = None
    if verdict is not None:
        keys = ("decision_id", "verdict", "decider", "decided_at", "reason", "proposal_id")
        shown = {k: verdict[k] for k in keys}
    return HeldBackItem(
        str(row["id"]), str(row["kind"]), summary, draft, str(row["action"]),
        row["rewritten_as"], row["recall_id"], str(row["runtime"]), row["skill"],
        row["reason"], str(row["reported_at"]), lessons, why, shown,
        row.get("confidence"),
    )  # fmt: skip
