"""SQL for the two-person rule's votes (agent brain, brainview's own table).

``brainview_approval`` is **append-only** — never updated or deleted — one row per
event on a *subject* (a proposal id, or ``invalidate:<digest>`` for invalidating a set
of reflections, :func:`brainview.core.two_person.invalidation_subject`):

* ``vote`` — one person's verdict (``accept``, ``reject``, ``invalidate``) held until a
  second person decides; ``rule`` says why two people are needed (``NULL``: the
  agreement sample), ``detail_json`` what an invalidation covers;
* ``withdraw`` — ``ref`` names the vote withdrawn (by its author or the other person);
* ``final`` — an invalidation carried out on the second vote: ``ref`` is its lifecycle
  batch (a proposal's final vote is its ``brainview_decision`` row).

A vote *stands* while no ``withdraw`` names it; it is *open* while its proposal is
still pending (or its invalidation has no standing batch), so undoing the second
person's decision opens it again — undo is exact without touching this table.
No ``UNIQUE``, ``CHECK``, partial index or trigger (the schema guard refuses them).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection

from brainview.store.effects import refuse_unsafe_text
from brainview.store.rows import PRIMARY_KEYS, Row, driver, select_in

TABLE = "brainview_approval"
COLUMNS = (
    "id", "subject", "kind", "event", "verdict", "actor", "at", "rule", "reason",
    "detail_json", "ref",
)  # fmt: skip
DDL = (
    f"""CREATE TABLE IF NOT EXISTS {TABLE} (
        id TEXT PRIMARY KEY, subject TEXT NOT NULL, kind TEXT NOT NULL,
        event TEXT NOT NULL, verdict TEXT, actor TEXT NOT NULL, at TEXT NOT NULL,
        rule TEXT, reason TEXT, detail_json TEXT, ref TEXT)""",
    f"CREATE INDEX IF NOT EXISTS ix_bv_approval_subject ON {TABLE}(subject)",
    f"CREATE INDEX IF NOT EXISTS ix_bv_approval_ref ON {TABLE}(ref)",
)
PRIMARY_KEYS.setdefault(TABLE, ("id",))

_STANDING = (
    f"v.event = 'vote' AND NOT EXISTS (SELECT 1 FROM {TABLE} w "
    "WHERE w.event = 'withdraw' AND w.ref = v.id)"
)
_COLS = ", ".join(f"v.{c}" for c in COLUMNS)


def ensure(conn: Connection) -> None:
    """Create the table if missing (inside the caller's write transaction)."""
    for ddl in DDL:
        conn.exec_driver_sql(ddl)


def has_table(conn: Connection) -> bool:
    found = driver(conn).execute(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", (TABLE,)
    )
    return int(found.fetchone()[0]) == 1


def _has(conn: Connection, name: str) -> bool:
    found = driver(conn).execute(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)
    )
    return int(found.fetchone()[0]) == 1


def insert(conn: Connection, row: Row) -> None:
    """One event row (the text rule first: nothing written when it fails)."""
    refuse_unsafe_text(TABLE, [row])
    cols = [c for c in COLUMNS if c in row]
    driver(conn).execute(
        f"INSERT INTO {TABLE} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
        tuple(row[c] for c in cols),
    )


def standing_votes(conn: Connection, subjects: Sequence[str]) -> dict[str, list[Row]]:
    """Subject → its standing votes, oldest first (withdrawn ones left out)."""
    out: dict[str, list[Row]] = {}
    if not subjects or not has_table(conn):
        return out
    sql = (
        f"SELECT {_COLS} FROM {TABLE} v WHERE {_STANDING} AND v.subject IN ({{marks}}) "
        "ORDER BY v.at, v.id"
    )
    for values in select_in(driver(conn), sql, list(dict.fromkeys(subjects))):
        row = dict(zip(COLUMNS, values, strict=True))
        out.setdefault(str(row["subject"]), []).append(row)
    return out


def open_votes(conn: Connection, subjects: Sequence[str]) -> dict[str, list[Row]]:
    """Like :func:`standing_votes`, only subjects still open (a pending proposal, an
    invalidation without a standing batch after the vote)."""
    found = standing_votes(conn, subjects)
    if not found:
        return found
    opened = _open_subjects(conn, found)
    return {s: v for s, v in found.items() if s in opened}


