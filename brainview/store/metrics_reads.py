"""Reads behind the agent-brain metrics and ``stats`` (aggregates in SQL; every
statement runs in the caller's read transaction)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, Row, text

from brainview.store.era import Era


def standing_decisions(conn: Connection) -> list[Row[*tuple[Any, ...]]]:
    """``(decided_at, verdict, seconds_on_screen, skill, runtime, kind, decider)`` of
    every standing (not undone) decision, with its proposal's skill, runtime and kind."""
    return list(
        conn.execute(
            text(
                "SELECT d.decided_at, d.verdict, d.seconds_on_screen, p.skill, p.runtime, "
                "p.kind, d.decider FROM brainview_decision d JOIN brainview_proposal p "
                "ON p.id = d.proposal_id WHERE d.undone_at IS NULL"
            )
        ).all()
    )


def first_created(conn: Connection) -> str | None:
    """The earliest ``created_at`` of any neuron, live or retired (``replace()`` makes
    the space spelling sort like the ``T`` one, so ``MIN`` is chronological)."""
    row = conn.execute(text("SELECT MIN(replace(created_at, ' ', 'T')) FROM neuron")).first()
    return row[0] if row else None


def consolidation_item_verdicts(
    conn: Connection, *, with_decisions: bool
) -> list[tuple[str, str, str | None, int, int]]:
    """``(consolidation_id, phase, verdict, items, first seq)`` grouped by plan, phase and
    standing verdict (``verdict`` NULL without ``brainview_decision``)."""
    join, verdict = "", "NULL"
    if with_decisions:
        join = (
            "LEFT JOIN brainview_decision d ON d.proposal_id = i.proposal_id "
            "AND d.undone_at IS NULL"
        )
        verdict = "d.verdict"
    rows = conn.execute(
        text(
            f"SELECT i.consolidation_id, i.phase, {verdict}, COUNT(*), MIN(i.seq) "
            f"FROM brainview_consolidation_item i {join} "
            f"GROUP BY i.consolidation_id, i.phase, {verdict}"
        )
    ).all()
    return [tuple(r) for r in rows]


def live_policy_created(conn: Connection, era: Era) -> list[str]:
    """``created_at`` of every live policy neuron."""
    sql = f"SELECT created_at FROM neuron n WHERE n.type = 'policy' AND {era.live('n')}"
    return [r[0] for r in conn.execute(text(sql))]


def live_reflection_ids(conn: Connection, era: Era) -> list[str]:
    """Ids of the live reflections (storage order)."""
    sql = f"SELECT n.id FROM neuron n WHERE n.type = 'reflection' AND {era.live('n')}"
    return [r[0] for r in conn.execute(text(sql))]


def reflections_per_skill(conn: Connection, era: Era) -> dict[str, int]:
    """Live reflections per skill (``domain``; ``""`` for none), sorted by skill."""
    live = era.live("neuron")
    return {
        (d or ""): int(n)
        for d, n in conn.execute(
            text(
                "SELECT domain, COUNT(*) FROM neuron WHERE type = 'reflection' AND "
                f"{live} GROUP BY domain ORDER BY domain"
            )
        )
    }


def live_policies(conn: Connection, era: Era) -> int:
    """Live policy neurons."""
    sql = f"SELECT COUNT(*) FROM neuron WHERE type = 'policy' AND {era.live('neuron')}"
    return int(conn.execute(text(sql)).scalar_one())


def proposals_by_status(conn: Connection) -> dict[str, int]:
    """Proposals (outcomes left out) by status; the table must exist."""
    return {
        str(status): int(n)
        for status, n in conn.execute(
            text(
                "SELECT status, COUNT(*) FROM brainview_proposal WHERE kind <> 'outcome' "
                "GROUP BY status"
            )
        )
    }


def pending_refs(conn: Connection) -> list[tuple[str, str, str | None, str, int]]:
    """``(id, kind, params_json or NULL when too large, created_at, params size)`` of the
    pending proposals (:mod:`brainview.store.bounded`)."""
    from brainview.store import bounded

    sql = (
        f"SELECT id, kind, {bounded.params()}, created_at, {bounded.size('params_json')} "
        "FROM brainview_proposal WHERE status = 'pending'"
    )
    return [tuple(r) for r in conn.execute(text(sql))]
