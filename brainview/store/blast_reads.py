"""Reads behind a blast radius: who consulted a reflection, the live verdicts on those
proposals, the synapses touching it and the spike sessions it shared.

Every ``IN`` list is bound by name and kept under SQLite's variable limit by the
caller (:func:`brainview.services.lifecycle.blast.radius` passes 400 ids at a time).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, text

from brainview.store.era import Era
from brainview.store.readmodel import table_exists

CHUNK = 400


def _in(ids: Sequence[str], prefix: str) -> tuple[str, dict[str, Any]]:
    marks = ",".join(f":{prefix}{i}" for i in range(len(ids)))
    return marks, {f"{prefix}{i}": v for i, v in enumerate(ids)}


def consult_hits(conn: Connection, ids: Sequence[str]) -> list[tuple[Any, ...]]:
    """``(proposal_id, reflection_id, role, stance, kind, summary, status)`` of every
    consult of ``ids``, pending proposals first, then newest first."""
    if not table_exists(conn, "brainview_consult"):
        return []
    marks, params = _in(ids, "t")
    rows = conn.execute(
        text(
            "SELECT c.proposal_id, c.reflection_id, c.role, c.stance, p.kind, p.summary, "
            "p.status FROM brainview_consult c JOIN brainview_proposal p ON p.id = c.proposal_id "
            f"WHERE c.reflection_id IN ({marks}) "
            "ORDER BY CASE WHEN p.status = 'pending' THEN 0 ELSE 1 END, p.created_at DESC, "
            "c.proposal_id, c.reflection_id"
        ),
        params,
    ).fetchall()
    return [tuple(r) for r in rows]


def live_verdicts(conn: Connection, proposal_ids: Sequence[str]) -> dict[str, tuple[str, str, str]]:
    """Proposal id → ``(verdict, decider, decided_at)`` of its decision not undone."""
    out: dict[str, tuple[str, str, str]] = {}
    if not proposal_ids or not table_exists(conn, "brainview_decision"):
        return out
    ids = list(proposal_ids)
    for start in range(0, len(ids), CHUNK):
        marks, params = _in(ids[start : start + CHUNK], "d")
        for pid, verdict, decider, at in conn.execute(
            text(
                "SELECT proposal_id, verdict, decider, decided_at FROM brainview_decision "
                f"WHERE undone_at IS NULL AND proposal_id IN ({marks}) ORDER BY decided_at"
            ),
            params,
        ):
            out[str(pid)] = (str(verdict), str(decider), str(at))
    return out


def synapses_touching(conn: Connection, era: Era, ids: Sequence[str]) -> list[tuple[Any, ...]]:
    """``(pre, post, type, weight, co_fires)`` of the live synapses with an end in
    ``ids`` (``co_fires`` 0 where the era has no such column)."""
    marks, params = _in(ids, "t")
    live = era.live_synapse("s")
    co = "s.co_fires" if "co_fires" in era.synapse_cols else "0"
    return [
        tuple(r)
        for r in conn.execute(
            text(
                f"SELECT s.pre, s.post, s.type, s.weight, {co} FROM synapse s WHERE {live} AND "
                f"(s.pre IN ({marks}) OR s.post IN ({marks})) ORDER BY s.pre, s.post, s.type"
            ),
            params,
        )
    ]


def shared_sessions(conn: Connection, ids: Sequence[str], limit: int) -> list[tuple[str, str, int]]:
    """``(other neuron, target, sessions)``: neurons that fired in the same spike
    sessions as one of ``ids``, most sessions first, at most ``limit`` rows."""
    marks, params = _in(ids, "t")
    return [
        (str(nid), str(target), int(n))
        for nid, target, n in conn.execute(
            text(
                "SELECT s2.neuron_id, s1.neuron_id, COUNT(DISTINCT s1.session_id) FROM spike s1 "
                "JOIN spike s2 ON s2.session_id = s1.session_id AND s2.neuron_id != s1.neuron_id "
                f"WHERE s1.neuron_id IN ({marks}) AND s1.session_id IS NOT NULL "
                "GROUP BY s2.neuron_id, s1.neuron_id ORDER BY 3 DESC, 1 LIMIT :lim"
            ),
            {**params, "lim": limit},
        )
    ]


def status_and_suspicion(conn: Connection, proposal_id: str) -> tuple[str, str | None] | None:
    """``(status, suspicion)`` of one proposal, ``None`` when there is none."""
    row = conn.execute(
        text("SELECT status, suspicion FROM brainview_proposal WHERE id = :p"), {"p": proposal_id}
    ).first()
    return None if row is None else (str(row[0]), row[1])


def consults_of(conn: Connection, proposal_id: str) -> list[tuple[str, str, str | None]]:
    """``(reflection_id, role, stance)`` of one proposal, by role then consult order."""
    rows = conn.execute(
        text(
            "SELECT reflection_id, role, stance FROM brainview_consult "
            "WHERE proposal_id = :p ORDER BY role, seq"
        ),
        {"p": proposal_id},
    ).fetchall()
    return [(str(r), str(role), s) for r, role, s in rows]
