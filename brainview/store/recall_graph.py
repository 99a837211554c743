"""Recall's reads from the brains: edges to spread over, user-brain titles and
neighbours, the decisions that wrote a lesson, and the policies over the hits.

Every query is by primary key or an index Spikuit creates (``idx_synapse_pre``,
``idx_synapse_post``), batched ``IN`` lists of at most 500 ids: the cost follows the
neighbourhood a recall touches, never the size of either brain.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from typing import Any

from brainview.core.recall_rank import Provenance
from brainview.core.recall_text import REF_KEYS
from brainview.core.safe_text import first_line
from brainview.core.spread import Edge
from brainview.store.era import Era

CHUNK = 500


def _chunks(ids: list[str]) -> Iterator[tuple[list[str], str]]:
    for start in range(0, len(ids), CHUNK):
        chunk = ids[start : start + CHUNK]
        yield chunk, ",".join("?" * len(chunk))


def _live(era: Era, alias: str = "") -> str:
    # unary + keeps the planner off idx_synapse_retired_at (nearly every row is live)
    return f" AND +{alias}retired_at IS NULL" if "retired_at" in era.synapse_cols else ""


def edges(conn: sqlite3.Connection, era: Era, ids: list[str]) -> list[Edge]:
    """Live outgoing synapses of ``ids`` in the agent brain (every type)."""
    out: list[Edge] = []
    for chunk, marks in _chunks(ids):
        for pre, post, typ, weight in conn.execute(
            f"SELECT pre, post, type, weight FROM synapse WHERE pre IN ({marks}){_live(era)}",
            chunk,
        ):
            out.append(Edge(str(pre), str(post), str(typ), float(weight or 0.0)))
    return out


def titles(conn: sqlite3.Connection, ids: list[str]) -> dict[str, str]:
    """User neuron id → title (first line of its content) for the existing ones."""
    out: dict[str, str] = {}
    for chunk, marks in _chunks(ids):
        for nid, content in conn.execute(
            f"SELECT id, content FROM neuron WHERE id IN ({marks})", chunk
        ):
            out[str(nid)] = first_line(str(content or ""), 80)
    return out


def neighbours(
    conn: sqlite3.Connection, era: Era, ids: list[str], per: int
) -> dict[str, list[tuple[str, float]]]:
    """The ``per`` strongest live user-brain neighbours of each of ``ids`` (by weight)."""
    found: dict[str, list[tuple[str, float]]] = {}
    for chunk, marks in _chunks(ids):
        for mine, other in (("pre", "post"), ("post", "pre")):  # either direction
            for a, b, weight in conn.execute(
                f"SELECT {mine}, {other}, weight FROM synapse WHERE {mine} IN ({marks}) "
                f"AND type != 'summarizes'{_live(era)}",
                chunk,
            ):
                if a != b:
                    found.setdefault(str(a), []).append((str(b), float(weight or 0.0)))
    return {k: sorted(v, key=lambda kv: -kv[1])[:per] for k, v in found.items()}


def provenance(
    conn: sqlite3.Connection, tables: frozenset[str], ids: list[str]
) -> dict[str, Provenance]:
    """The standing decision that wrote each of ``ids`` (a rejection or an outcome's lesson,
    or a held-back draft judged "should have been proposed": an ``accept`` of its kind).

    ``tables`` is what the brain held when it was opened; brainview's tables may have
    been created since (a long-running process's first proposal), so they are looked up
    again when missing."""
    wanted = {"brainview_decision", "brainview_proposal"}
    if not wanted <= tables and not wanted <= _present(conn, wanted):
        return {}
    out: dict[str, Provenance] = {}
    for chunk, marks in _chunks(ids):
        for rid, verdict, kind, params_json in conn.execute(
            "SELECT d.new_reflection_id, d.verdict, p.kind, p.params_json FROM "
            "brainview_decision d JOIN brainview_proposal p ON p.id = d.proposal_id "
            f"WHERE d.new_reflection_id IN ({marks}) AND d.undone_at IS NULL",
            chunk,
        ):
            out[str(rid)] = Provenance(str(verdict), str(kind), _refs(params_json))
    for rid, kind, draft_json in _verdict_lessons(conn, ids):
        out.setdefault(rid, Provenance("accept", kind, _draft_refs(draft_json)))
    return out


def _verdict_lessons(conn: sqlite3.Connection, ids: list[str]) -> list[tuple[str, str, object]]:
    """``(lesson, kind, draft_json)`` of the lessons standing "should have been proposed"
    verdicts wrote (an accept of the held-back draft), where the table has the column."""
    cols = {str(r[1]) for r in conn.execute("PRAGMA table_info(brainview_held_back_verdict)")}
    if "new_reflection_id" not in cols:
        return []
    out = []
    for chunk, marks in _chunks(ids):
        out += [
            (str(rid), str(kind), draft)
            for rid, kind, draft in conn.execute(
                "SELECT v.new_reflection_id, h.kind, h.draft_json FROM brainview_held_back_verdict "
                "v JOIN brainview_held_back h ON h.id = v.held_back_id WHERE v.undone_at IS NULL "
                f"AND v.new_reflection_id IN ({marks})",
                chunk,
            )
        ]
    return out


def _draft_refs(draft_json: object) -> tuple[str, ...]:
    try:
        draft: Any = json.loads(str(draft_json))
    except ValueError:
        return ()
    params = draft.get("params") if isinstance(draft, dict) else None
    return _refs(json.dumps(params)) if isinstance(params, dict) else ()


def _present(conn: sqlite3.Connection, names: set[str]) -> set[str]:
    marks = ",".join("?" * len(names))
    sql = f"SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ({marks})"
    return {str(r[0]) for r in conn.execute(sql, sorted(names))}


def _refs(params_json: object) -> tuple[str, ...]:
    try:
        params: Any = json.loads(str(params_json))
    except ValueError:
        return ()
    if not isinstance(params, dict):
        return ()
    out: list[str] = []
    for key in REF_KEYS:
        value = params.get(key)
        values = value if isinstance(value, list) else [value]
        out.extend(v for v in values if isinstance(v, str))
    return tuple(out)


def policies(
    conn: sqlite3.Connection, era: Era, members: list[str]
) -> dict[str, tuple[str, list[str]]]:
    """Live policies (``summarizes`` → member) over any of ``members``: id → (text, members)."""
    over: dict[str, list[str]] = {}
    for chunk, marks in _chunks(members):
        for pre, post in conn.execute(
            f"SELECT pre, post FROM synapse WHERE post IN ({marks}) "
            f"AND type = 'summarizes'{_live(era)}",
            chunk,
        ):
            over.setdefault(str(pre), []).append(str(post))
    if not over:
        return {}
    live = " AND retired_at IS NULL" if era.has_retire else ""
    out: dict[str, tuple[str, list[str]]] = {}
    for chunk, marks in _chunks(list(over)):
        for pid, content in conn.execute(
            f"SELECT id, content FROM neuron WHERE id IN ({marks}){live}", chunk
        ):
            out[str(pid)] = (str(content or ""), over[str(pid)])
    return out


def stored_cards(conn: sqlite3.Connection, ids: list[str]) -> dict[str, str]:
    """``fsrs_state`` card JSON of the reviewed ones among ``ids``."""
    out: dict[str, str] = {}
    for chunk, marks in _chunks(ids):
        for nid, card in conn.execute(
            f"SELECT neuron_id, card_json FROM fsrs_state WHERE neuron_id IN ({marks})", chunk
        ):
            out[str(nid)] = str(card)
    return out


def contents(conn: sqlite3.Connection, ids: list[str], limit: int) -> dict[str, str]:
    """The first ``limit`` characters of each neuron's content."""
    out: dict[str, str] = {}
    for chunk, marks in _chunks(ids):
        for nid, content in conn.execute(
            f"SELECT id, substr(content, 1, ?) FROM neuron WHERE id IN ({marks})",
            [limit, *chunk],
        ):
            out[str(nid)] = str(content or "")
    return out


def in_state(conn: sqlite3.Connection, state: str) -> set[str]:
    """Reflections whose latest lifecycle row is ``state`` (e.g. every quarantined one):
    the rows in that state, each checked against its reflection's newest row by the
    ``reflection_id`` index — the cost follows the lifecycle log, not the brain."""
    if (
        conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'brainview_lifecycle'"
        ).fetchone()
        is None
    ):
        return set()
    return {
        str(r)
        for (r,) in conn.execute(
            "SELECT l.reflection_id FROM brainview_lifecycle l WHERE l.state = ? AND l.id = "
            "(SELECT MAX(m.id) FROM brainview_lifecycle m WHERE m.reflection_id = l.reflection_id)",
            (state,),
        )
    }
