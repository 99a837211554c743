"""brainview's own tables, kept in the agent brain and prefixed ``brainview_``.

Portable SQL (no SQLite-only tricks) so the queue could later live on a server.
Created only when a write is asked for; readers treat missing tables as empty.
"""

from __future__ import annotations

from sqlalchemy import Connection

SCHEMA_VERSION = 5
"""3: ``brainview_effect`` holds one row per run of effects (``op`` ``insert_rows`` /
``update_rows``, see :mod:`brainview.store.effect_codec`); rows of schema 2 (one per
changed row, ``op`` ``insert`` / ``update``) are still read, so no migration is needed.
4: ``brainview_decision.group_id`` ties the decisions of one bulk decision together
(one undo reverts them all); added by :func:`ensure_decision_group` where missing,
``NULL`` for a decision taken alone.
5: ``brainview_apply_intent.owner`` names the process carrying an intent out (host, pid,
start time), so recovery leaves another live process's in-flight intent alone; added by
:func:`ensure_intent_owner` where missing, ``NULL`` on older rows."""

BV_DDL = [
    """CREATE TABLE IF NOT EXISTS brainview_meta (
        key TEXT PRIMARY KEY, value TEXT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS brainview_proposal (
        id TEXT PRIMARY KEY, skill TEXT NOT NULL, kind TEXT NOT NULL,
        params_json TEXT NOT NULL, rationale TEXT NOT NULL DEFAULT '',
        created_at TEXT NOT NULL, received_at TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'pending', stale_reason TEXT,
        suspicion TEXT, runtime TEXT, source TEXT NOT NULL DEFAULT 'cli',
        summary TEXT NOT NULL DEFAULT '', n_consulted INTEGER NOT NULL DEFAULT 0,
        version INTEGER NOT NULL DEFAULT 0)""",
    "CREATE INDEX IF NOT EXISTS ix_bv_proposal_status ON brainview_proposal(status, created_at)",
    """CREATE TABLE IF NOT EXISTS brainview_consult (
        proposal_id TEXT NOT NULL, reflection_id TEXT NOT NULL,
        role TEXT NOT NULL, stance TEXT, note TEXT, seq INTEGER NOT NULL,
        PRIMARY KEY (proposal_id, reflection_id, role))""",
    "CREATE INDEX IF NOT EXISTS ix_bv_consult_refl ON brainview_consult(reflection_id)",
    """CREATE TABLE IF NOT EXISTS brainview_decision (
        id TEXT PRIMARY KEY, proposal_id TEXT NOT NULL, verdict TEXT NOT NULL,
        reason TEXT, decider TEXT NOT NULL, decided_at TEXT NOT NULL,
        seconds_on_screen REAL, new_reflection_id TEXT, apply_state TEXT NOT NULL,
        undone_at TEXT, undone_by TEXT, group_id TEXT)""",
    "CREATE INDEX IF NOT EXISTS ix_bv_decision_prop ON brainview_decision(proposal_id)",
    # The clock floor (store/clock_floor.py) and ``undo --last`` read the latest stamps:
    # indexed, so a decision costs the same with 10 or 100,000 decisions behind it.
    "CREATE INDEX IF NOT EXISTS ix_bv_decision_at ON brainview_decision(decided_at)",
    "CREATE INDEX IF NOT EXISTS ix_bv_decision_undone ON brainview_decision(undone_at)",
    """CREATE TABLE IF NOT EXISTS brainview_effect (
        decision_id TEXT NOT NULL, seq INTEGER NOT NULL, tbl TEXT NOT NULL,
        op TEXT NOT NULL, key_json TEXT NOT NULL, before_json TEXT, after_json TEXT,
        PRIMARY KEY (decision_id, seq))""",
    """CREATE TABLE IF NOT EXISTS brainview_grade (
        decision_id TEXT NOT NULL, reflection_id TEXT NOT NULL, stance TEXT NOT NULL,
        grade INTEGER NOT NULL, spike_id INTEGER, fired_at TEXT NOT NULL,
        PRIMARY KEY (decision_id, reflection_id))""",
    "CREATE INDEX IF NOT EXISTS ix_bv_grade_refl ON brainview_grade(reflection_id)",
    """CREATE TABLE IF NOT EXISTS brainview_lifecycle (
        id INTEGER PRIMARY KEY AUTOINCREMENT, reflection_id TEXT NOT NULL,
        state TEXT NOT NULL, reason TEXT NOT NULL, actor TEXT NOT NULL, at TEXT NOT NULL,
        batch_id TEXT)""",
    "CREATE INDEX IF NOT EXISTS ix_bv_lifecycle_refl ON brainview_lifecycle(reflection_id)",
    "CREATE INDEX IF NOT EXISTS ix_bv_lifecycle_at ON brainview_lifecycle(at)",
]

