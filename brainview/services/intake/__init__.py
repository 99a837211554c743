"""Curator intake: validate proposals against the contract and both brains, then
queue them in the agent brain.  A batch is all-or-nothing.

The shape of each proposal is checked in :mod:`brainview.core.proposal_parse` (text
rules, limits); here, what it names is checked against both brains.  A consulted or
retrieved reflection must exist and be usable: one that is invalidated or retired is
refused, as ``docs/proposal-format.md`` and ``docs/curator.md`` say ("never consult
those").  Suspect proposals are still queued, with flags in
``brainview_proposal.suspicion`` (see :mod:`brainview.services.lifecycle.blast`): a consulted or
retrieved reflection that is challenged, or that nearly duplicates an invalidated one
(a tombstone).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

from sqlalchemy import Connection

from brainview.core import fsrs_math, proposal_rules
from brainview.core.bulk import collector_paused
from brainview.core.proposal_fields import fail
from brainview.core.proposal_parse import Proposal, parse_many
from brainview.core.suspicion import risky_flags
from brainview.core.text_rules import FieldError
from brainview.errors import InvalidInputError
from brainview.services.intake.agent import agent_ref_ids, check_agent_refs
from brainview.services.lifecycle import INVALIDATED, LIVE, RETIRED, Status
from brainview.services.lifecycle.blast import add_flags
from brainview.services.lifecycle.tombstones import Match, near_many
from brainview.services.project import Project
from brainview.store.bv_schema import ensure_schema
from brainview.store.era import Era
from brainview.store.intake_reads import (
    kinds_and_retired,
    latest_lifecycle,
    live_synapses,
    liveness,
)
from brainview.store.proposal_rows import (
    has_any,
    insert_consults,
    insert_proposals,
    queued_among,
)
from brainview.store.readmodel import SynapseKey, live_domains, neurons_by_ids, table_exists

MAX_BATCH = proposal_rules.MAX_BATCH
MAX_CONSULTED = proposal_rules.MAX_CONSULTED


def _fail(index: int, fld: str, reason: str) -> InvalidInputError:
    return InvalidInputError(str(fail(index, fld, reason)))


def parse_batch(raw: object, now: datetime | None = None) -> list[Proposal]:
    """Shape-check a proposal, a list of them, or parsed JSON Lines
    (:func:`brainview.core.proposal_parse.parse_many`)."""
    try:
        return parse_many(raw, now or datetime.now(UTC))
    except FieldError as err:
        raise InvalidInputError(str(err)) from None


def check_against_brains(project: Project, batch: list[Proposal]) -> None:
    """Named user neurons live, synapses and domains present, reflections usable.

    Set-based: each kind of reference is read for the whole batch at once (neurons and
    reflections by id, synapses by primary key, each domain probed once), then the
    proposals are checked in order, so the first problem reported is the same as one
    proposal at a time would find."""
    check_chunks(project, [batch])


def check_chunks(project: Project, chunks: list[list[Proposal]]) -> dict[str, Status]:
    """:func:`check_against_brains` for batches checked one after the other (an error
    names its proposal's index in its own chunk), with every brain read made once for
    all of them.  Returns the consulted and retrieved reflections' states as read."""
    agent = project.require_agent()
    every = [p for chunk in chunks for p in chunk]
    with project.user.read() as uconn:
        era = project.user.era
        found = liveness(uconn, era, [n for p in every for n in p.refs.neurons])
        synapses = live_synapses(uconn, era, [p.refs.synapse for p in every if p.refs.synapse])
        domains = live_domains(uconn, era, [d for p in every for d in p.refs.domains])
    with agent.read() as aconn:
        refl_ids = [r for p in every for r in [c[0] for c in p.consulted] + p.retrieved]
        rows = kinds_and_retired(aconn, agent.era, agent_ref_ids(every) + refl_ids)
        refl = _statuses(aconn, agent.era, refl_ids, rows)
        queued = table_exists(aconn, "brainview_proposal")
        for batch in chunks:
            _check_user(batch, found, synapses, domains)
            check_agent_refs(aconn, agent.era, batch, _fail, found=rows)
            for i, p in enumerate(batch):
                for j, (rid, _s, _n) in enumerate(p.consulted):
                    _check_reflection(refl.get(rid), rid, i, f"consulted[{j}].reflection")
                for j, rid in enumerate(p.retrieved):
                    _check_reflection(refl.get(rid), rid, i, f"retrieved[{j}]")
            if queued:
                ids = [p.id for p in batch]
                dup = queued_among(aconn, ids)
                if dup is not None:
                    raise _fail(ids.index(dup), "id", f"{dup} already queued")
    return refl


def _check_user(
    batch: list[Proposal], found: dict[str, bool], synapses: set[SynapseKey], domains: set[str]
) -> None:
    for i, p in enumerate(batch):
        for nid in p.refs.neurons:
            live = found.get(nid)
            if live is None:
                raise _fail(i, "params", f"user neuron {nid} does not exist")
            if not live:
                raise _fail(i, "params", f"user neuron {nid} is retired")
        _check_synapse(p, i, synapses)
        for dom in p.refs.domains:
            if dom not in domains:
                raise _fail(i, "params", f"domain {dom!r} has no live neurons")


def _statuses(
    conn: Connection,
    era: Era,
    ids: list[str],
    rows: dict[str, tuple[str | None, str | None]] | None = None,
) -> dict[str, Status]:
    """:func:`brainview.services.lifecycle.statuses` read lean (no content, no row
    objects): the same states, for the thousands of reflections a consolidation names.
    ``rows`` (from :func:`~brainview.store.intake_reads.kinds_and_retired`, covering
    ``ids``) saves reading the neurons again."""
    if rows is None:
        found = kinds_and_retired(conn, era, ids)
    else:
        found = {rid: rows[rid] for rid in dict.fromkeys(ids) if rid in rows}
    latest = latest_lifecycle(conn, found) if found and table_exists(conn, _LIFECYCLE) else {}
    out: dict[str, Status] = {}
    for rid, (_type, retired_at) in found.items():
        row = latest.get(rid)
        state, reason, actor, at, batch = row if row is not None else (LIVE, "", None, None, None)
        if retired_at is not None and state != INVALIDATED:
            state = RETIRED
        out[rid] = Status(rid, state, reason, actor, at, batch, retired_at)
    return out


_LIFECYCLE = "brainview_lifecycle"


def _check_reflection(status: Status | None, rid: str, i: int, where: str) -> None:
    """Refuse a reflection that does not exist, is invalidated or retired (a challenged
    one is usable: the proposal is flagged)."""
    if status is None:
        raise _fail(i, where, f"reflection {rid} does not exist")
    if status.state in (INVALIDATED, RETIRED):
        raise _fail(i, where, f"reflection {rid} is {status.state}")


def flag_suspicion(
    conn: Connection, era: Era, batch: list[Proposal], states: dict[str, Status] | None = None
) -> None:
    """Set each proposal's ``suspicion`` from its reflections' lifecycle and tombstones.

    ``states`` (from :func:`check_chunks`) saves reading the reflections' states again:
    only for a caller that knows the agent brain has not changed since they were read
    (a consolidation whose fingerprint still matches inside this transaction)."""
    if states is None:
        used = dict.fromkeys(r for p in batch for r in _ids(p))
        states = _statuses(conn, era, list(used))
    lookalikes: dict[str, list[Match]] = {}
    if table_exists(conn, "brainview_tombstone_band") and has_any(conn, "brainview_tombstone_band"):
        alive = [r for r, s in states.items() if s.state != "invalidated"]
        texts = neurons_by_ids(conn, era, alive)
        lookalikes = near_many(conn, {r: n.content or "" for r, n in texts.items()})
    odd = {r for r, st in states.items() if st.state != LIVE} | lookalikes.keys()
    for p in batch:
        risky = risky_flags(p.rationale, p.params)
        if odd.isdisjoint(_ids(p)):  # most proposals: every reflection live, no look-alike
            p.suspicion = add_flags(None, risky)
            continue
        flags = risky
        for rid, role in _reflections(p):
            st = states.get(rid)
            if st is not None and st.state != LIVE:
                detail = {"detail": st.reason[:200], "at": st.at} if st.reason else {}
                flags.append({"kind": st.state, "reflection": rid, "role": role, **detail})
            for m in lookalikes.get(rid, [])[:3]:
                flags.append(
                    {"kind": "tombstone", "reflection": rid, "role": role}
                    | {"match": m.tombstone_id, "score": round(m.score, 3)}
                )
        p.suspicion = add_flags(None, flags)


def _ids(p: Proposal) -> list[str]:
    return [r for r, _s, _n in p.consulted] + p.retrieved


def _reflections(p: Proposal) -> list[tuple[str, str]]:
    return [(r, "consulted") for r, _s, _n in p.consulted] + [(r, "retrieved") for r in p.retrieved]


def _check_synapse(p: Proposal, i: int, live: set[SynapseKey]) -> None:
    if p.refs.synapse is None:
        return
    pre, post, typ = p.refs.synapse
    exists = p.refs.synapse in live
    if p.kind == "add_synapse" and exists:
        raise _fail(i, "params", f"synapse {pre} -{typ}→ {post} already exists")
    if p.kind in ("remove_synapse", "set_synapse_weight") and not exists:
        raise _fail(i, "params", f"synapse {pre} -{typ}→ {post} does not exist")


def store(conn: Connection, batch: list[Proposal], *, source: str, now: datetime) -> None:
    """Insert a validated batch (inside the caller's agent-brain transaction)."""
    ensure_schema(conn)
    received = fsrs_math.format_ts(now)
    insert_proposals(
        conn,
        (
            (
                p.id, p.skill, p.kind,
                json.dumps(p.params, ensure_ascii=False, sort_keys=True, allow_nan=False),
                p.rationale, p.created_at, received, "pending", p.runtime, source, p.summary,
                len(p.consulted), p.suspicion,
            )
            for p in batch
        ),
    )  # fmt: skip
    insert_consults(
        conn,
        [
            (p.id, rid, "consulted", stance, note, q)
            for p in batch
            for q, (rid, stance, note) in enumerate(p.consulted)
        ]
        + [
            (p.id, rid, "retrieved", None, None, q)
            for p in batch
            for q, rid in enumerate(p.retrieved)
        ],
    )


def submit(
    project: Project,
    raw: object,
    *,
    source: str = "cli",
    dry_run: bool = False,
    now: datetime | None = None,
    recall: str | None = None,
) -> list[Proposal]:
    """Validate, flag suspect proposals and (unless ``dry_run``) queue a batch atomically.

    A proposal's ``"recall": "rc-…"`` (or ``recall`` for the whole batch) fills its
    ``retrieved`` from that logged recall (:mod:`brainview.services.recall.attach`)."""
    now = now or datetime.now(UTC)
    from brainview.services.recall.attach import expand  # only proposals that name a recall

    raw = expand(project, raw, recall)
    with collector_paused():  # thousands of small objects, no cycle among them
        batch = parse_batch(raw, now)
        check_against_brains(project, batch)
        agent = project.require_agent()
        if dry_run:
            with agent.read() as conn:
                flag_suspicion(conn, agent.era, batch)
            return batch
        with agent.write() as conn:
            flag_suspicion(conn, agent.era, batch)
            store(conn, batch, source=source, now=now)
    return batch
