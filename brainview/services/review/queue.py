"""The proposal queue as the triage screen reads it: light rows, one page at a time.

A page costs a constant number of queries: one count, one page read, the batched
staleness checks of :func:`brainview.services.apply.stale.stale_for` for that page and the
lifecycle states of the reflections its proposals consulted.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from brainview.core.json_strict import loads_stored
from brainview.core.kinds import ParamError, check_params
from brainview.core.safe_text import first_line
from brainview.services.apply.stale import QueuedRef, stale_for
from brainview.services.project import Project
from brainview.services.review.flags import leaning
from brainview.store import approval_rows, proposal_reads
from brainview.store.readmodel import neurons_by_ids

PAGE = 200


@dataclass(frozen=True)
class QueueRow:
    """What one line of the queue shows."""

    id: str
    kind: str
    skill: str
    summary: str
    created_at: str
    n_consulted: int
    status: str
    params_json: str | None
    """``None`` when too large to load (:mod:`brainview.store.bounded`)."""
    stale: str | None = None
    """Why the proposal no longer fits the brain (pending rows only), or ``None``."""
    suspicion: str | None = None
    """``brainview_proposal.suspicion``: a JSON list of flags (see
    :func:`brainview.services.lifecycle.blast.decode_suspicion`), or ``None``."""
    leans: tuple[tuple[str, str], ...] = ()
    """Consulted reflections that are not live now, ``(id, state)`` (pending rows only;
    :func:`brainview.services.review.flags.leaning`)."""
    title_summary: str | None = None
    """``summary`` with the user neuron ids it names shown as ``⟦title⟧``
    (:func:`with_titles`; ``None`` until then or when it names none)."""
    approval: tuple[str, str] | None = None
    """``(who, verdict)`` of the vote waiting for a second person (the two-person rule;
    pending rows only), or ``None``."""


def pending_total(project: Project) -> int:
    """How many proposals wait for a decision."""
    if project.agent is None:
        return 0
    with project.agent.read() as conn:
        return proposal_reads.pending_total(conn)


def page(
    project: Project,
    *,
    status: str = "pending",
    sort: str = "age",
    needle: str = "",
    offset: int = 0,
    limit: int = PAGE,
) -> tuple[list[QueueRow], int]:
    """One page of the queue and the total matching; stale flags for that page only."""
    if project.agent is None:
        return [], 0
    with project.agent.read() as conn:
        read, total = proposal_reads.queue_page(
            conn, status=status, sort=sort, needle=needle, offset=offset, limit=limit
        )
        rows = [
            QueueRow(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], suspicion=r[8]) for r in read
        ]
        chars = {r[0]: int(r[9] or 0) for r in read}
        if status == "pending" and rows:
            refs = [QueuedRef(r.id, r.kind, r.params_json, r.created_at, chars[r.id]) for r in rows]
            reasons = stale_for(project, refs, agent_conn=conn)
            leans = leaning(conn, project.agent.era, [r.id for r in rows])
            votes = approval_rows.open_votes(conn, [r.id for r in rows])
            rows = [
                replace(
                    r,
                    stale=reasons.get(r.id),
                    leans=leans.get(r.id, ()),
                    approval=_first(votes.get(r.id)),
                )
                for r in rows
            ]
    return rows, total


def _first(votes: list[dict[str, object]] | None) -> tuple[str, str] | None:
    return (str(votes[0]["actor"]), str(votes[0]["verdict"])) if votes else None


QueueSignature = tuple[int, int, int, int]
"""Pending count, highest rowid, summed versions, vote events (:func:`signature`)."""


def signature(project: Project) -> QueueSignature:
    """A cheap fingerprint of the queue: changes when proposals arrive or are decided,
    and (its fourth number) when a vote under the two-person rule is cast or withdrawn."""
    if project.agent is None:
        return (0, 0, 0, 0)
    with project.agent.read() as conn:
        return (*proposal_reads.queue_signature(conn), approval_rows.event_count(conn))


TITLE_CHARS = 32


def with_titles(project: Project, rows: list[QueueRow]) -> list[QueueRow]:
    """``rows`` with ``title_summary`` set: each user neuron id a row's summary names is
    replaced by the neuron's title (one batched read of the user brain)."""
    named: dict[str, list[str]] = {}
    lessons: set[str] = set()
    for row in rows:
        if row.params_json is None:
            continue
        try:
            refs, _ = check_params(row.kind, loads_stored(row.params_json))
        except (ParamError, ValueError, TypeError, KeyError, AttributeError):
            continue
        ids = [n for n in refs.neurons if n in row.summary]
        shown = [r for r in refs.reflections if r in row.summary]  # consolidation items
        lessons.update(shown)
        if ids or shown:
            named[row.id] = ids + shown
    wanted = sorted({n for ids in named.values() for n in ids} - lessons)
    if not named:
        return rows
    titles: dict[str, str] = {}
    if wanted:
        with project.user.read() as conn:
            found = neurons_by_ids(conn, project.user.era, wanted)
        titles |= {nid: first_line(n.content, TITLE_CHARS) for nid, n in found.items()}
    if lessons and project.agent is not None:
        with project.agent.read() as conn:
            found = neurons_by_ids(conn, project.agent.era, sorted(lessons))
        titles |= {rid: first_line(n.content, TITLE_CHARS) for rid, n in found.items()}
    out = []
    for row in rows:
        text = row.summary
        for nid in sorted(named.get(row.id, ()), key=len, reverse=True):
            if titles.get(nid):
                text = text.replace(nid, f"⟦{titles[nid]}⟧")
        out.append(replace(row, title_summary=text) if text != row.summary else row)
    return out
