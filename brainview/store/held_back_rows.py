"""SQL for held-back drafts: what the curator withdrew or rewrote after recall, the
lessons that opposed it, and the maintainer's verdicts (agent brain, brainview's own
tables).

* ``brainview_held_back`` — one row per reported draft; **append-only** (never updated
  or deleted): ``draft_json`` is the proposal object as the curator drafted it,
  ``action`` ``withdrawn`` or ``rewritten`` (``rewritten_as``: the proposal it became),
  ``recall_id`` the recall that made it, ``runtime`` who reported it;
* ``brainview_held_back_lesson`` — the lessons it names, with their stance
  (``oppose`` made it held back; ``support`` / ``annotate`` were recalled too);
* ``brainview_held_back_verdict`` — a maintainer's verdict (``should_have_proposed``
  or ``rightly_held_back``): ``decision_id`` keys its ``brainview_effect`` and
  ``brainview_grade`` rows and its spikes' ``session_id``; an undo sets ``undone_at`` /
  ``undone_by`` and keeps the row (as ``brainview_decision`` does).

No ``UNIQUE``, ``CHECK``, partial index or trigger: the schema guard refuses writes to
brainview tables holding them.  Everything runs inside the caller's connection or
transaction; readers treat missing tables as empty.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection

from brainview.store.effects import refuse_unsafe_text
from brainview.store.era import Era
from brainview.store.rows import PRIMARY_KEYS, Row, dicts, driver, select_in

HELD_BACK_DDL = (
    """CREATE TABLE IF NOT EXISTS brainview_held_back (
        id TEXT PRIMARY KEY, kind TEXT NOT NULL, draft_json TEXT NOT NULL,
        action TEXT NOT NULL, rewritten_as TEXT, recall_id TEXT, runtime TEXT NOT NULL,
        skill TEXT, reason TEXT, reported_at TEXT NOT NULL, source TEXT, confidence REAL)""",
    "CREATE INDEX IF NOT EXISTS ix_bv_held_back_at ON brainview_held_back(reported_at)",
    """CREATE TABLE IF NOT EXISTS brainview_held_back_lesson (
        held_back_id TEXT NOT NULL, reflection_id TEXT NOT NULL, stance TEXT NOT NULL,
        seq INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (held_back_id, reflection_id))""",
    "CREATE INDEX IF NOT EXISTS ix_bv_held_back_refl ON brainview_held_back_lesson(reflection_id)",
    """CREATE TABLE IF NOT EXISTS brainview_held_back_verdict (
        decision_id TEXT PRIMARY KEY, held_back_id TEXT NOT NULL, verdict TEXT NOT NULL,
        reason TEXT, decider TEXT NOT NULL, decided_at TEXT NOT NULL,
        proposal_id TEXT, undone_at TEXT, undone_by TEXT, new_reflection_id TEXT)""",
    "CREATE INDEX IF NOT EXISTS ix_bv_held_back_verdict "
    "ON brainview_held_back_verdict(held_back_id)",
)
PRIMARY_KEYS.setdefault("brainview_held_back", ("id",))
PRIMARY_KEYS.setdefault("brainview_held_back_lesson", ("held_back_id", "reflection_id"))

HELD_BACK = "brainview_held_back"
LESSONS = "brainview_held_back_lesson"
VERDICTS = "brainview_held_back_verdict"


def ensure(conn: Connection) -> None:
    """Create the tables if missing (inside the caller's write transaction)."""
    for ddl in HELD_BACK_DDL:
        conn.exec_driver_sql(ddl)
    have = {
        str(r[0])
        for r in conn.exec_driver_sql(f"SELECT name FROM pragma_table_info('{HELD_BACK}')")
    }
    if "confidence" not in have:  # reported before the curator could say how sure it was
        conn.exec_driver_sql(f"ALTER TABLE {HELD_BACK} ADD COLUMN confidence REAL")
    have = {
        str(r[0]) for r in conn.exec_driver_sql(f"SELECT name FROM pragma_table_info('{VERDICTS}')")
    }
    if "new_reflection_id" not in have:  # decided before a verdict wrote a lesson
        conn.exec_driver_sql(f"ALTER TABLE {VERDICTS} ADD COLUMN new_reflection_id TEXT")


def has_tables(conn: Connection) -> bool:
    """Whether held-back drafts were ever reported to this agent brain."""
    found = driver(conn).execute(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN (?, ?, ?)",
        (HELD_BACK, LESSONS, VERDICTS),
    )
    return int(found.fetchone()[0]) == 3


def item(conn: Connection, held_back_id: str) -> Row | None:
    """One reported draft's row (``None``: never reported)."""
    if not has_tables(conn):
        return None
    rows = dicts(driver(conn).execute(f"SELECT * FROM {HELD_BACK} WHERE id = ?", (held_back_id,)))
    return rows[0] if rows else None


def items(conn: Connection, *, limit: int, offset: int = 0) -> list[Row]:
    """Reported drafts, newest first (a page)."""
    if not has_tables(conn):
        return []
    sql = f"SELECT * FROM {HELD_BACK} ORDER BY reported_at DESC, id LIMIT ? OFFSET ?"
    return dicts(driver(conn).execute(sql, (int(limit), int(offset))))


def lessons_of(conn: Connection, ids: Sequence[str]) -> dict[str, list[tuple[str, str]]]:
    """Held-back id → ``(reflection, stance)`` in the order reported."""
    out: dict[str, list[tuple[str, str]]] = {i: [] for i in ids}
    if not ids or not has_tables(conn):
        return out
    sql = (
        f"SELECT held_back_id, reflection_id, stance FROM {LESSONS} "
        "WHERE held_back_id IN ({marks}) ORDER BY held_back_id, seq, reflection_id"
    )
    for hid, rid, stance in select_in(driver(conn), sql, list(ids)):
        out.setdefault(str(hid), []).append((str(rid), str(stance)))
    return out


VERDICT_COLUMNS = (
    "decision_id", "held_back_id", "verdict", "reason", "decider", "decided_at",
    "proposal_id", "undone_at", "undone_by",
)  # fmt: skip


def standing_verdicts(conn: Connection, ids: Sequence[str]) -> dict[str, Row]:
    """Held-back id → its standing (not undone) verdict row, for those that have one."""
    if not ids or not has_tables(conn):
        return {}
    sql = (
        f"SELECT {', '.join(VERDICT_COLUMNS)} FROM {VERDICTS} WHERE undone_at IS NULL "
        "AND held_back_id IN ({marks}) ORDER BY decided_at"
    )
    out: dict[str, Row] = {}
    for values in select_in(driver(conn), sql, list(ids)):
        row = dict(zip(VERDICT_COLUMNS, values, strict=True))
        out[str(row["held_back_id"])] = row
    return out


def verdict(conn: Connection, decision_id: str) -> Row | None:
    """One verdict row by its decision id."""
    if not has_tables(conn):
        return None
    sql = f"SELECT * FROM {VERDICTS} WHERE decision_id = ?"
    rows = dicts(driver(conn).execute(sql, (decision_id,)))
    return rows[0] if rows else None


def insert_verdict(conn: Connection, row: Row) -> None:
    """One verdict row (the audit record; its effects are in ``brainview_effect``)."""
    refuse_unsafe_text(VERDICTS, [row])
    cols = list(row)
    driver(conn).execute(
        f"INSERT INTO {VERDICTS} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
        tuple(row[c] for c in cols),
    )


def mark_undone(conn: Connection, decision_id: str, *, at: str, by: str) -> None:
    refuse_unsafe_text(VERDICTS, [{"undone_by": by}])
    driver(conn).execute(
        f"UPDATE {VERDICTS} SET undone_at = ?, undone_by = ? WHERE decision_id = ?",
        (at, by, decision_id),
    )


def lessons_live(
    conn: Connection, era: Era, held_back_id: str
) -> list[tuple[str, str, bool | None]]:
    """``(reflection, stance, live)`` of a draft's lessons in the order reported
    (``live`` ``None``: the reflection is missing), as
    :func:`brainview.store.decision_rows.fire_listed` takes them."""
    retired = "n.retired_at" if era.has_retire else "NULL"
    rows = driver(conn).execute(
        f"SELECT l.reflection_id, l.stance, n.id IS NOT NULL, {retired} IS NULL "
        f"FROM {LESSONS} l LEFT JOIN neuron n ON n.id = l.reflection_id "
        "WHERE l.held_back_id = ? ORDER BY l.seq, l.reflection_id",
        (held_back_id,),
    )
    return [(str(r), str(s), bool(live) if found else None) for r, s, found, live in rows]


def confirmations(conn: Connection, reflection_ids: Sequence[str]) -> dict[str, set[str]]:
    """Reflection → the distinct deciders who confirmed it: standing decisions in which
    its stance won (``support`` on an accept, ``oppose`` on a reject) and standing
    ``rightly_held_back`` verdicts on a draft it opposed."""
    out: dict[str, set[str]] = {r: set() for r in reflection_ids}
    if not reflection_ids:
        return out
    raw = driver(conn)
    present = {
        str(n)
        for (n,) in raw.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN (?, ?, ?, ?)",
            ("brainview_grade", "brainview_decision", LESSONS, VERDICTS),
        )
    }
    ids = list(reflection_ids)
    if {"brainview_grade", "brainview_decision"} <= present:
        sql = (
            "SELECT DISTINCT g.reflection_id, d.decider FROM brainview_grade g "
            "JOIN brainview_decision d ON d.id = g.decision_id WHERE d.undone_at IS NULL "
            "AND ((g.stance = 'support' AND d.verdict = 'accept') OR "
            "(g.stance = 'oppose' AND d.verdict = 'reject')) AND g.reflection_id IN ({marks})"
        )
        for rid, who in select_in(raw, sql, ids):
            out.setdefault(str(rid), set()).add(str(who))
    if {LESSONS, VERDICTS} <= present:
        sql = (
            f"SELECT DISTINCT l.reflection_id, v.decider FROM {LESSONS} l JOIN {VERDICTS} v "
            "ON v.held_back_id = l.held_back_id WHERE v.undone_at IS NULL "
            "AND v.verdict = 'rightly_held_back' AND l.stance = 'oppose' "
            "AND l.reflection_id IN ({marks})"
        )
        for rid, who in select_in(raw, sql, ids):
            out.setdefault(str(rid), set()).add(str(who))
    return out


def counts(conn: Connection) -> dict[str, Any]:
    """``{"reported", "decided"}``: reported drafts and those with a standing verdict."""
    if not has_tables(conn):
        return {"reported": 0, "decided": 0}
    raw = driver(conn)
    reported = raw.execute(f"SELECT count(*) FROM {HELD_BACK}").fetchone()[0]
    decided = raw.execute(
        f"SELECT count(DISTINCT held_back_id) FROM {VERDICTS} WHERE undone_at IS NULL"
    ).fetchone()[0]
    return {"reported": int(reported), "decided": int(decided)}
