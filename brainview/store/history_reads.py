"""Reads behind one reflection's history (the audit view): where it came from, the
grades fired into it, its lineage and its lifecycle moves.  Nothing here writes."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, text

from brainview.store.readmodel import table_exists


def written_by_decision(conn: Connection, reflection_id: str) -> tuple[Any, ...] | None:
    """``(decided_at, decider, decision id, proposal_id, kind, summary, reason)`` of the
    first decision that wrote ``reflection_id`` as its lesson, if any."""
    if not table_exists(conn, "brainview_decision"):
        return None
    row = conn.execute(
        text(
            "SELECT d.decided_at, d.decider, d.id, d.proposal_id, p.kind, p.summary, d.reason "
            "FROM brainview_decision d LEFT JOIN brainview_proposal p ON p.id = d.proposal_id "
            "WHERE d.new_reflection_id = :r ORDER BY d.decided_at LIMIT 1"
        ),
        {"r": reflection_id},
    ).first()
    return None if row is None else tuple(row)


def lineage(conn: Connection, neuron_id: str) -> list[tuple[str, str, Any]]:
    """``(role, other neuron, at)``: ``absorbed`` parents and ``merged_into`` children
    (``neuron_predecessor``), oldest first."""
    rows = conn.execute(
        text(
            "SELECT 'absorbed', parent_id, at FROM neuron_predecessor WHERE child_id = :r "
            "UNION ALL SELECT 'merged_into', child_id, at FROM neuron_predecessor "
            "WHERE parent_id = :r ORDER BY 3"
        ),
        {"r": neuron_id},
    )
    return [(str(role), str(other), at) for role, other, at in rows]


def lifecycle_moves(conn: Connection, reflection_id: str) -> list[tuple[Any, ...]]:
    """``(at, state, reason, actor, batch_id, action, undone_at, undone_by)`` of every
    lifecycle move of a reflection, in order (the batch columns ``None`` on a brain
    whose log predates batches)."""
    if not table_exists(conn, "brainview_lifecycle"):
        return []
    if not table_exists(conn, "brainview_lifecycle_batch"):
        sql = (
            "SELECT at, state, reason, actor, batch_id, NULL, NULL, NULL "
            "FROM brainview_lifecycle WHERE reflection_id = :r ORDER BY id"
        )
    else:
        sql = (
            "SELECT l.at, l.state, l.reason, l.actor, l.batch_id, b.action, b.undone_at, "
            "b.undone_by FROM brainview_lifecycle l LEFT JOIN brainview_lifecycle_batch b "
            "ON b.id = l.batch_id WHERE l.reflection_id = :r ORDER BY l.id"
        )
    return [tuple(row) for row in conn.execute(text(sql), {"r": reflection_id})]


def spikes_of(conn: Connection, neuron_id: str) -> list[tuple[Any, ...]]:
    """``(spike id, grade, fired_at, session_id)`` of every spike, oldest first."""
    rows = conn.execute(
        text(
            "SELECT id, grade, fired_at, session_id FROM spike WHERE neuron_id = :r "
            "ORDER BY fired_at, id"
        ),
        {"r": neuron_id},
    ).fetchall()
    return [tuple(r) for r in rows]


def grades_behind(conn: Connection, reflection_id: str) -> dict[int, tuple[Any, ...]]:
    """Spike id → ``(decision id, proposal_id, kind, summary, stance, verdict,
    decider)`` for the spikes brainview fired into a reflection."""
    if not table_exists(conn, "brainview_grade"):
        return {}
    sql = (
        "SELECT g.spike_id, g.decision_id, d.proposal_id, p.kind, p.summary, g.stance, "
        "d.verdict, d.decider FROM brainview_grade g "
        "JOIN brainview_decision d ON d.id = g.decision_id "
        "LEFT JOIN brainview_proposal p ON p.id = d.proposal_id "
        "WHERE g.reflection_id = :r"
    )
    if table_exists(conn, "brainview_held_back_verdict"):  # a verdict on a held-back draft
        sql += (
            " UNION ALL SELECT g.spike_id, g.decision_id, v.held_back_id, 'held_back', "
            "replace(v.verdict, '_', ' '), g.stance, v.verdict, v.decider "
            "FROM brainview_grade g JOIN brainview_held_back_verdict v "
            "ON v.decision_id = g.decision_id WHERE g.reflection_id = :r"
        )
    rows = conn.execute(text(sql), {"r": reflection_id})
    return {int(row[0]): tuple(row[1:]) for row in rows}
