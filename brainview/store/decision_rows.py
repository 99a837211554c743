"""The rows of a decision (agent brain): claim, decision record, grades, lookups.

Everything runs inside the caller's transaction.  The claim stays plain portable SQL
decided by its row count, so exactly one of two racing deciders wins.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from fsrs import Scheduler
from sqlalchemy import Connection, text

from brainview.core import fsrs_math, stdp
from brainview.core.kinds import ParamError, check_params
from brainview.core.refs import format_ref
from brainview.errors import ConflictError, NotFoundError
from brainview.store.effects import EffectLog
from brainview.store.era import Era
from brainview.store.readmodel import table_exists
from brainview.store.rows import Row, driver, fetch_row
from brainview.store.writers import (
    StdpStep,
    last_fires,
    touching_synapses,
    write_cards,
    write_spikes,
    write_stdp,
)

VERDICT_STATUS: dict[str, str] = {
    "accept": "accepted",
    "reject": "rejected",
    "dismiss": "dismissed",
}


def claim(conn: Connection, log: EffectLog, proposal_id: str, verdict: str) -> Row:
    """Move the proposal out of ``pending``; exactly one caller can win.  Returns the
    proposal row as it was."""
    try:
        before = fetch_row(conn, "brainview_proposal", (proposal_id,))
    except sqlite3.OperationalError as err:
        if "no such table" not in str(err):
            raise
        raise NotFoundError("no proposal queue in the agent brain yet") from None
    if before is None:
        raise NotFoundError(f"no proposal {proposal_id!r} in the queue")
    status = VERDICT_STATUS[verdict]
    claimed = (
        driver(conn)
        .execute(
            "UPDATE brainview_proposal SET status = ?, version = version + 1 "
            "WHERE id = ? AND status = 'pending'",
            (status, proposal_id),
        )
        .rowcount
    )
    if claimed != 1:
        raise ConflictError(not_pending_message(conn, proposal_id, str(before["status"])))
    after = {**before, "status": status, "version": before["version"] + 1}
    log.record("brainview_proposal", before, after)
    return before


def not_pending_message(conn: Connection, proposal_id: str, status: str) -> str:
    """Why a proposal cannot be decided (it already was)."""
    if status in ("accepted", "rejected", "dismissed"):
        last = latest_decision(conn, proposal_id)
        by = f" by {last['decider']} at {last['decided_at']}" if last else ""
        return f"proposal {proposal_id} was already decided ({status}{by})"
    return f"proposal {proposal_id} is {status}, not pending"


def insert_decision(conn: Connection, row: Row) -> None:
    """One ``brainview_decision`` row."""
    cols = list(row)
    driver(conn).execute(
        f"INSERT INTO brainview_decision ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
        tuple(row[c] for c in cols),
    )


def pending_count(conn: Connection) -> int:
    """How many proposals wait for a decision (0 when the queue does not exist yet)."""
    if not table_exists(conn, "brainview_proposal"):
        return 0
    return int(
        conn.execute(
            text("SELECT COUNT(*) FROM brainview_proposal WHERE status = 'pending'")
        ).scalar_one()
    )


def latest_decision(conn: Connection, proposal_id: str | None = None) -> dict[str, Any] | None:
    """The most recent not-undone decision (of one proposal, or of all)."""
    if not table_exists(conn, "brainview_decision"):
        return None
    where = "undone_at IS NULL" + (" AND proposal_id = :p" if proposal_id is not None else "")
    row = (
        conn.execute(
            text(
                f"SELECT * FROM brainview_decision WHERE {where} "
                "ORDER BY decided_at DESC, rowid DESC LIMIT 1"
            ),
            {"p": proposal_id},
        )
        .mappings()
        .first()
    )
    return dict(row) if row else None


def latest_undone(conn: Connection, proposal_id: str) -> dict[str, Any] | None:
    """The most recently undone decision of a proposal (``None``: none was undone)."""
    if not table_exists(conn, "brainview_decision"):
        return None
    row = (
        conn.execute(
            text(
                "SELECT * FROM brainview_decision WHERE proposal_id = :p "
                "AND undone_at IS NOT NULL ORDER BY undone_at DESC, rowid DESC LIMIT 1"
            ),
            {"p": proposal_id},
        )
        .mappings()
        .first()
    )
    return dict(row) if row else None


def rejection_text(proposal: Row, reason: str | None) -> str:
    """The new reflection's content: what was proposed, why, and why it was rejected."""
    try:
        refs, _summary = check_params(str(proposal["kind"]), json.loads(proposal["params_json"]))
        neurons = list(refs.neurons)
    except (ParamError, ValueError, TypeError):
        neurons = []
    lines = [
        f"Rejected proposal {proposal['id']} ({proposal['kind']}): {proposal['summary']}",
    ]
    if neurons:
        lines.append("User neurons: " + " ".join(format_ref(n) for n in neurons))
    rationale = str(proposal.get("rationale") or "").strip()
    lines.append(f"Curator rationale: {rationale or '(none given)'}")
    why = reason.strip() if reason and reason.strip() else "no reason given"
    lines.append(f"Maintainer rejected: {why}")
    return "\n".join(lines)


