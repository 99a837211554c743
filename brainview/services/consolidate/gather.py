"""What a consolidation reads from the agent brain, in one read transaction.

Bulk reads go through the raw driver (no ORM rows); reflection texts are read only for
the communities that need a policy draft (:func:`texts`).
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import numpy as np
from sqlalchemy import Connection

from brainview.core import fsrs_math
from brainview.core.consolidation import FireStats, Settings, SynapseRow
from brainview.services.communities.curves import reflection_cards
from brainview.services.communities.runner import graph_fingerprint
from brainview.store.bv_schema_communities import standing_fading
from brainview.store.bv_schema_consolidation import kept_reflections, pending_targets
from brainview.store.consolidate_reads import (
    fire_aggregates,
    lifecycle_rows,
    live_policies,
    live_reflections,
    summarizes_links,
    table_marks,
    text_heads,
    weak_synapses,
)
from brainview.store.era import Era
from brainview.store.readmodel import table_exists
from brainview.store.reflection_cards import cards_aligned
from brainview.store.rows import driver

POLICY_TYPES = ("policy", "community_summary")


@dataclass
class Policy:
    """A live policy neuron and the reflections it summarises."""

    id: str
    content: str
    targets: list[str]
    """Every reflection it ever summarised (``summarizes`` rows, retired ones too)."""
    live_targets: list[str]
    """Those it still summarises: live synapse, live reflection."""


@dataclass
class AgentState:
    """The agent brain as a consolidation sees it."""

    fingerprint: str
    ids: list[str]
    """Live reflections, sorted."""
    skill: dict[str, str]
    created: dict[str, str | None]
    fires: dict[str, FireStats]
    r_now: dict[str, float | None]
    stability: dict[str, float | None]
    last_review: Mapping[str, str | None]
    lifecycle: dict[str, str]
    """Latest lifecycle state of reflections that have one (``challenged`` …)."""
    fading: dict[str, str]
    """Standing fading decision per reflection: ``rescue`` or ``let_go``."""
    synapses: list[SynapseRow]
    policies: dict[str, Policy]
    pending: dict[str, set[str]] = field(default_factory=dict)
    kept: set[str] = field(default_factory=set)
    """Reflections whose prune a maintainer rejected (not proposed again)."""


def plan_fingerprint(raw: sqlite3.Connection, conn: Connection, era: Era) -> str:
    """A digest of everything a plan reads: the reflection graph (with weights), the
    spike log, lifecycle and fading decisions, and how many plans were queued before.
    Two plans with the same fingerprint were planned from the same agent brain."""
    parts: list[object] = [graph_fingerprint(conn, era)]
    names = ("brainview_lifecycle", "brainview_fading_decision", "brainview_consolidation")
    parts += table_marks(raw, {t for t in names if table_exists(conn, t)})
    return hashlib.sha256("|".join(map(repr, parts)).encode()).hexdigest()[:16]


FEW_CARDS = 50
"""Up to this many reflections, cards come from the curves' reader (one at a time)."""


class LastReviews(Mapping[str, "str | None"]):
    """Reflection id → its last review as a brain timestamp (``None``: never reviewed),
    formatted when asked: the plan needs it only for the reflections it prunes."""

    def __init__(self, ids: list[str], last: np.ndarray, reviewed: np.ndarray) -> None:
        self._pos = {rid: k for k, rid in enumerate(ids)}
        self._last = last
        self._reviewed = reviewed

    def __getitem__(self, rid: str) -> str | None:
        k = self._pos[rid]
        if not self._reviewed[k]:
            return None
        return fsrs_math.format_ts(datetime.fromtimestamp(self._last[k], tz=UTC))

    def __iter__(self) -> Iterator[str]:
        return iter(self._pos)

    def __len__(self) -> int:
        return len(self._pos)


