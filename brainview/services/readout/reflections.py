"""Read-only views of the agent brain's reflections for scripts and agents (the CLI's
``reflect list``, ``reflect inspect`` and ``export reflections``).

Pages are keyset pages by id; cards are read in bulk where the era stores them
(``fsrs_state``) and R is computed vectorised for a whole page.  Shapes are plain dicts
of JSON values, documented in ``docs/cli.md``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict
from datetime import datetime
from typing import Any

import numpy as np
from sqlalchemy import Connection

from brainview.core import fsrs_math
from brainview.core.json_strict import finite, loads_stored
from brainview.core.refs import name_refs
from brainview.core.signals import Settings
from brainview.errors import NotFoundError
from brainview.services import audit, lifecycle
from brainview.services.influence import reflection_signals
from brainview.services.intake.refs import resolve
from brainview.services.learnings.detail import provenance as learnings_provenance
from brainview.services.project import Project
from brainview.services.readout.named import ref_titles
from brainview.store import reflection_reads
from brainview.store.cards import card_of
from brainview.store.era import Era
from brainview.store.readmodel import (
    NeuronRow,
    neuron,
    neurons_by_ids,
    synapses_of,
)

BATCH = 500


def _ts(value: object) -> str | None:
    if not value:
        return None
    if isinstance(value, datetime):
        return fsrs_math.format_ts(value)
    return fsrs_math.format_ts(fsrs_math.parse_ts(str(value)))


def cards_of(conn: Connection, era: Era, ids: list[str], now: datetime) -> dict[str, dict]:
    """Card fields and R now for many neurons (absent when never reviewed)."""
    raw: dict[str, dict[str, Any]] = {}
    if era.card_source == "fsrs_state" and ids:
        for nid, card_json in reflection_reads.stored_cards(conn, ids):
            d = loads_stored(card_json)
            stability, last = fsrs_math.card_stability_lastreview(d)
            raw[nid] = {
                "source": "fsrs_state",
                "state": d.get("state"),
                "stability": stability,
                "difficulty": d.get("difficulty"),
                "due": _ts(d.get("due")),
                "last_review": _ts(last),
            }
    else:
        for nid in ids:
            info = card_of(conn, era, nid)
            if info is not None:
                raw[nid] = card_dict(info)
    if raw:
        keys = list(raw)
        stab = np.array([raw[k]["stability"] or np.nan for k in keys], dtype=float)
        last_at = np.array(
            [
                fsrs_math.parse_ts(raw[k]["last_review"]).timestamp()
                if raw[k]["last_review"]
                else np.nan
                for k in keys
            ]
        )
        for k, r in zip(keys, fsrs_math.retrievability(stab, last_at, now), strict=True):
            reviewed = raw[k]["stability"] and raw[k]["last_review"]
            raw[k]["retrievability"] = float(r) if reviewed else None  # never reviewed: no R
    return raw


def rows_for_ids(project: Project, ids: list[str], now: datetime) -> list[dict]:
    """:func:`rows_as_dicts` for the reflections ``ids``, in that order (missing ones
    left out)."""
    agent = project.require_agent()
    with agent.read() as conn:
        found = neurons_by_ids(conn, agent.era, ids)
        return rows_as_dicts(conn, agent.era, [found[i] for i in ids if i in found], now)


def rows_as_dicts(conn: Connection, era: Era, rows: list[NeuronRow], now: datetime) -> list[dict]:
    """Reflections with their card, R now, spike count and lifecycle state."""
    ids = [r.id for r in rows]
    cards, spikes = cards_of(conn, era, ids, now), reflection_reads.spike_counts(conn, ids)
    states = lifecycle.statuses(conn, era, ids)
    out = []
    for r in rows:
        card = cards.get(r.id)
        out.append(
            {
                "id": r.id,
                "skill": r.domain,
                "type": r.type,
                "status": "live" if r.live else "retired",
                "state": states[r.id].state if r.id in states else None,
                "created_at": r.created_at,
                "updated_at": r.updated_at,
                "retired_at": r.retired_at,
                "stability": card["stability"] if card else None,
                "difficulty": card["difficulty"] if card else None,
                "retrievability": card["retrievability"] if card else None,
                "last_review": card["last_review"] if card else None,
                "due": card["due"] if card else None,
                "spikes": spikes.get(r.id, 0),
                "content": r.content,
            }
        )
    return out


def page_reflections(
    project: Project,
    now: datetime,
    *,
    skill: str | None = None,
    status: str = "live",
    type_: str | None = "reflection",
    after: str | None = None,
    limit: int = 50,
) -> tuple[list[dict], int, str | None]:
    """One keyset page by id, the total matching, and the next page's ``after``."""
    agent = project.require_agent()
    with agent.read() as conn:
        ids, total = reflection_reads.neuron_id_page(
            conn, agent.era, skill=skill, status=status, type_=type_, after=after,
            limit=max(1, limit) + 1,
        )  # fmt: skip
        more, ids = len(ids) > max(1, limit), ids[: max(1, limit)]
        found = neurons_by_ids(conn, agent.era, ids)
        rows = rows_as_dicts(conn, agent.era, [found[i] for i in ids], now)
    return rows, total, (ids[-1] if more and ids else None)


