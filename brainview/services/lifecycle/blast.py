"""Blast radius: what a reflection (or a set of them) touched, and one action over it.

:func:`radius` lists the proposals that consulted or retrieved the targets (pending
ones and decided ones with their verdict), the neurons that ``summarizes`` them
(policies), and the reflections they co-fired with (spike sessions shared, synapses
with ``co_fires > 0``) or link to.  :func:`apply` invalidates or challenges a chosen
selection and flags chosen pending proposals stale-by-suspicion — one lifecycle batch,
so one undo reverts it all.

The ``brainview_proposal.suspicion`` column holds a JSON list of flags (format below);
intake writes flags too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Connection

from brainview.core import fsrs_math
from brainview.core.suspicion import SUSPICION_KINDS as SUSPICION_KINDS
from brainview.core.suspicion import add_flags as add_flags
from brainview.core.suspicion import decode_suspicion as decode_suspicion
from brainview.core.suspicion import describe_flag as describe_flag
from brainview.core.suspicion import describe_suspicion as describe_suspicion
from brainview.services import lifecycle
from brainview.services.project import Project
from brainview.store import blast_reads
from brainview.store.bv_schema_lifecycle import BatchLog
from brainview.store.readmodel import neurons_by_ids

LIMIT = 300


@dataclass(frozen=True)
class ProposalHit:
    """A proposal that consulted (or retrieved) a target."""

    proposal_id: str
    reflection_id: str
    role: str
    stance: str | None
    kind: str
    summary: str
    status: str
    verdict: str | None = None
    decider: str | None = None
    decided_at: str | None = None

    @property
    def supported(self) -> bool:
        """The target pushed toward this proposal (consulted with stance ``support``)."""
        return self.role == "consulted" and (self.stance or "support") == "support"


@dataclass(frozen=True)
class Neighbour:
    """An agent-brain neuron near a target: a policy, a co-firer or a linked reflection."""

    neuron_id: str
    relations: tuple[str, ...]
    """Plain-text reasons, e.g. ``summarizes r-x``, ``co-fired 3× with r-x``."""
    content: str
    type: str | None
    state: str
    is_policy: bool


@dataclass
class BlastRadius:
    """Everything the targets influenced."""

    targets: list[str]
    proposals: list[ProposalHit] = field(default_factory=list)
    neighbours: list[Neighbour] = field(default_factory=list)
    more_neighbours: int = 0

    @property
    def pending(self) -> list[ProposalHit]:
        """Proposals still waiting for a decision."""
        return [p for p in self.proposals if p.status == "pending"]

    @property
    def decided(self) -> list[ProposalHit]:
        """Proposals already decided (with their verdict)."""
        return [p for p in self.proposals if p.status != "pending"]

    def default_flags(self) -> list[str]:
        """Pending proposals a target supported: flagged unless the maintainer unmarks."""
        return list(dict.fromkeys(p.proposal_id for p in self.pending if p.supported))


def proposals_of(conn: Connection, ids: list[str]) -> list[ProposalHit]:
    """Proposals that consulted or retrieved any of ``ids`` (pending first, newest first)."""
    rows = blast_reads.consult_hits(conn, ids)
    decided = sorted({str(r[0]) for r in rows if r[6] != "pending"})
    verdicts = blast_reads.live_verdicts(conn, decided)
    out = []
    for pid, rid, role, stance, kind, summary, status in rows:
        v = verdicts.get(str(pid), (None, None, None))
        out.append(ProposalHit(pid, rid, role, stance, kind, summary or "", status, *v))
    return out


def _relations(
    conn: Connection, agent_era: Any, ids: list[str], limit: int
) -> dict[str, list[str]]:
    """``{neighbour: [reason, …]}`` from synapses and shared spike sessions."""
    targets = set(ids)
    rel: dict[str, list[str]] = {}
    for pre, post, typ, weight, co_fires in blast_reads.synapses_touching(conn, agent_era, ids):
        other, target = (post, pre) if pre in targets else (pre, post)
        if other in targets:
            continue
        if typ == "summarizes" and post == target:
            rel.setdefault(other, []).append(f"summarizes {target}")
        elif co_fires:
            rel.setdefault(other, []).append(f"co-fired {co_fires}× with {target} ({typ})")
        else:
            rel.setdefault(other, []).append(f"{typ} {float(weight or 0):.2f} with {target}")
    for nid, target, sessions in blast_reads.shared_sessions(conn, ids, limit * 4):
        if nid not in targets:
            rel.setdefault(nid, []).append(f"shared {sessions} spike session(s) with {target}")
    return rel


def radius(project: Project, ids: Sequence[str], *, limit: int = LIMIT) -> BlastRadius:
    """The blast radius of ``ids`` (neighbours capped at ``limit``, policies first)."""
    agent = project.require_agent()
    targets = list(dict.fromkeys(ids))
    out = BlastRadius(targets)
    if not targets:
        return out
    with agent.read() as conn:
        for start in range(0, len(targets), 400):
            out.proposals += proposals_of(conn, targets[start : start + 400])
        rel: dict[str, list[str]] = {}
        for start in range(0, len(targets), 400):
            for nid, reasons in _relations(
                conn, agent.era, targets[start : start + 400], limit
            ).items():
                rel.setdefault(nid, []).extend(reasons)
        rows = neurons_by_ids(conn, agent.era, list(rel))
        states = lifecycle.statuses(conn, agent.era, list(rows))
    found = [
        Neighbour(
            nid,
            tuple(dict.fromkeys(rel[nid])),
            row.content or "",
            row.type,
            states[nid].state,
            any(r.startswith("summarizes ") for r in rel[nid]),
        )
        for nid, row in rows.items()
    ]
    found.sort(key=lambda n: (not n.is_policy, -len(n.relations), n.neuron_id))
    out.neighbours = found[:limit]
    out.more_neighbours = max(0, len(found) - limit)
    return out


@dataclass(frozen=True)
class BlastAction:
    """What the maintainer chose: one verb over reflections, plus proposals to flag."""

    verb: str
    reflections: tuple[str, ...]
    flag_proposals: tuple[str, ...] = ()
    reason: str = ""


def apply(
    project: Project, action: BlastAction, *, actor: str, now: datetime
) -> lifecycle.BatchResult:
    """Run the action as one lifecycle batch (one undo reverts all of it)."""
    at = fsrs_math.format_ts(now)
    past = lifecycle.TARGET.get(action.verb, action.verb)

    def extra(log: BatchLog, _changed: list[str]) -> list[str]:
        return flag(log, action.flag_proposals, action.reflections, past, action.reason, at)

    return lifecycle.run_batch(
        project, action.verb, action.reflections, reason=action.reason, actor=actor, now=now,
        extra=extra,
    )  # fmt: skip


def flag(
    log: BatchLog,
    proposal_ids: Sequence[str],
    targets: Sequence[str],
    verb_past: str,
    reason: str,
    at: str,
) -> list[str]:
    """Add a ``blast`` flag to each *pending* proposal; returns the ones flagged."""
    flagged: list[str] = []
    wanted = set(targets)
    for pid in dict.fromkeys(proposal_ids):
        row = blast_reads.status_and_suspicion(log.conn, pid)
        if row is None or row[0] != "pending":
            continue
        consults = blast_reads.consults_of(log.conn, pid)
        base = {"kind": "blast", "verb": verb_past, "detail": reason[:200], "at": at}
        flags = [
            {**base, "reflection": rid, "role": role, "stance": stance or "support"}
            for rid, role, stance in consults
            if rid in wanted
        ] or [{**base, "reflection": ", ".join(list(dict.fromkeys(targets))[:3])}]
        if log.update("brainview_proposal", {"id": pid}, {"suspicion": add_flags(row[1], flags)}):
            flagged.append(pid)
    return flagged


# -- the suspicion column ----------------------------------------------------------------


def radius_view(
    project: Project, ids: Sequence[str]
) -> tuple[BlastRadius, dict[str, Any], dict[str, lifecycle.Status]]:
    """What the blast-radius modal shows: :func:`radius`, the target rows
    (:class:`~brainview.store.readmodel.NeuronRow` by id) and their lifecycle states."""
    found = radius(project, ids)
    agent = project.require_agent()
    with agent.read() as conn:
        rows = neurons_by_ids(conn, agent.era, list(ids))
        states = lifecycle.statuses(conn, agent.era, list(rows))
    return found, rows, states