APPLY_DDL = [
    # One row per user-brain change brainview intends to make (apply an accepted
    # proposal, or revert one on undo).  Written in the agent-brain transaction that
    # records the decision (or its undo), *before* the user brain is touched;
    # ``changeset_id`` is chosen then, so the user-brain change is idempotent: it is
    # done iff a changeset with that id exists in the user brain.
    """CREATE TABLE IF NOT EXISTS brainview_apply_intent (
        id TEXT PRIMARY KEY, decision_id TEXT NOT NULL, proposal_id TEXT NOT NULL,
        action TEXT NOT NULL, changeset_id TEXT NOT NULL, tag TEXT NOT NULL,
        actor TEXT NOT NULL, planned_at TEXT NOT NULL, plan_json TEXT NOT NULL,
        state TEXT NOT NULL, created_at TEXT NOT NULL, finished_at TEXT, note TEXT,
        batch_id TEXT, owner TEXT)""",
    "CREATE INDEX IF NOT EXISTS ix_bv_intent_state ON brainview_apply_intent(state)",
    "CREATE INDEX IF NOT EXISTS ix_bv_intent_decision ON brainview_apply_intent(decision_id)",
    # The rows of a streamed apply (a domain too big to plan row by row), in chunks:
    # which neuron ids, of which move of the plan, and the digest of their
    # before-images.  Written with the intent; read back (newest chunk first) by the
    # undo, which must find every row as the apply left it.
    """CREATE TABLE IF NOT EXISTS brainview_apply_chunk (
        changeset_id TEXT NOT NULL, seq INTEGER NOT NULL, move INTEGER NOT NULL,
        ids_json TEXT NOT NULL, digest TEXT NOT NULL, PRIMARY KEY (changeset_id, seq))""",
    # Proposals imported from a Spikuit consolidation plan (`spkt consolidate --json`):
    # the plan's state hash makes them stale when the user brain changed since.
    """CREATE TABLE IF NOT EXISTS brainview_plan_item (
        proposal_id TEXT PRIMARY KEY, plan_digest TEXT NOT NULL, state_hash TEXT NOT NULL,
        seq INTEGER NOT NULL, action TEXT NOT NULL, item_json TEXT NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS ix_bv_plan_item_digest ON brainview_plan_item(plan_digest)",
]

BV_TABLES = (
    "brainview_meta",
    "brainview_proposal",
    "brainview_consult",
    "brainview_decision",
    "brainview_effect",
    "brainview_grade",
    "brainview_lifecycle",
    "brainview_apply_intent",
    "brainview_apply_chunk",
    "brainview_plan_item",
)


def ensure_schema(conn: Connection) -> None:
    """Create brainview's tables if missing (inside the caller's transaction)."""
    for ddl in BV_DDL + APPLY_DDL:
        conn.exec_driver_sql(ddl)
    ensure_decision_group(conn)
    conn.exec_driver_sql(
        "INSERT OR IGNORE INTO brainview_meta(key, value) VALUES ('schema_version', ?)",
        (str(SCHEMA_VERSION),),
    )
    conn.exec_driver_sql(
        "UPDATE brainview_meta SET value = ? WHERE key = 'schema_version' "
        "AND CAST(value AS INTEGER) < ?",
        (str(SCHEMA_VERSION), SCHEMA_VERSION),
    )


def ensure_decision_group(conn: Connection) -> None:
    """Add ``brainview_decision.group_id`` (and its index) where an older brainview
    created the table without it (inside the caller's transaction; portable DDL)."""
    from sqlalchemy import inspect

    columns = {c["name"] for c in inspect(conn).get_columns("brainview_decision")}
    if "group_id" not in columns:
        conn.exec_driver_sql("ALTER TABLE brainview_decision ADD COLUMN group_id TEXT")
    conn.exec_driver_sql(
        "CREATE INDEX IF NOT EXISTS ix_bv_decision_group ON brainview_decision(group_id)"
    )


def ensure_apply_schema(conn: Connection) -> None:
    """Create the apply-intent and plan-item tables if missing (agent brains queued
    before schema 2 lack them; inside the caller's transaction)."""
    for ddl in APPLY_DDL:
        conn.exec_driver_sql(ddl)
    ensure_intent_owner(conn)


def intent_has_owner(conn: Connection) -> bool:
    """Whether ``brainview_apply_intent`` has its ``owner`` column (schema 5)."""
    rows = conn.exec_driver_sql(
        "SELECT name FROM pragma_table_info('brainview_apply_intent') WHERE name = 'owner'"
    ).fetchall()
    return bool(rows)


def ensure_intent_owner(conn: Connection) -> None:
    """Add ``brainview_apply_intent.owner`` where an older brainview created the table
    without it (inside the caller's transaction)."""
    if not intent_has_owner(conn):
        conn.exec_driver_sql("ALTER TABLE brainview_apply_intent ADD COLUMN owner TEXT")


def has_schema(tables: frozenset[str] | set[str]) -> bool:
    """Whether the agent brain already carries brainview's queue."""
    return "brainview_proposal" in tables
