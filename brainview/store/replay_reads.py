"""Reads behind a replay (:mod:`brainview.services.replay`): the logged recalls that
returned a lesson, the proposals that consulted it with their whole consult lists, and
the held-back drafts that name it or came from one of those recalls.

Read-only, parameterised; a table not created yet reads as empty (the held-back
tables appear with the first draft a curator reports).  ``IN`` lists are chunked.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, text

from brainview.store.readmodel import table_exists

CHUNK = 400
RecallRow = tuple[str, str, list[str], str, str | None]
Consult = tuple[str, str, str | None]
"""``(reflection_id, role, stance)``."""
"""``(recall id, query json, hit ids, retrieved_at, skill)``."""


def _in(ids: Sequence[str], prefix: str) -> tuple[str, dict[str, Any]]:
    marks = ",".join(f":{prefix}{i}" for i in range(len(ids)))
    return marks, {f"{prefix}{i}": v for i, v in enumerate(ids)}


def _chunks(ids: Sequence[str]) -> list[list[str]]:
    items = list(dict.fromkeys(ids))
    return [items[s : s + CHUNK] for s in range(0, len(items), CHUNK)]


def _ids(raw: object) -> list[str]:
    try:
        data = json.loads(str(raw))
    except ValueError:
        return []
    return [str(i) for i in data] if isinstance(data, list) else []


def recalls_returning(conn: Connection, rid: str, limit: int) -> tuple[list[RecallRow], int]:
    """The newest ``limit`` logged recalls whose hits include ``rid`` (newest first),
    and how many there are in all.  The hit list is a JSON array: the needle is the id
    as JSON spells it, then the parsed list confirms it."""
    if not table_exists(conn, "brainview_recall"):
        return [], 0
    rows = conn.execute(
        text(
            "SELECT id, query, neuron_ids, retrieved_at, skill FROM brainview_recall "
            "WHERE instr(neuron_ids, :needle) > 0 ORDER BY retrieved_at DESC, id"
        ),
        {"needle": json.dumps(rid)},
    )
    out: list[RecallRow] = []
    total = 0
    for rc, query, hits, at, skill in rows:
        ids = _ids(hits)
        if rid not in ids:
            continue
        total += 1
        if len(out) < limit:
            out.append((str(rc), str(query), ids, str(at), None if skill is None else str(skill)))
    return out, total


def consult_lists(
    conn: Connection, proposal_ids: Sequence[str]
) -> dict[str, list[tuple[str, str, str | None]]]:
    """Proposal id → its ``(reflection_id, role, stance)`` rows, by role then order."""
    out: dict[str, list[tuple[str, str, str | None]]] = {}
    if not table_exists(conn, "brainview_consult"):
        return out
    for chunk in _chunks(proposal_ids):
        marks, params = _in(chunk, "p")
        for pid, rid, role, stance in conn.execute(
            text(
                "SELECT proposal_id, reflection_id, role, stance FROM brainview_consult "
                f"WHERE proposal_id IN ({marks}) ORDER BY proposal_id, role, seq"
            ),
            params,
        ):
            out.setdefault(str(pid), []).append((str(rid), str(role), stance))
    return out


def received(conn: Connection, proposal_ids: Sequence[str]) -> dict[str, str]:
    """Proposal id → when brainview received it (its own clock, like the recall log's)."""
    out: dict[str, str] = {}
    for chunk in _chunks(proposal_ids):
        marks, params = _in(chunk, "p")
        for pid, at in conn.execute(
            text(f"SELECT id, received_at FROM brainview_proposal WHERE id IN ({marks})"), params
        ):
            out[str(pid)] = str(at)
    return out


HeldBackRow = tuple[str, str, str, str | None, str | None, str, str | None]
"""``(id, kind, action, recall_id, skill, reported_at, reason)``."""


def held_back(
    conn: Connection, rid: str, recall_ids: Sequence[str], limit: int
) -> list[HeldBackRow]:
    """Held-back drafts naming ``rid`` or made by one of ``recall_ids``, newest first."""
    if not table_exists(conn, "brainview_held_back"):
        return []
    found: dict[str, HeldBackRow] = {}
    cols = "h.id, h.kind, h.action, h.recall_id, h.skill, h.reported_at, h.reason"
    if table_exists(conn, "brainview_held_back_lesson"):
        for row in conn.execute(
            text(
                f"SELECT {cols} FROM brainview_held_back h JOIN brainview_held_back_lesson l "
                "ON l.held_back_id = h.id WHERE l.reflection_id = :r"
            ),
            {"r": rid},
        ):
            found[str(row[0])] = _held(row)
    for chunk in _chunks(recall_ids):
        marks, params = _in(chunk, "c")
        for row in conn.execute(
            text(f"SELECT {cols} FROM brainview_held_back h WHERE h.recall_id IN ({marks})"),
            params,
        ):
            found[str(row[0])] = _held(row)
    rows = sorted(found.values(), key=lambda r: (r[5], r[0]), reverse=True)
    return rows[:limit]


def _held(row: Any) -> HeldBackRow:
    hid, kind, action, recall_id, skill, at, reason = row
    opt = [None if v is None else str(v) for v in (recall_id, skill)]
    return (str(hid), str(kind), str(action), opt[0], opt[1], str(at), reason and str(reason))


def held_back_lessons(conn: Connection, ids: Sequence[str]) -> dict[str, list[tuple[str, str]]]:
    """Held-back draft id → its ``(reflection_id, stance)`` lessons."""
    out: dict[str, list[tuple[str, str]]] = {}
    if not table_exists(conn, "brainview_held_back_lesson"):
        return out
    for chunk in _chunks(ids):
        marks, params = _in(chunk, "h")
        for hid, rid, stance in conn.execute(
            text(
                "SELECT held_back_id, reflection_id, stance FROM brainview_held_back_lesson "
                f"WHERE held_back_id IN ({marks}) ORDER BY held_back_id, reflection_id"
            ),
            params,
        ):
            out.setdefault(str(hid), []).append((str(rid), str(stance)))
    return out


def held_back_verdicts(conn: Connection, ids: Sequence[str]) -> dict[str, str]:
    """Held-back draft id → a maintainer's verdict not undone (where the table exists)."""
    out: dict[str, str] = {}
    if not table_exists(conn, "brainview_held_back_verdict"):
        return out
    for chunk in _chunks(ids):
        marks, params = _in(chunk, "h")
        for hid, verdict in conn.execute(
            text(
                "SELECT held_back_id, verdict FROM brainview_held_back_verdict "
                f"WHERE undone_at IS NULL AND held_back_id IN ({marks}) ORDER BY decided_at"
            ),
            params,
        ):
            out[str(hid)] = str(verdict)
    return out