def all_open(conn: Connection, *, limit: int = 500) -> list[Row]:
    """Every open standing vote, oldest first (at most ``limit``)."""
    if not has_table(conn):
        return []
    rows = [
        dict(zip(COLUMNS, values, strict=True))
        for values in driver(conn).execute(
            f"SELECT {_COLS} FROM {TABLE} v WHERE {_STANDING} ORDER BY v.at, v.id LIMIT ?",
            (int(limit),),
        )
    ]
    grouped: dict[str, list[Row]] = {}
    for row in rows:
        grouped.setdefault(str(row["subject"]), []).append(row)
    opened = _open_subjects(conn, grouped)
    return [r for r in rows if r["subject"] in opened]


def _open_subjects(conn: Connection, grouped: dict[str, list[Row]]) -> set[str]:
    raw = driver(conn)
    proposals = [s for s, v in grouped.items() if v[0]["kind"] != "invalidate"]
    opened: set[str] = set()
    if proposals and _has(conn, "brainview_proposal"):
        sql = "SELECT id FROM brainview_proposal WHERE status = 'pending' AND id IN ({marks})"
        opened |= {str(p) for (p,) in select_in(raw, sql, proposals)}
    lifecycle = _has(conn, "brainview_lifecycle_batch")
    for subject, votes in grouped.items():
        if votes[0]["kind"] != "invalidate":
            continue
        done = 0
        if lifecycle:
            done = raw.execute(
                f"SELECT count(*) FROM {TABLE} f JOIN brainview_lifecycle_batch b "
                "ON b.id = f.ref WHERE f.event = 'final' AND f.subject = ? AND f.at >= ? "
                "AND b.undone_at IS NULL",
                (subject, votes[0]["at"]),
            ).fetchone()[0]
        if not done:
            opened.add(subject)
    return opened


def vote(conn: Connection, vote_id: str) -> Row | None:
    """One event row by id."""
    if not has_table(conn):
        return None
    cur = driver(conn).execute(f"SELECT {_COLS} FROM {TABLE} v WHERE v.id = ?", (vote_id,))
    values = cur.fetchone()
    return dict(zip(COLUMNS, values, strict=True)) if values else None


def decided_pairs(conn: Connection) -> list[tuple[str, str, str, str, str]]:
    """``(kind, first actor, first verdict, second actor, second verdict)`` of every
    subject two different people decided and whose decision stands."""
    if not has_table(conn):
        return []
    raw = driver(conn)
    out: list[tuple[str, str, str, str, str]] = []
    if _has(conn, "brainview_decision"):
        sql = (
            f"SELECT v.kind, v.actor, v.verdict, d.decider, d.verdict FROM {TABLE} v "
            "JOIN brainview_decision d ON d.proposal_id = v.subject "
            f"WHERE {_STANDING} AND v.kind <> 'invalidate' AND d.undone_at IS NULL "
            "AND d.verdict IN ('accept', 'reject') AND d.decided_at >= v.at "
            "AND lower(trim(d.decider)) <> lower(trim(v.actor)) ORDER BY v.at, v.id"
        )
        out += [tuple(str(x) for x in r) for r in raw.execute(sql)]  # type: ignore[misc]
    if _has(conn, "brainview_lifecycle_batch"):
        sql = (
            f"SELECT v.kind, v.actor, v.verdict, f.actor, f.verdict FROM {TABLE} v "
            f"JOIN {TABLE} f ON f.subject = v.subject AND f.event = 'final' AND f.at >= v.at "
            "JOIN brainview_lifecycle_batch b ON b.id = f.ref "
            f"WHERE {_STANDING} AND v.kind = 'invalidate' AND b.undone_at IS NULL "
            "ORDER BY v.at, v.id"
        )
        out += [tuple(str(x) for x in r) for r in raw.execute(sql)]  # type: ignore[misc]
    return out


def counts(conn: Connection) -> dict[str, Any]:
    """``{"open": n}``: open standing votes."""
    return {"open": len(all_open(conn))}


def proposals_of(conn: Connection, ids: Sequence[str]) -> dict[str, tuple[str, str, str | None]]:
    """Proposal id → ``(kind, status, params_json)`` for the ``ids`` that exist."""
    if not ids or not _has(conn, "brainview_proposal"):
        return {}
    sql = "SELECT id, kind, status, params_json FROM brainview_proposal WHERE id IN ({marks})"
    return {
        str(i): (str(k), str(s), p)
        for i, k, s, p in select_in(driver(conn), sql, list(dict.fromkeys(ids)))
    }


def event_count(conn: Connection) -> int:
    """How many events the table holds (it only grows: a cheap change mark)."""
    if not has_table(conn):
        return 0
    return int(driver(conn).execute(f"SELECT COALESCE(MAX(rowid), 0) FROM {TABLE}").fetchone()[0])