def _fire_stats(
    raw: sqlite3.Connection, live: set[str], created: dict[str, str | None], hot_from: datetime
) -> dict[str, FireStats]:
    """Aggregated in SQL (:func:`~brainview.store.consolidate_reads.fire_aggregates`):
    last fire, fires in the hot window, latest spike id, and the last three grades —
    one row per reflection, not per spike."""
    agg: dict[str, tuple[str, int, int, int, int]] = {
        rid: (last, recent, top, missed, graded)
        for rid, last, recent, top, missed, graded in fire_aggregates(
            raw, fsrs_math.format_ts(hot_from)
        )
    }
    out: dict[str, FireStats] = {}
    for rid in live:
        row = agg.get(rid)
        last, recent, top, missed, graded = row if row else (None, 0, None, 0, 0)
        out[rid] = FireStats(
            created_at=created.get(rid),
            last_fire=last,  # already one spelling (NORMALISED); parsed where needed
            fires_recent=recent,
            recent_misses=missed,
            recent_graded=graded,
            last_spike=top,
        )
    return out


def _policies(raw: sqlite3.Connection, era: Era, live: set[str]) -> dict[str, Policy]:
    out = {
        pid: Policy(pid, content or "", [], [])
        for pid, content in live_policies(raw, era, POLICY_TYPES)
    }
    if out:
        for pre, post, gone in summarizes_links(raw, era):
            if pre in out:
                out[pre].targets.append(post)
                if gone is None and post in live:
                    out[pre].live_targets.append(post)
    return out


def read_state(conn: Connection, era: Era, now: datetime, s: Settings) -> AgentState:
    """Read everything but texts (inside the caller's read transaction)."""
    raw = driver(conn)
    rows = live_reflections(raw, era)
    ids = [r[0] for r in rows]
    live = set(ids)
    created: dict[str, str | None] = {r[0]: r[2] for r in rows}
    if era.card_source == "fsrs_state" and len(ids) > FEW_CARDS:
        stab, last = cards_aligned(conn, era, ids)
    else:
        stab, last = reflection_cards(conn, era, ids)
    r_now = fsrs_math.retrievability(stab, last, now)
    reviewed = np.isfinite(stab) & np.isfinite(last)
    lifecycle: dict[str, str] = {}
    if table_exists(conn, "brainview_lifecycle"):
        for rid, state in lifecycle_rows(raw):
            if rid in live:
                lifecycle[rid] = state
    # SHY only ever looks at weak links: filter in SQL (a big brain has 100,000s).
    # Ends and types point at one string object each (not one per row): ~90k rows at 100k.
    same = dict(zip(ids, ids, strict=True))
    types: dict[str, str] = {}
    synapses = [
        SynapseRow(same[pre], same[post], types.setdefault(typ, typ), float(w or 0.0))
        for pre, post, typ, w in weak_synapses(raw, era, s.weak_below)
        if pre in live and post in live
    ]
    del same
    skills: dict[str, str] = {}
    hot_from = fsrs_math.ensure_utc(now) - timedelta(days=s.hot_days)
    return AgentState(
        fingerprint=plan_fingerprint(raw, conn, era),
        ids=ids,
        skill={r[0]: skills.setdefault(r[1] or "", r[1] or "") for r in rows},
        created=created,
        fires=_fire_stats(raw, live, created, hot_from),
        r_now={rid: float(r_now[k]) if reviewed[k] else None for k, rid in enumerate(ids)},
        stability={rid: float(stab[k]) if reviewed[k] else None for k, rid in enumerate(ids)},
        last_review=LastReviews(ids, last, reviewed),
        lifecycle=lifecycle,
        fading={rid: d.action for rid, d in standing_fading(conn).items() if rid in live},
        synapses=synapses,
        policies=_policies(raw, era, live),
        pending=pending_targets(conn),
        kept=kept_reflections(conn),
    )


TEXT_CHARS = 2_000
"""A draft reads the start of each member's text only."""


def texts(conn: Connection, ids: list[str], chars: int = TEXT_CHARS) -> dict[str, str]:
    """The first ``chars`` characters of each of ``ids``."""
    return text_heads(driver(conn), ids, chars)
