"""Why a pending proposal deserves a second look before it is accepted, as of now.

A proposal is **flagged** when it carries suspicion flags (set at intake or from an
invalidation's blast radius, :mod:`brainview.services.lifecycle.blast`) or when a reflection it
*consulted* is no longer live — challenged, invalidated, retired or gone — whoever
changed it (this console, ``brainview reflect``, another process).  The queue shows
``⚑`` for it and the console asks before accepting it.

:func:`lifecycle_mark` is the cheap fingerprint the console polls to notice lifecycle
changes made by any process; :func:`states_now` re-reads the states a screen shows
once it moved.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from sqlalchemy import Connection

from brainview.errors import ConflictError
from brainview.services import lifecycle
from brainview.services.lifecycle.blast import decode_suspicion, describe_flag
from brainview.services.project import Project
from brainview.store import decision_reads
from brainview.store.changelog import lifecycle_fingerprint
from brainview.store.era import Era
from brainview.store.readmodel import table_exists

Leans = tuple[tuple[str, str], ...]
"""``(reflection_id, state)`` of the consulted reflections that are not live."""
MISSING = lifecycle.MISSING


def leaning(conn: Connection, era: Era, proposal_ids: Sequence[str]) -> dict[str, Leans]:
    """Proposal id → its consulted reflections that are not live (absent: none).

    A constant number of queries per chunk of ids: one over ``brainview_consult`` and
    :func:`brainview.services.lifecycle.statuses` over the reflections found.
    """
    if not proposal_ids or not table_exists(conn, "brainview_consult"):
        return {}
    pairs = decision_reads.consulted_pairs(conn, proposal_ids)
    states = lifecycle.statuses(conn, era, sorted({r for _p, r in pairs}))
    out: dict[str, list[tuple[str, str]]] = {}
    for pid, rid in pairs:
        state = states[rid].state if rid in states else MISSING
        if state != lifecycle.LIVE:
            out.setdefault(pid, []).append((rid, state))
    return {pid: tuple(found) for pid, found in out.items()}


@dataclass(frozen=True)
class Flagged:
    """Why one pending proposal is flagged (plain text lines; untrusted ids inside)."""

    proposal_id: str
    reasons: tuple[str, ...]


def reasons(suspicion: str | None, leans: Leans) -> tuple[str, ...]:
    """One plain-text line per lean (state now) and per stored suspicion flag."""
    lines = [f"consulted reflection {rid} is {state}" for rid, state in leans]
    lines += [describe_flag(f) for f in decode_suspicion(suspicion)]
    return tuple(lines)


def flagged_now(project: Project, proposal_ids: Sequence[str]) -> list[Flagged]:
    """The proposals among ``proposal_ids`` that are flagged, read now (one read)."""
    agent = project.require_agent()
    if not proposal_ids:
        return []
    with agent.read() as conn:
        return flagged_in(conn, agent.era, proposal_ids)


def flagged_in(conn: Connection, era: Era, proposal_ids: Sequence[str]) -> list[Flagged]:
    """:func:`flagged_now` on a connection already open (e.g. inside a decision's own
    transaction, so nothing can change between the check and the write)."""
    if not proposal_ids or not table_exists(conn, "brainview_proposal"):
        return []
    stored = decision_reads.proposal_suspicions(conn, proposal_ids)
    leans = leaning(conn, era, list(stored))
    out = []
    for pid in dict.fromkeys(proposal_ids):
        why = reasons(stored.get(pid), leans.get(pid, ()))
        if why:
            out.append(Flagged(pid, why))
    return out


def lifecycle_mark(project: Project) -> int:
    """Changes whenever any process records a lifecycle batch (challenge, invalidate,
    reinstate, their undo — and the suspicion flags written with them)."""
    if project.agent is None:
        return 0
    with project.agent.read() as conn:
        return _mark(conn)


def states_now(project: Project, ids: Sequence[str]) -> tuple[int, dict[str, str]]:
    """:func:`lifecycle_mark` and the lifecycle state of each of ``ids``, from one read
    (a constant number of queries per 400 ids; an id gone from the brain is ``missing``)."""
    if project.agent is None or not ids:
        return lifecycle_mark(project), {}
    agent = project.agent
    with agent.read() as conn:
        mark = _mark(conn)
        found = lifecycle.statuses(conn, agent.era, list(dict.fromkeys(ids)))
    return mark, {rid: found[rid].state if rid in found else MISSING for rid in ids}


def _mark(conn: Connection) -> int:
    return lifecycle_fingerprint(conn)


def refuse_unconfirmed(
    conn: Connection, era: Era, ids: Sequence[str], confirmed: Collection[str]
) -> None:
    """Inside the decision's transaction: a proposal flagged since the maintainer was
    asked (a consulted lesson invalidated a moment ago) is not accepted unasked."""
    for found in flagged_in(conn, era, ids):
        if found.proposal_id not in confirmed:
            raise ConflictError(
                f"not accepted: {found.proposal_id} was flagged just now "
                f"({found.reasons[0]}); nothing was written — look again"
            )