@dataclass(frozen=True)
class Fired:
    """What grading the consulted reflections wrote."""

    grades: list[tuple[str, str, int]]
    """``(reflection_id, stance, grade)`` in consulted order."""
    stdp: list[StdpStep]
    skipped: list[tuple[str, str]]
    """Consulted reflections that got nothing: ``(reflection_id, why)``."""
    live: list[str]
    """Consulted reflections that are live (a rejection links its lesson to them)."""


def fire_consulted(
    log: EffectLog,
    era: Era,
    proposal_id: str,
    decision_id: str,
    grade_of: Callable[[str], int | None],
    no_event: Callable[[str], str],
    now: datetime,
    scheduler: Scheduler,
    *,
    with_stdp: bool = True,
) -> Fired:
    """Grade every live consulted reflection (``grade_of(stance)``; ``None`` = no
    event, explained by ``no_event(stance)``): spike rows, cards where the era keeps
    them in ``fsrs_state``, STDP between them in consulted order (unless ``with_stdp``
    is off), ``brainview_grade`` rows."""
    consulted = _consulted_live(log.conn, era, proposal_id)
    return fire_listed(
        log, era, consulted, decision_id, f"brainview:{proposal_id}", grade_of, no_event, now,
        scheduler, with_stdp=with_stdp,
    )  # fmt: skip


def fire_listed(
    log: EffectLog,
    era: Era,
    consulted: list[tuple[str, str, bool | None]],
    decision_id: str,
    notes: str,
    grade_of: Callable[[str], int | None],
    no_event: Callable[[str], str],
    now: datetime,
    scheduler: Scheduler,
    *,
    with_stdp: bool = True,
) -> Fired:
    """:func:`fire_consulted` for reflections listed by the caller: ``(reflection,
    stance, live)`` (``live`` ``None``: missing), in the order to fire them; each spike's
    ``notes`` is ``notes`` (a held-back verdict grades the lessons of a draft this way)."""
    conn = log.conn
    now_s = fsrs_math.format_ts(now)
    live = {rid: state for rid, _s, state in consulted if state is not None}
    skipped: list[tuple[str, str]] = []
    plan: list[tuple[str, str, int]] = []
    for rid, stance, _state in consulted:
        if not live.get(rid):
            skipped.append((rid, "retired" if rid in live else "missing"))
            continue
        grade = grade_of(stance)
        if grade is None:
            skipped.append((rid, no_event(stance)))
            continue
        plan.append((rid, stance, grade))
    # STDP inputs are read before this decision's spikes exist (see write_stdp).
    synapses = touching_synapses(conn, era, [r for r, _s, _g in plan]) if plan and with_stdp else []
    ends = {x for row in synapses for x in (row["pre"], row["post"])}
    history = last_fires(conn, ends, now, stdp.TAU_DAYS) if ends else {}
    fired = [(rid, grade) for rid, _s, grade in plan]
    spikes = write_spikes(log, era, fired, now_s, decision_id, notes)
    if era.card_source == "fsrs_state":
        write_cards(log, fired, now, scheduler)
    steps = write_stdp(log, era, fired, synapses, history, now)
    log.insert(
        "brainview_grade",
        [
            {
                "decision_id": decision_id,
                "reflection_id": rid,
                "stance": stance,
                "grade": grade,
                "spike_id": spike["id"],
                "fired_at": now_s,
            }
            for (rid, stance, grade), spike in zip(plan, spikes, strict=True)
        ],
    )
    return Fired(plan, steps, skipped, [r for r, _s, state in consulted if state])


def _consulted_live(
    conn: Connection, era: Era, proposal_id: str
) -> list[tuple[str, str, bool | None]]:
    """``(reflection_id, stance, live)`` of the consulted reflections, in consulted
    order (one query); ``live`` is ``None`` for a missing reflection.  The stance
    defaults to ``support``; ``live`` means not retired where the era can retire."""
    retired = "n.retired_at" if era.has_retire else "NULL"
    rows = driver(conn).execute(
        f"SELECT c.reflection_id, c.stance, n.id IS NOT NULL, {retired} IS NULL "
        "FROM brainview_consult c LEFT JOIN neuron n ON n.id = c.reflection_id "
        "WHERE c.proposal_id = ? AND c.role = 'consulted' ORDER BY c.seq, c.reflection_id",
        (proposal_id,),
    )
    return [(r, s or "support", bool(live) if found else None) for r, s, found, live in rows]
