"""Everything the triage screen shows about one proposal.

The user-brain side (neurons it names, the kind-specific preview) and the
agent-brain side (consulted reflections with stance, card, R now, recent grades;
retrieved-only ones apart).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import text

from brainview.core.kinds import check_params
from brainview.errors import NotFoundError
from brainview.services.project import Project
from brainview.services.stale import QueuedRef, stale_reasons
from brainview.store.cards import card_of
from brainview.store.readmodel import NeuronRow, neurons_by_ids


@dataclass(frozen=True)
class ReflectionView:
    """A reflection as the agent-brain pane shows it."""

    id: str
    role: str
    stance: str | None
    note: str | None
    content: str
    skill: str | None
    live: bool
    stability: float | None
    retrievability: float | None
    recent_grades: list[int]


@dataclass
class ProposalDetail:
    """One proposal with both brains' context."""

    id: str
    kind: str
    skill: str
    status: str
    summary: str
    rationale: str
    created_at: str
    params: dict[str, Any]
    runtime: str | None
    stale: str | None
    neurons: dict[str, NeuronRow] = field(default_factory=dict)
    preview: list[tuple[str, str, str]] = field(default_factory=list)
    """(what, before, after) lines of the kind-specific preview."""
    consulted: list[ReflectionView] = field(default_factory=list)
    retrieved: list[ReflectionView] = field(default_factory=list)


def load(project: Project, proposal_id: str, now: datetime) -> ProposalDetail:
    """Read one proposal and its context from both brains."""
    agent = project.require_agent()
    with agent.read() as conn:
        row = conn.execute(
            text(
                "SELECT id, kind, skill, status, summary, rationale, created_at, params_json, "
                "runtime FROM brainview_proposal WHERE id = :id"
            ),
            {"id": proposal_id},
        ).first()
        if row is None:
            raise NotFoundError(f"no proposal {proposal_id}")
        links = conn.execute(
            text(
                "SELECT reflection_id, role, stance, note FROM brainview_consult "
                "WHERE proposal_id = :id ORDER BY role, seq"
            ),
            {"id": proposal_id},
        ).fetchall()
        refl = neurons_by_ids(conn, agent.era, [r[0] for r in links])
        views: list[ReflectionView] = []
        for rid, role, stance, note in links:
            n = refl.get(rid)
            card = card_of(conn, agent.era, rid)
            grades = [
                int(g)
                for (g,) in conn.execute(
                    text(
                        "SELECT grade FROM spike WHERE neuron_id = :id "
                        "ORDER BY fired_at DESC, id DESC LIMIT 5"
                    ),
                    {"id": rid},
                )
            ][::-1]
            views.append(
                ReflectionView(
                    id=rid,
                    role=role,
                    stance=stance,
                    note=note,
                    content=n.content if n else "(missing reflection)",
                    skill=n.domain if n else None,
                    live=bool(n and n.live),
                    stability=card.stability if card else None,
                    retrievability=card.retrievability(now) if card else None,
                    recent_grades=grades,
                )
            )
    params = json.loads(row[7])
    detail = ProposalDetail(
        id=row[0],
        kind=row[1],
        skill=row[2],
        status=row[3],
        summary=row[4],
        rationale=row[5],
        created_at=row[6],
        params=params,
        runtime=row[8],
        stale=None,
        consulted=[v for v in views if v.role == "consulted"],
        retrieved=[v for v in views if v.role == "retrieved"],
    )
    refs, _ = check_params(detail.kind, params)
    with project.user.read() as uconn:
        detail.neurons = neurons_by_ids(uconn, project.user.era, list(refs.neurons))
        if detail.status == "pending":
            detail.stale = stale_reasons(
                uconn, project.user.era, [QueuedRef(row[0], row[1], row[7], row[6])]
            ).get(detail.id)
        detail.preview = _preview(uconn, project, detail, refs)
    return detail


def _preview(conn, project: Project, d: ProposalDetail, refs) -> list[tuple[str, str, str]]:  # type: ignore[no-untyped-def]
    era = project.user.era
    p = d.params
    if d.kind in ("add_synapse", "remove_synapse", "set_synapse_weight"):
        pre, post, typ = refs.synapse
        rows = conn.execute(
            text(
                "SELECT pre, post, weight FROM synapse WHERE type = :t AND "
                f"{era.live_synapse('synapse')} AND "
                "((pre = :a AND post = :b) OR (pre = :b AND post = :a))"
            ),
            {"a": pre, "b": post, "t": typ},
        ).fetchall()
        current = {(r[0], r[1]): float(r[2]) for r in rows}
        edges = [(pre, post)] + ([(post, pre)] if typ in ("relates_to", "contrasts") else [])
        out = []
        for a, b in edges:
            before = f"{current[(a, b)]:.3f}" if (a, b) in current else "—"
            after = {
                "add_synapse": f"{float(p.get('weight', 0.5)):.3f}",
                "remove_synapse": "retired",
                "set_synapse_weight": f"{float(p.get('weight', 0)):.3f}",
            }[d.kind]
            out.append((f"{a} -{typ}→ {b}", before, after))
        return out
    if d.kind in ("set_domain",):
        moving = [d.neurons[n] for n in refs.neurons if n in d.neurons]
        return [(n.id, n.domain or "∅", str(p["domain"])) for n in moving]
    if d.kind in ("rename_domain", "merge_domains"):
        olds = [p["old"]] if d.kind == "rename_domain" else list(p["sources"])
        new = p["new"] if d.kind == "rename_domain" else p["target"]
        out = []
        for dom in olds:
            n = conn.execute(
                text(f"SELECT COUNT(*) FROM neuron WHERE domain = :d AND {era.live('neuron')}"),
                {"d": dom},
            ).scalar_one()
            out.append((f"domain {dom}", f"{n} neurons", f"→ {new}"))
        return out
    if d.kind == "merge_neurons":
        keep = p["keep"]
        out = [
            (
                keep,
                "survives",
                "keeps its text" if p.get("content") == "keep" else "gains the merged text",
            )
        ]
        out += [(m, "live", "retired, lineage → " + keep) for m in p["merge"]]
        return out
    if d.kind == "retire_neuron":
        return [(p["neuron"], "live", "retired")]
    if d.kind == "edit_content":
        old = d.neurons.get(p["neuron"])
        return [(p["neuron"], old.content if old else "—", p["content"])]
    return []
