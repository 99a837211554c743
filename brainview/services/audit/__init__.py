"""The full audit trail of one reflection, as a dataclass and as JSON.

Where it came from (written by a rejected proposal's decision or a failed tutor / QABot
outcome, added through Spikuit's change log — "imported" —, or already there before
anything was recorded), every
grade it received (with the proposal, verdict and decider behind it; spikes from
outside brainview too; grades an undo took back stay, marked undone — see
:mod:`brainview.services.audit.grades`), the STDP weight changes it took part in, merges, every
lifecycle change (who, when, why, which batch, undone or not), the proposals it
influenced, and every Spikuit event about it.  Read-only; missing brainview tables
read as empty.

Provenance is append-only: the origin is derived from records that are written once
and never rewritten (the decision row, the first event of Spikuit's change log), and
challenge, invalidate, reinstate and every undo only *add* entries (lifecycle rows,
changesets, undone grades) — so none of them can change where a reflection came from.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from sqlalchemy import Connection

import brainview.services.lifecycle.blast as blast
from brainview.core.outcomes import OUTCOME_KIND
from brainview.errors import NotFoundError
from brainview.services import lifecycle
from brainview.services.audit.grades import (
    UNDONE_LIMIT,
    GradeEntry,
    live_grades,
    merged,
    taken_back,
)
from brainview.services.project import Project
from brainview.store import history_reads
from brainview.store.changelog import LoggedEvent, first_event, neuron_events
from brainview.store.effects import logged_effects
from brainview.store.era import Era
from brainview.store.readmodel import neuron, table_exists


@dataclass(frozen=True)
class Origin:
    """How the reflection came to be."""

    kind: str
    """``rejection``, ``outcome`` (a failed tutor / QABot outcome), ``imported`` or
    ``pre-existing``."""
    at: str | None
    actor: str | None = None
    decision_id: str | None = None
    proposal_id: str | None = None
    proposal_kind: str | None = None
    proposal_summary: str | None = None
    reason: str | None = None


@dataclass(frozen=True)
class WeightChange:
    """A synapse row a decision changed (STDP) or created (a rejection's links)."""

    decision_id: str
    at: str
    pre: str
    post: str
    type: str
    before: float | None
    after: float | None
    co_fires: int | None


@dataclass(frozen=True)
class MergeEntry:
    """Lineage: ``absorbed`` another neuron, or was ``merged_into`` one."""

    role: str
    other: str
    at: str | None


@dataclass(frozen=True)
class LifecycleEntry:
    """One lifecycle change."""

    at: str
    state: str
    reason: str
    actor: str
    batch_id: str | None
    action: str | None
    undone_at: str | None = None
    undone_by: str | None = None


@dataclass
class AuditTrail:
    """Everything known about one reflection's history."""

    reflection_id: str
    content: str
    skill: str | None
    type: str | None
    created_at: str
    retired_at: str | None
    status: lifecycle.Status
    origin: Origin
    grades: list[GradeEntry] = field(default_factory=list)
    """Its spikes now, oldest first (``fate`` ``live``)."""
    undone_grades: list[GradeEntry] = field(default_factory=list)
    """Grades undone decisions had fired into it (``fate`` ``undone``), oldest first; at
    most the ``undone_limit`` asked for."""
    undone_grades_total: int = 0
    """How many undone grades there are in all (more than listed when capped)."""
    weight_changes: list[WeightChange] = field(default_factory=list)
    merges: list[MergeEntry] = field(default_factory=list)
    lifecycle: list[LifecycleEntry] = field(default_factory=list)
    influenced: list[blast.ProposalHit] = field(default_factory=list)
    changelog: list[LoggedEvent] = field(default_factory=list)
    """Every Spikuit event about the reflection, oldest first (append-only)."""

    def grade_history(self) -> list[GradeEntry]:
        """Every grade ever fired into it, live and undone, in the order fired."""
        return merged(self.grades, self.undone_grades)

    @property
    def grade_history_total(self) -> int:
        """How many grades :meth:`grade_history` would list uncapped."""
        return len(self.grades) + self.undone_grades_total

    def to_dict(self) -> dict[str, Any]:
        """Plain data (``brainview reflect inspect ID --json``)."""
        return asdict(self)

    def to_json(self) -> str:
        """JSON safe to print to a terminal: every non-ASCII character is escaped, so no
        control, C1 or bidi character of a hostile reflection reaches the terminal."""
        return json.dumps(self.to_dict(), ensure_ascii=True, indent=2)


def trail(project: Project, rid: str, *, undone_limit: int = UNDONE_LIMIT) -> AuditTrail:
    """Read the whole audit trail of ``rid`` (NotFoundError when it does not exist);
    at most ``undone_limit`` undone grades are read (all are counted)."""
    agent = project.require_agent()
    with agent.read() as conn:
        row = neuron(conn, agent.era, rid)
        if row is None:
            raise NotFoundError(f"no reflection {rid!r} in the agent brain")
        undone, undone_total = taken_back(conn, rid, undone_limit)
        return AuditTrail(
            reflection_id=rid,
            content=row.content or "",
            skill=row.domain,
            type=row.type,
            created_at=row.created_at,
            retired_at=row.retired_at,
            status=lifecycle.statuses(conn, agent.era, [rid])[rid],
            origin=_origin(conn, agent.era, rid, row.created_at),
            grades=live_grades(conn, rid),
            undone_grades=undone,
            undone_grades_total=undone_total,
            weight_changes=_weights(conn, rid),
            merges=_merges(conn, agent.era, rid),
            lifecycle=_lifecycle(conn, rid),
            influenced=blast.proposals_of(conn, [rid]),
            changelog=neuron_events(conn, rid) if agent.era.has_changelog else [],
        )


def _origin(conn: Connection, era: Era, rid: str, created_at: str) -> Origin:
    """Recorded once, never rewritten: the decision that wrote it, else the *first*
    event of its history when that is its ``neuron.add`` (a later ``neuron.add`` —
    reinstate, an undo — brings it back, it does not write it), else pre-existing.
    Changesets brainview writes to change a reflection's state never count
    (:func:`~brainview.store.changelog.first_event`)."""
    written = history_reads.written_by_decision(conn, rid)
    if written is not None:  # a failed tutor / QABot outcome writes its lesson the same way
        return Origin("outcome" if written[4] == OUTCOME_KIND else "rejection", *written)
    if era.has_changelog:
        hit = first_event(conn, rid)
        if hit is not None and hit[0] == "neuron.add":
            _op, at, actor, actor_kind, tag = hit
            return Origin("imported", at, f"{actor} ({actor_kind})", reason=f"changeset {tag}")
    return Origin("pre-existing", created_at)


def _weights(conn: Connection, rid: str) -> list[WeightChange]:
    if not table_exists(conn, "brainview_effect"):
        return []
    out = []
    for did, at, e in logged_effects(conn, "synapse", rid):
        if rid not in (e.key.get("pre"), e.key.get("post")):
            continue
        before, after = e.before or {}, e.after or {}
        old, new = before.get("weight"), after.get("weight")
        if e.op == "update" and (e.after is None or (type(old) is type(new) and old == new)):
            continue  # a deleted row, or a step that left the weight as it was
        out.append(
            WeightChange(
                str(did), str(at), e.key["pre"], e.key["post"], e.key["type"],
                old if e.op == "update" else None, new, after.get("co_fires"),
            )
        )  # fmt: skip
    return out


def _merges(conn: Connection, era: Era, rid: str) -> list[MergeEntry]:
    if not era.has_lineage:
        return []
    return [
        MergeEntry(str(role), str(other), at)
        for role, other, at in history_reads.lineage(conn, rid)
    ]


def _lifecycle(conn: Connection, rid: str) -> list[LifecycleEntry]:
    return [LifecycleEntry(*row) for row in history_reads.lifecycle_moves(conn, rid)]
