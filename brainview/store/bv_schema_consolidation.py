"""Agent-brain consolidations and the proposals they queued (``brainview_*`` tables).

A consolidation (``brainview reflect consolidate``) reads the agent brain once, plans
its phases (triage, SHY, SWS, REM) and queues every planned change as a proposal.
``brainview_consolidation`` keeps one row per queued plan — its id, the fingerprint of
the agent brain it was planned from, when, by which planner, with which settings and
how many items of each phase; ``brainview_consolidation_item`` ties each queued
proposal to its plan and phase (the proposal's own params carry the plan's id and
fingerprint and the *basis* it was planned from, so it is self-contained).  Metrics
read them to report acceptance over successive consolidations.  Writers run inside
the caller's ``Brain.write()`` transaction; readers treat missing tables as empty.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, text

from brainview.store.readmodel import table_exists

CONSOLIDATION_DDL = [
    """CREATE TABLE IF NOT EXISTS brainview_consolidation (
        id TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, planned_at TEXT NOT NULL,
        planner TEXT NOT NULL, settings_json TEXT NOT NULL, counts_json TEXT NOT NULL,
        n_items INTEGER NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS brainview_consolidation_item (
        proposal_id TEXT PRIMARY KEY, consolidation_id TEXT NOT NULL, phase TEXT NOT NULL,
        seq INTEGER NOT NULL)""",
    """CREATE INDEX IF NOT EXISTS ix_bv_consolidation_item_c
        ON brainview_consolidation_item(consolidation_id)""",
]


@dataclass(frozen=True)
class ConsolidationRow:
    """One queued consolidation plan."""

    id: str
    fingerprint: str
    planned_at: str
    planner: str
    settings: dict[str, Any]
    counts: dict[str, int]
    n_items: int


def ensure_consolidation_schema(conn: Connection) -> None:
    """Create the tables if missing (inside the caller's transaction)."""
    for ddl in CONSOLIDATION_DDL:
        conn.exec_driver_sql(ddl)


def record_consolidation(
    conn: Connection,
    row: ConsolidationRow,
    items: Sequence[tuple[str, str]],
) -> None:
    """Store a plan and its items ``(proposal_id, phase)`` in plan order."""
    ensure_consolidation_schema(conn)
    conn.execute(
        text(
            "INSERT INTO brainview_consolidation (id, fingerprint, planned_at, planner, "
            "settings_json, counts_json, n_items) VALUES (:id, :f, :at, :p, :s, :c, :n)"
        ),
        {
            "id": row.id,
            "f": row.fingerprint,
            "at": row.planned_at,
            "p": row.planner,
            "s": json.dumps(row.settings, sort_keys=True),
            "c": json.dumps(row.counts, sort_keys=True),
            "n": row.n_items,
        },
    )
    if items:
        conn.execute(
            text(
                "INSERT INTO brainview_consolidation_item (proposal_id, consolidation_id, "
                "phase, seq) VALUES (:p, :c, :ph, :q)"
            ),
            [
                {"p": pid, "c": row.id, "ph": phase, "q": seq}
                for seq, (pid, phase) in enumerate(items)
            ],
        )


def consolidations(conn: Connection) -> list[ConsolidationRow]:
    """Every queued plan, oldest first."""
    if not table_exists(conn, "brainview_consolidation"):
        return []
    rows = conn.execute(
        text(
            "SELECT id, fingerprint, planned_at, planner, settings_json, counts_json, n_items "
            "FROM brainview_consolidation ORDER BY planned_at, id"
        )
    ).all()
    return [
        ConsolidationRow(r[0], r[1], r[2], r[3], json.loads(r[4]), json.loads(r[5]), int(r[6]))
        for r in rows
    ]


def item_of(conn: Connection, proposal_id: str) -> tuple[str, str] | None:
    """``(consolidation_id, phase)`` of a queued item, ``None`` for other proposals."""
    if not table_exists(conn, "brainview_consolidation_item"):
        return None
    row = conn.execute(
        text(
            "SELECT consolidation_id, phase FROM brainview_consolidation_item "
            "WHERE proposal_id = :p"
        ),
        {"p": proposal_id},
    ).first()
    return None if row is None else (str(row[0]), str(row[1]))


def pending_targets(conn: Connection) -> dict[str, set[str]]:
    """What pending consolidation proposals already cover, per kind: the reflections of
    ``prune_reflection``, ``pre|post|type`` of ``decay_synapses``, the members of
    ``summarize_community`` and the policies of ``retire_policy`` — so a second
    consolidation does not queue the same change twice."""
    out: dict[str, set[str]] = {
        "prune_reflection": set(),
        "decay_synapses": set(),
        "summarize_community": set(),
        "retire_policy": set(),
    }
    if not table_exists(conn, "brainview_proposal"):
        return out
    rows = conn.execute(
        text(
            "SELECT kind, params_json FROM brainview_proposal WHERE status = 'pending' "
            "AND kind IN ('prune_reflection', 'decay_synapses', 'summarize_community', "
            "'retire_policy')"
        )
    ).all()
    for kind, params_json in rows:
        p = json.loads(params_json)
        if kind == "prune_reflection":
            out[kind].add(str(p.get("reflection")))
        elif kind == "decay_synapses":
            out[kind].update(
                f"{s.get('pre')}|{s.get('post')}|{s.get('type')}" for s in p.get("synapses", [])
            )
        elif kind == "summarize_community":
            out[kind].update(str(m) for m in p.get("members", []))
        else:
            out[kind].add(str(p.get("policy")))
    return out


def kept_reflections(conn: Connection) -> set[str]:
    """Reflections a maintainer chose to keep by rejecting their prune (standing
    decisions): a later consolidation does not propose pruning them again."""
    if not (table_exists(conn, "brainview_proposal") and table_exists(conn, "brainview_decision")):
        return set()
    rows = conn.execute(
        text(
            "SELECT p.params_json FROM brainview_proposal p JOIN brainview_decision d "
            "ON d.proposal_id = p.id WHERE p.kind = 'prune_reflection' AND d.verdict = 'reject' "
            "AND d.undone_at IS NULL"
        )
    ).all()
    return {str(json.loads(r[0]).get("reflection")) for r in rows}
