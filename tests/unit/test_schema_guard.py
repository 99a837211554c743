"""Brains holding objects Spikuit never creates (triggers, views, generated columns,
virtual tables where brainview writes) are read but never written: the write is refused
with one line naming what was found and how to inspect it (exit 13), before a single
row of either brain changes — an accept's decision is not recorded either."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from test_cli import agent_db, cli, dump, fresh, ok_json, user_db

from brainview.errors import ExitCode
from brainview.store.schema_guard import SPIKUIT_WRITTEN, findings

USER_TABLES = (
    "neuron", "synapse", "changeset", "event", "neuron_predecessor", "neuron_source",
    "spike", "fsrs_state",
)  # fmt: skip
AGENT_TABLES = (
    "brainview_proposal", "brainview_decision", "brainview_effect", "brainview_grade",
    "brainview_consult", "brainview_apply_intent", "brainview_meta", "neuron", "synapse",
    "spike", "fsrs_state",
)  # fmt: skip


def execute(db: Path, script: str) -> None:
    conn = sqlite3.connect(db)
    try:
        conn.executescript(script)
    finally:
        conn.close()


def state(root: Path) -> tuple[Any, ...]:
    """Every row of both brains, their schemas and journal modes."""
    out: list[Any] = []
    for db in (user_db(root), agent_db(root)):
        conn = sqlite3.connect(db)
        try:
            out.append(conn.execute("PRAGMA journal_mode").fetchone()[0])
            out.append(sorted(conn.execute("SELECT type, name, sql FROM sqlite_master")))
        finally:
            conn.close()
        out.append(dump(db, skip=set()))
    return tuple(out)


def add_synapse_proposal(root: Path, info: Any) -> str:
    conn = sqlite3.connect(agent_db(root))
    try:
        rows = conn.execute(
            "SELECT id FROM brainview_proposal WHERE status = 'pending' "
            "AND kind = 'add_synapse' ORDER BY id"
        ).fetchall()
    finally:
        conn.close()
    return next(pid for (pid,) in rows if pid in fresh(info))


def trigger_on(table: str) -> str:
    return (
        f"CREATE TRIGGER evil_{table} AFTER INSERT ON {table} BEGIN "
        "UPDATE neuron SET content = 'PWNED'; END;"
    )


def refused(out: Any, *names: str) -> None:
    assert out.returncode == ExitCode.UNSAFE_SCHEMA == 13, out.stderr
    line = out.stderr.strip()
    assert len(line.splitlines()) == 1 and "Traceback" not in line
    assert "sqlite3 " in line and ".schema" in line and "nothing was written" in line
    for name in names:
        assert name in line


def reads_still_work(root: Path) -> None:
    assert ok_json("stats", "-C", str(root))["user"]["neurons"] > 0
    assert ok_json("proposals", "list", "-C", str(root))["count"] > 0


@pytest.mark.parametrize("table", USER_TABLES)
def test_a_user_brain_trigger_refuses_the_accept(demo, table: str) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    pid = add_synapse_proposal(root, info)
    execute(user_db(root), trigger_on(table))
    before = state(root)
    out = cli("proposals", "accept", pid, "-C", str(root))
    refused(out, f"evil_{table}", "user brain")
    assert state(root) == before
    reads_still_work(root)


@pytest.mark.parametrize("table", AGENT_TABLES)
def test_an_agent_brain_trigger_refuses_every_write(demo, table: str) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    pid = add_synapse_proposal(root, info)
    execute(agent_db(root), trigger_on(table))
    before = state(root)
    for argv in (("proposals", "accept", pid), ("proposals", "reject", pid)):
        refused(cli(*argv, "-C", str(root)), f"evil_{table}", "agent brain")
    assert state(root) == before
    reads_still_work(root)


def test_undo_with_a_trigger_added_after_the_accept_is_refused(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    pid = add_synapse_proposal(root, info)
    assert cli("proposals", "accept", pid, "-C", str(root)).returncode == 0
    execute(user_db(root), trigger_on("synapse").replace("INSERT", "UPDATE"))
    before = state(root)
    refused(cli("proposals", "undo", pid, "-C", str(root)), "evil_synapse")
    assert state(root) == before


@pytest.mark.parametrize(
    ("which", "table"), [("user", "neuron_source"), ("agent", "brainview_consult")]
)
def test_a_view_shadowing_a_table_is_refused(demo, which: str, table: str) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    pid = add_synapse_proposal(root, info)
    execute(
        user_db(root) if which == "user" else agent_db(root),
        f"ALTER TABLE {table} RENAME TO real_rows; CREATE VIEW {table} AS SELECT * FROM real_rows;",
    )
    before = state(root)
    refused(cli("proposals", "accept", pid, "-C", str(root)), f"view '{table}'")
    assert state(root) == before
    reads_still_work(root)


def test_a_generated_column_calling_a_function_is_refused(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    pid = add_synapse_proposal(root, info)
    execute(agent_db(root), "ALTER TABLE brainview_decision ADD COLUMN g TEXT AS (upper(id))")
    before = state(root)
    refused(cli("proposals", "accept", pid, "-C", str(root)), "generated column")
    assert state(root) == before
    reads_still_work(root)


def test_a_virtual_table_where_brainview_writes_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    execute(db, "CREATE VIRTUAL TABLE neuron_source USING fts5(neuron_id, source_id)")
    conn = sqlite3.connect(db)
    try:
        assert [(f.what, f.name) for f in findings(conn)] == [("a virtual table", "neuron_source")]
    finally:
        conn.close()


def test_what_spikuit_and_brainview_create_is_not_a_finding(demo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    for db in (user_db(root), agent_db(root)):
        conn = sqlite3.connect(db)
        try:
            assert findings(conn) == []
            assert {"neuron", "synapse", "changeset", "event"} <= set(SPIKUIT_WRITTEN)
        finally:
            conn.close()
    # a string default that merely looks like a generated column is confirmed by table_xinfo
    db = tmp_path / "y.db"
    execute(db, "CREATE TABLE brainview_x (a TEXT DEFAULT 'as (not generated)')")
    conn = sqlite3.connect(db)
    try:
        assert findings(conn) == []
    finally:
        conn.close()


def test_every_connection_distrusts_the_schema(demo) -> None:  # type: ignore[no-untyped-def]
    from brainview.store.connect import connect

    root, _ = demo
    for write in (False, True):
        conn = connect(user_db(root), write=write, timeout=1.0)
        try:
            assert conn.execute("PRAGMA trusted_schema").fetchone()[0] == 0
        finally:
            conn.close()
