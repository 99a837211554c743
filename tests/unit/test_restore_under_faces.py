"""A brain restored from a backup under a long-running face (``brainview mcp``, the
console's session — ``serve`` runs one console per tab) with a plain ``sqlite3`` reader
in another process in between: the restored brain stays intact (``integrity_check``),
holds what the backup held, and the face goes on working on it.

Before the faces held no idle connection, the reader opened the restored file through
the old file's WAL (kept alive by the face) and, closing last, checkpointed those frames
into the restored file: ``integrity_check`` then failed for good."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession
from test_cli import agent_db, user_db
from test_mcp import data, session_run

from brainview.config import Config
from brainview.demo.generator import DEMO_NOW
from brainview.services.recall import RecallQuery, recall
from brainview.services.session import Session
from brainview.store import recall_handle
from brainview.store.discovery import discover

READER = (
    "import sqlite3, sys\n"
    "c = sqlite3.connect(sys.argv[1])\n"
    "print(c.execute('SELECT count(*) FROM neuron').fetchone()[0])\n"
    "c.close()\n"
)


def backup(db: Path, to: Path) -> None:
    """A backup as a person makes one: SQLite's online backup, into a file beside."""
    src, dst = sqlite3.connect(db), sqlite3.connect(to)
    try:
        src.backup(dst)
    finally:
        src.close()
        dst.close()


def restore(db: Path, saved: Path) -> None:
    """Put the backup back as a new file (new inode) renamed over the brain."""
    tmp = db.with_name("restoring.tmp")
    backup(saved, tmp)
    os.replace(tmp, db)


def reader(db: Path) -> int:
    """A plain reader in another process, right after the restore."""
    out = subprocess.run(
        [sys.executable, "-c", READER, str(db)], capture_output=True, text=True, check=True
    )
    return int(out.stdout)


def intact(db: Path) -> tuple[str, int, int]:
    conn = sqlite3.connect(db)
    try:
        ok = conn.execute("PRAGMA integrity_check").fetchone()[0]
        n = conn.execute("SELECT count(*) FROM neuron").fetchone()[0]
        marker = conn.execute("SELECT count(*) FROM neuron WHERE id = 'n-after-backup'").fetchone()
        return ok, n, marker[0]
    finally:
        conn.close()


def add_marker(db: Path) -> None:
    """Neurons written after the backup by another connection (the file grows by a few
    hundred pages): gone once the backup is restored."""
    conn = sqlite3.connect(db)
    try:
        conn.execute(
            "INSERT INTO neuron (id, content, type, created_at, updated_at) "
            "VALUES ('n-after-backup', 'x', 'reflection', '2026-11-30', '2026-11-30')"
        )
        conn.executemany(
            "INSERT INTO neuron (id, content, type, created_at, updated_at) "
            "VALUES (?, ?, 'reflection', '2026-11-30', '2026-11-30')",
            [(f"n-bulk-{i}", f"lesson {i} " * 200) for i in range(300)],
        )
        conn.commit()
    finally:
        conn.close()


def test_an_agent_brain_restored_under_mcp(demo) -> None:  # type: ignore[no-untyped-def]
    root, _info = demo
    db = agent_db(root)
    saved = root / "agent-backup.db"
    backup(db, saved)
    neurons = intact(saved)[1]

    async def body(s: ClientSession) -> None:
        first = data(await s.call_tool("recall", {"text": "merge duplicates", "skill": "curator"}))
        assert first["recall_id"].startswith("rc-")  # logged: the server wrote the brain
        add_marker(db)  # another process writes while the server runs
        data(await s.call_tool("recall", {"text": "lesson", "skill": "curator"}))
        restore(db, saved)
        assert reader(db) == neurons
        again = data(await s.call_tool("recall", {"text": "merge duplicates"}))
        assert again["hits"] and all(h["reflection"] != "n-after-backup" for h in again["hits"])

    session_run(root, body)
    assert intact(db) == ("ok", neurons, 0)


@pytest.mark.parametrize("which", ["agent", "user"])
def test_a_brain_restored_under_the_console_session(demo, which: str) -> None:  # type: ignore[no-untyped-def]
    """The console's one door, used as the console uses it: decisions, queue pages and
    recalls before the restore, the same session after it."""
    root, _info = demo
    db = agent_db(root) if which == "agent" else user_db(root)
    saved = root / "backup.db"
    session = Session(paths=discover(root), config=Config(), clock=lambda: DEMO_NOW)
    try:
        rows, _total = session.queue_page()
        session.decide([rows[0].id], "reject", reason="not now")
        session.detail(rows[1].id)
        with session.project() as project:
            recall(project, RecallQuery(text="merge duplicates"), now=DEMO_NOW)
        backup(db, saved)
        neurons = intact(saved)[1]
        add_marker(db)
        session.queue_page()
        restore(db, saved)
        assert reader(db) == neurons
        after, _ = session.queue_page()
        session.decide([after[0].id], "reject", reason="after the restore")
        with session.project() as project:
            recall(project, RecallQuery(text="merge duplicates"), now=DEMO_NOW)
    finally:
        session.close()
        recall_handle.close_all()
    ok, _n, marker = intact(db)
    assert (ok, marker) == ("ok", 0)
    assert intact(user_db(root))[0] == "ok" and intact(agent_db(root))[0] == "ok"


def test_no_connection_outlives_a_unit_of_work(demo) -> None:  # type: ignore[no-untyped-def]
    """Between calls the session and the recall handles hold no connection to either
    brain: after a decision and a recall the WAL is folded in and gone."""
    root, _info = demo
    session = Session(paths=discover(root), config=Config(), clock=lambda: DEMO_NOW)
    try:
        rows, _ = session.queue_page()
        session.decide([rows[0].id], "reject")
        with session.project() as project:
            recall(project, RecallQuery(text="merge duplicates"), now=DEMO_NOW)
        left: list[Any] = [
            p.name
            for db in (agent_db(root), user_db(root))
            for p in db.parent.iterdir()
            if p.name.endswith(("-wal", "-shm"))
        ]
        assert left == []
    finally:
        session.close()
        recall_handle.close_all()
