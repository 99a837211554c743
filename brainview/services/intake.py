"""Curator intake: validate proposals against the contract and both brains, then
queue them in the agent brain.  A batch is all-or-nothing.

Suspect proposals are still queued, with flags in ``brainview_proposal.suspicion`` (see
:mod:`brainview.services.blast`): a consulted or retrieved reflection that is challenged,
invalidated or retired, or that nearly duplicates an invalidated one (a tombstone).
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Connection, text

from brainview.core import fsrs_math
from brainview.core.grading import STANCES
from brainview.core.kinds import ParamError, Refs, check_params
from brainview.core.safe_text import clean
from brainview.errors import InvalidInputError
from brainview.services.blast import add_flags
from brainview.services.intake_agent import check_agent_refs
from brainview.services.lifecycle import LIVE, statuses
from brainview.services.project import Project
from brainview.services.tombstones import near_many
from brainview.store.bv_schema import ensure_schema
from brainview.store.era import Era
from brainview.store.readmodel import neurons_by_ids, table_exists

ALLOWED_KEYS = {
    "id",
    "skill",
    "kind",
    "params",
    "rationale",
    "consulted",
    "retrieved",
    "created_at",
    "runtime",
    "recall",
}
MAX_BATCH = 10_000
MAX_CONSULTED = 500


@dataclass
class Proposal:
    """A validated proposal, ready to store."""

    id: str
    skill: str
    kind: str
    params: dict[str, Any]
    rationale: str
    consulted: list[tuple[str, str, str | None]]
    retrieved: list[str]
    created_at: str
    runtime: str | None
    summary: str
    refs: Refs = field(default_factory=Refs)
    suspicion: str | None = None
    """Flags set at intake (JSON list), ``None`` when nothing is suspect."""


def _plain(value: str) -> bool:
    """No control, bidi or invisible character (identifiers are shown everywhere)."""
    return clean(value, multiline=False) == value


def _fail(index: int, fld: str, reason: str) -> InvalidInputError:
    return InvalidInputError(f"proposal[{index}].{fld}: {reason}")


def _parse_one(raw: object, index: int, now: datetime) -> Proposal:
    if not isinstance(raw, dict):
        raise InvalidInputError(f"proposal[{index}]: must be a JSON object")
    extra = sorted(set(raw) - ALLOWED_KEYS)
    if extra:
        raise _fail(index, extra[0], "unknown field")
    pid = raw.get("id") or f"prop-{uuid.uuid4().hex[:12]}"
    if not isinstance(pid, str) or len(pid) > 128 or not pid.strip() or not _plain(pid):
        raise _fail(index, "id", "must be printable text of at most 128 characters")
    skill = raw.get("skill", "curator")
    if not isinstance(skill, str) or not skill or len(skill) > 64 or not _plain(skill):
        raise _fail(index, "skill", "must be short printable text")
    kind = raw.get("kind")
    if not isinstance(kind, str):
        raise _fail(index, "kind", "required string")
    try:
        refs, summary = check_params(kind, raw.get("params", {}))
    except ParamError as err:
        raise _fail(index, err.field, err.reason) from None
    rationale = raw.get("rationale", "")
    if not isinstance(rationale, str) or len(rationale) > 100_000:
        raise _fail(index, "rationale", "must be a string of at most 100000 characters")
    consulted = _consulted(raw.get("consulted", []), index)
    retrieved = raw.get("retrieved", [])
    if not isinstance(retrieved, list) or not all(isinstance(r, str) for r in retrieved):
        raise _fail(index, "retrieved", "must be a list of reflection ids")
    if len(retrieved) > MAX_CONSULTED:
        raise _fail(index, "retrieved", f"more than {MAX_CONSULTED} reflections")
    created = raw.get("created_at")
    if created is None:
        created_at = fsrs_math.format_ts(now)
    else:
        try:
            when = fsrs_math.parse_ts(created) if isinstance(created, str) else None
        except ValueError:
            when = None
        if when is None:
            raise _fail(index, "created_at", "must be an ISO 8601 timestamp")
        if when > now + timedelta(days=1):
            raise _fail(index, "created_at", "is in the future")
        created_at = fsrs_math.format_ts(when)
    runtime = raw.get("runtime")
    if runtime is not None and (
        not isinstance(runtime, str) or len(runtime) > 128 or not _plain(runtime)
    ):
        raise _fail(index, "runtime", "must be printable text of at most 128 characters")
    retrieved_only = [r for r in dict.fromkeys(retrieved) if r not in {c[0] for c in consulted}]
    return Proposal(
        pid,
        skill,
        kind,
        dict(raw.get("params", {})),
        rationale,
        consulted,
        retrieved_only,
        created_at,
        runtime,
        summary,
        refs,
    )


def _consulted(value: object, index: int) -> list[tuple[str, str, str | None]]:
    if not isinstance(value, list):
        raise _fail(index, "consulted", "must be a list")
    if len(value) > MAX_CONSULTED:
        raise _fail(index, "consulted", f"more than {MAX_CONSULTED} reflections")
    out: list[tuple[str, str, str | None]] = []
    seen: set[str] = set()
    for j, item in enumerate(value):
        where = f"consulted[{j}]"
        if isinstance(item, str):
            item = {"reflection": item}
        if not isinstance(item, dict):
            raise _fail(index, where, "must be an object with a reflection id")
        rid = item.get("reflection")
        if not isinstance(rid, str) or not rid:
            raise _fail(index, f"{where}.reflection", "required reflection id")
        if rid in seen:
            raise _fail(index, f"{where}.reflection", f"{rid} consulted twice")
        seen.add(rid)
        stance = item.get("stance", "support")
        if stance not in STANCES:
            raise _fail(index, f"{where}.stance", f"must be one of {', '.join(STANCES)}")
        note = item.get("note")
        if note is not None and not isinstance(note, str):
            raise _fail(index, f"{where}.note", "must be a string")
        out.append((rid, str(stance), note))
    return out


def parse_batch(raw: object, now: datetime | None = None) -> list[Proposal]:
    """Shape-check a proposal, a list of them, or parsed JSON Lines."""
    now = now or datetime.now(UTC)
    items = raw if isinstance(raw, list) else [raw]
    if not items:
        raise InvalidInputError("no proposals given")
    if len(items) > MAX_BATCH:
        raise InvalidInputError(f"batch of {len(items)} proposals exceeds {MAX_BATCH}")
    parsed = [_parse_one(item, i, now) for i, item in enumerate(items)]
    ids: dict[str, int] = {}
    for i, p in enumerate(parsed):
        if p.id in ids:
            raise _fail(i, "id", f"duplicate of proposal[{ids[p.id]}]")
        ids[p.id] = i
    return parsed


def check_against_brains(project: Project, batch: list[Proposal]) -> None:
    """Named user neurons live, synapses and domains present, reflections usable."""
    agent = project.require_agent()
    with project.user.read() as uconn:
        all_ids = [n for p in batch for n in p.refs.neurons]
        found = neurons_by_ids(uconn, project.user.era, all_ids)
        for i, p in enumerate(batch):
            for nid in p.refs.neurons:
                row = found.get(nid)
                if row is None:
                    raise _fail(i, "params", f"user neuron {nid} does not exist")
                if not row.live:
                    raise _fail(i, "params", f"user neuron {nid} is retired")
            _check_synapse(uconn, project, p, i)
            for dom in p.refs.domains:
                n = uconn.execute(
                    text(
                        f"SELECT COUNT(*) FROM neuron WHERE domain = :d AND "
                        f"{project.user.era.live('neuron')}"
                    ),
                    {"d": dom},
                ).scalar_one()
                if not n:
                    raise _fail(i, "params", f"domain {dom!r} has no live neurons")
    with agent.read() as aconn:
        check_agent_refs(aconn, agent.era, batch, _fail)
        refl_ids = [r for p in batch for r in [c[0] for c in p.consulted] + p.retrieved]
        refl = neurons_by_ids(aconn, agent.era, refl_ids)
        for i, p in enumerate(batch):
            for j, (rid, _s, _n) in enumerate(p.consulted):
                _check_reflection(refl.get(rid), rid, i, f"consulted[{j}].reflection")
            for j, rid in enumerate(p.retrieved):
                _check_reflection(refl.get(rid), rid, i, f"retrieved[{j}]")
        if table_exists(aconn, "brainview_proposal"):
            ids = [p.id for p in batch]
            for start in range(0, len(ids), 500):
                chunk = ids[start : start + 500]
                marks = ",".join(f":p{k}" for k in range(len(chunk)))
                dup = aconn.execute(
                    text(f"SELECT id FROM brainview_proposal WHERE id IN ({marks})"),
                    {f"p{k}": v for k, v in enumerate(chunk)},
                ).first()
                if dup:
                    raise _fail(ids.index(dup[0]), "id", f"{dup[0]} already queued")


def _check_reflection(row: object, rid: str, i: int, where: str) -> None:
    # Invalidated or retired reflections are not refused: the proposal is flagged.
    if row is None:
        raise _fail(i, where, f"reflection {rid} does not exist")


def flag_suspicion(conn: Connection, era: Era, batch: list[Proposal]) -> None:
    """Set each proposal's ``suspicion`` from its reflections' lifecycle and tombstones."""
    used = {r: role for p in batch for r, role in _reflections(p)}
    states = statuses(conn, era, list(used))
    texts = neurons_by_ids(conn, era, [r for r, s in states.items() if s.state != "invalidated"])
    lookalikes = near_many(conn, {r: n.content or "" for r, n in texts.items()})
    for p in batch:
        flags = []
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


def _reflections(p: Proposal) -> list[tuple[str, str]]:
    return [(r, "consulted") for r, _s, _n in p.consulted] + [(r, "retrieved") for r in p.retrieved]


def _check_synapse(conn: Connection, project: Project, p: Proposal, i: int) -> None:
    if p.refs.synapse is None:
        return
    pre, post, typ = p.refs.synapse
    live = project.user.era.live_synapse("synapse")
    row = conn.execute(
        text(f"SELECT weight FROM synapse WHERE pre=:a AND post=:b AND type=:t AND {live}"),
        {"a": pre, "b": post, "t": typ},
    ).first()
    if p.kind == "add_synapse" and row is not None:
        raise _fail(i, "params", f"synapse {pre} -{typ}→ {post} already exists")
    if p.kind in ("remove_synapse", "set_synapse_weight") and row is None:
        raise _fail(i, "params", f"synapse {pre} -{typ}→ {post} does not exist")


def store(conn: Connection, batch: list[Proposal], *, source: str, now: datetime) -> None:
    """Insert a validated batch (inside the caller's agent-brain transaction)."""
    ensure_schema(conn)
    received = fsrs_math.format_ts(now)
    conn.execute(
        text(
            "INSERT INTO brainview_proposal (id, skill, kind, params_json, rationale, "
            "created_at, received_at, status, runtime, source, summary, n_consulted, suspicion) "
            "VALUES (:id, :skill, :kind, :params, :rationale, :created, :received, 'pending', "
            ":runtime, :source, :summary, :n, :suspicion)"
        ),
        [
            {
                "id": p.id,
                "skill": p.skill,
                "kind": p.kind,
                "params": json.dumps(p.params, ensure_ascii=False, sort_keys=True),
                "rationale": p.rationale,
                "created": p.created_at,
                "received": received,
                "runtime": p.runtime,
                "source": source,
                "summary": p.summary,
                "n": len(p.consulted),
                "suspicion": p.suspicion,
            }
            for p in batch
        ],
    )
    rows = [
        {"p": p.id, "r": rid, "role": "consulted", "s": stance, "n": note, "q": q}
        for p in batch
        for q, (rid, stance, note) in enumerate(p.consulted)
    ] + [
        {"p": p.id, "r": rid, "role": "retrieved", "s": None, "n": None, "q": q}
        for p in batch
        for q, rid in enumerate(p.retrieved)
    ]
    if rows:
        conn.execute(
            text(
                "INSERT INTO brainview_consult (proposal_id, reflection_id, role, stance, "
                "note, seq) VALUES (:p, :r, :role, :s, :n, :q)"
            ),
            rows,
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
    ``retrieved`` from that logged recall (:mod:`brainview.services.recall_attach`)."""
    now = now or datetime.now(UTC)
    from brainview.services.recall_attach import expand  # only proposals that name a recall

    raw = expand(project, raw, recall)
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