def find_reflections(project: Project, query: str, limit: int = 5) -> list[tuple[str, str]]:
    """``(id, text)`` of up to ``limit`` reflections whose id starts with, or whose
    text contains, ``query`` — or that name a user neuron whose text contains it (the
    titles the console shows) — with their ``[user:…]`` references named ``⟦title⟧``
    (the command palette's jump; none without an agent brain)."""
    needle = query.strip()
    if project.agent is None or not needle:
        return []
    # A title the console shows (⟦Tempering⟧) is a user neuron's text: find the
    # neurons it may mean, then the lessons that name them.
    with project.user.read() as uconn:
        meant = reflection_reads.neurons_titled(uconn, needle)
    with project.agent.read() as conn:
        found = dict(reflection_reads.reflections_matching(conn, needle, limit))
        for nid in meant:
            if len(found) >= limit:
                break
            for rid, content in reflection_reads.reflections_matching(conn, f"[user:{nid}]", limit):
                found.setdefault(rid, content)
    hits = list(found.items())[:limit]
    titles = ref_titles(project, [c for _r, c in hits])
    return [(rid, name_refs(content, titles)) for rid, content in hits]


def iter_reflections(
    conn: Connection, era: Era, now: datetime, since: str | None, until: str | None
) -> Iterator[dict]:
    """Every agent-brain neuron (reflections, policies; retired too) by id, in batches."""
    for ids in reflection_reads.neuron_id_batches(conn, since, until, BATCH):
        found = neurons_by_ids(conn, era, ids)
        for row in rows_as_dicts(conn, era, [found[i] for i in ids], now):
            yield finite(row)  # export writes strict JSON, whatever a card holds


def inspect(
    project: Project,
    reflection_id: str,
    now: datetime,
    spikes: int = 50,
    signals: Settings | None = None,
) -> dict:
    """Everything about one reflection: its row and card, R now, synapses, ``[user:…]``
    refs resolved, and its audit trail (:func:`brainview.services.audit.trail`): origin,
    every spike with the decision behind it, every grade a decision fired into it (undone
    ones marked; capped, with the total), weight changes, merges, lifecycle history
    and the proposals it influenced; its influence, suspicion signals and rank
    (:func:`brainview.services.influence.reflection_signals`, ``signals``: thresholds)."""
    agent = project.require_agent()
    with agent.read() as conn:
        row = neuron(conn, agent.era, reflection_id)
        if row is None:
            raise NotFoundError(f"no reflection {reflection_id!r} in the agent brain")
        base = rows_as_dicts(conn, agent.era, [row], now)[0]
        info = card_of(conn, agent.era, reflection_id)
        syn = synapses_of(conn, agent.era, reflection_id, live_only=False)
        imported = learnings_provenance(conn, reflection_id)
    full = audit.trail(project, reflection_id)
    trail = full.to_dict()
    refs = resolve(project, row.content)
    base["card"] = None
    if info is not None:
        base["card"] = card_dict(info) | {
            "retrievability": base["retrievability"],
            "card_json": info.card_json,
        }
    every = trail["grades"]
    base["recent_spikes"] = every[-spikes:] if spikes > 0 else []
    base["grades"] = [g for g in every if g["via"] == "brainview"]
    # Every grade a decision ever fired into it, undone ones too (marked), oldest first.
    base["grade_history"] = [asdict(g) for g in full.grade_history() if g.via == "brainview"]
    base["grade_history_total"] = len(base["grades"]) + full.undone_grades_total
    base["synapses"] = [asdict(s) for s in syn]
    base["refs"] = [asdict(r) for r in refs]
    for key in ("origin", "weight_changes", "merges", "influenced", "changelog"):
        base[key] = trail[key]
    base["lifecycle_history"] = trail["lifecycle"]
    base["imported_from"] = imported
    base |= reflection_signals(project, reflection_id, signals)
    return base


def card_dict(info: Any) -> dict[str, Any]:
    """A :class:`~brainview.store.cards.CardInfo` as JSON values."""
    return {
        "source": info.source,
        "state": info.state,
        "stability": info.stability,
        "difficulty": info.difficulty,
        "due": _ts(info.due),
        "last_review": _ts(info.last_review),
    }
