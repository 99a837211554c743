"""Faults beyond SIGKILL: disk full mid-decision, a brain replaced or deleted under a
running console.  Each ends in a clear message, nothing half-written, the console
still running, and what it shows agreeing with what another process sees."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from brainview.demo.generator import DEMO_NOW
from brainview.errors import ExitCode
from brainview.store import connect as connect_mod
from brainview.store.discovery import discover
from tests.tui_helpers import settle
from tests.unit.test_cli import cli


def spy(app):  # type: ignore[no-untyped-def]
    """Keep every notification the app shows (they expire from the screen)."""
    log: list[str] = []
    real = app.notify

    def notify(message, *args, **kwargs):  # type: ignore[no-untyped-def]
        log.append(str(message))
        return real(message, *args, **kwargs)

    app.notify = notify
    app.said_log = log
    return app


async def said(pilot, needle: str, timeout: float = 15.0) -> str:  # type: ignore[no-untyped-def]
    """Wait until a notification containing ``needle`` (any of ``a|b``) was shown."""
    import time

    end = time.monotonic() + timeout
    while True:
        shown = getattr(pilot.app, "said_log", None) or [
            n.message for n in pilot.app._notifications
        ]
        text = " | ".join(shown)
        if any(n in text for n in needle.split("|")) or time.monotonic() > end:
            return text
        await pilot.pause(0.1)


def rows_digest(db: Path) -> str:
    """A hash of every row of every table (read through SQLite, closed after)."""
    conn = sqlite3.connect(db)
    try:
        h = hashlib.sha256()
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        for t in sorted(tables):
            for row in sorted(map(repr, conn.execute(f'SELECT * FROM "{t}"'))):
                h.update(f"{t}:{row}".encode())
        return h.hexdigest()
    finally:
        conn.close()


def brains(root: Path) -> tuple[Path, Path]:
    return root / ".spikuit" / "circuit.db", root / ".spikuit" / "agent" / "circuit.db"


@pytest.fixture
def disk_full(demo, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bool]]:  # type: ignore[no-untyped-def]
    """Writers hit SQLITE_FULL: the file may not grow by a page (``max_page_count``),
    and there are no free pages to reuse (vacuumed first)."""
    for db in brains(demo[0]):
        conn = sqlite3.connect(db, isolation_level=None)
        conn.execute("VACUUM")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.close()
    real = connect_mod.connect
    on = [True]

    def full(path: Path, *, write: bool, timeout: float) -> sqlite3.Connection:
        conn = real(path, write=write, timeout=timeout)
        if write and on[0]:
            pages = conn.execute("PRAGMA page_count").fetchone()[0]
            conn.execute("PRAGMA freelist_count")
            conn.execute(f"PRAGMA max_page_count = {pages}")
        return conn

    monkeypatch.setattr(connect_mod, "connect", full)
    monkeypatch.setattr("brainview.store.brain.connect", full)
    yield on


def _pending(root: Path) -> str:
    conn = sqlite3.connect(brains(root)[1])
    try:
        return conn.execute(
            "SELECT id FROM brainview_proposal WHERE status='pending' AND stale_reason IS NULL "
            "AND suspicion IS NULL ORDER BY created_at LIMIT 1"
        ).fetchone()[0]
    finally:
        conn.close()


def test_disk_full_mid_decision_writes_nothing(demo, disk_full) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    before = [rows_digest(db) for db in brains(root)]
    pid = _pending(root)
    out = cli("proposals", "reject", pid, "--reason", "not this", "-C", str(root))
    assert out.returncode == ExitCode.DISK_FULL, out.stderr
    assert "disk full" in out.stderr and len(out.stderr.strip().splitlines()) == 1
    assert [rows_digest(db) for db in brains(root)] == before
    disk_full[0] = False  # space again: the same decision goes through
    out = cli("proposals", "reject", pid, "--reason", "not this", "-C", str(root))
    assert out.returncode == 0, out.stderr


async def test_console_survives_disk_full(demo, disk_full) -> None:  # type: ignore[no-untyped-def]
    from brainview.tui.app import make_app
    from brainview.tui.clock import frozen

    root, _ = demo
    before = [rows_digest(db) for db in brains(root)]
    app = spy(make_app(discover(root), clock=frozen(DEMO_NOW), start="triage", decider="tester"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        pid = _pending(root)
        screen.query_one("#queue").move_cursor(row=[r.id for r in screen.rows].index(pid))
        await settle(pilot)
        await pilot.press("r")  # a rejection writes a new lesson: it needs new pages
        await settle(pilot)
        await pilot.press(*"not this", "enter")
        await settle(pilot, rounds=6)
        text = await said(pilot, "disk full")
        assert "disk full" in text, text
        assert pid in {r.id for r in app.screen.rows}  # still shown pending, as it is
        assert [rows_digest(db) for db in brains(root)] == before
        disk_full[0] = False
        app.session.close()  # a fresh connection without the simulated limit
        # the refused proposal is back under the cursor: the next key acts on it
        assert app.screen.current_id == pid
        await pilot.press("r")
        await settle(pilot)
        await pilot.press(*"not this", "enter")
        await settle(pilot, rounds=6)
        conn = sqlite3.connect(brains(root)[1])
        (status,) = conn.execute(
            "SELECT status FROM brainview_proposal WHERE id=?", (pid,)
        ).fetchone()
        conn.close()
        notes = [n.message for n in app._notifications]
        assert status == "rejected", (notes, app.screen.current_id, pid, type(app.screen))
        assert app.is_running


def _backup(src: Path, dst: Path) -> None:
    """A copy made the way SQLite allows (the online backup API), not with ``open()``."""
    a, b = sqlite3.connect(src), sqlite3.connect(dst)
    try:
        a.backup(b)
    finally:
        a.close()
        b.close()


async def test_console_notices_brains_restored_from_backup(demo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Both brains restored from a backup under a running console (new inodes, the old
    WALs still beside them): the console says so, shows the restored state as another
    process sees it, and a decision then lands in the restored files."""
    from brainview.tui.app import make_app
    from brainview.tui.clock import frozen

    root, _ = demo
    user_db, agent_db = brains(root)
    backups = [tmp_path / "user-backup.db", tmp_path / "agent-backup.db"]
    for db, backup in zip(brains(root), backups, strict=True):
        _backup(db, backup)
    app = spy(make_app(discover(root), clock=frozen(DEMO_NOW), start="triage", decider="tester"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        pid = _pending(root)
        await _select(pilot, pid)
        await pilot.press("a")
        await settle(pilot, rounds=6)
        await said(pilot, f"accepted {pid}")
        assert pid not in {r.id for r in app.screen.rows}
        for db, backup in zip(brains(root), backups, strict=True):
            os.replace(backup, db)  # "restore from backup" under the running console
        text = await said(pilot, "agent brain was replaced")
        text = await said(pilot, "user brain was replaced")
        assert "agent brain was replaced" in text and "user brain was replaced" in text, text
        other = sqlite3.connect(agent_db)
        seen = other.execute("SELECT status FROM brainview_proposal WHERE id=?", (pid,)).fetchone()
        other.close()
        assert seen == ("pending",), "the restored file is read through the old WAL"
        await pilot.pause(1.5)
        await settle(pilot)
        assert pid in {r.id for r in app.screen.rows}, "the console still shows the old file"
        await _select(pilot, pid)
        await pilot.press("a")
        await settle(pilot, rounds=6)
        text = await said(pilot, f"accepted {pid}")
        assert f"accepted {pid}" in text, text
        for db in brains(root):
            conn = sqlite3.connect(db)
            assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
            conn.close()
        conn = sqlite3.connect(agent_db)
        (status,) = conn.execute(
            "SELECT status FROM brainview_proposal WHERE id=?", (pid,)
        ).fetchone()
        conn.close()
        assert status == "accepted"
        assert app.is_running


async def _select(pilot, pid: str) -> None:  # type: ignore[no-untyped-def]
    screen = pilot.app.screen
    screen.query_one("#queue").move_cursor(row=[r.id for r in screen.rows].index(pid))
    await settle(pilot)


async def test_console_survives_the_agent_brain_deleted(demo) -> None:  # type: ignore[no-untyped-def]
    from brainview.tui.app import make_app
    from brainview.tui.clock import frozen

    root, _ = demo
    agent_db = brains(root)[1]
    app = spy(make_app(discover(root), clock=frozen(DEMO_NOW), start="triage", decider="tester"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for side in ("", "-wal", "-shm"):
            Path(f"{agent_db}{side}").unlink(missing_ok=True)
        await pilot.press("a")
        await settle(pilot, rounds=6)
        text = await said(pilot, "agent brain was deleted|no agent brain")
        assert "agent brain was deleted" in text or "no agent brain" in text, text
        assert app.is_running
        assert not agent_db.exists(), "the console re-created a deleted agent brain"


def test_clock_moving_backwards_never_stamps_a_decision_in_the_past(demo) -> None:  # type: ignore[no-untyped-def]
    from datetime import timedelta

    from brainview.services import review
    from brainview.services.project import Project

    root, _ = demo
    conn = sqlite3.connect(brains(root)[1])
    first, second, shared = conn.execute(
        "SELECT c1.proposal_id, c2.proposal_id, c1.reflection_id FROM brainview_consult c1 "
        "JOIN brainview_consult c2 ON c1.reflection_id = c2.reflection_id "
        "AND c1.proposal_id < c2.proposal_id "
        "JOIN brainview_proposal p1 ON p1.id = c1.proposal_id "
        "JOIN brainview_proposal p2 ON p2.id = c2.proposal_id "
        "WHERE p1.status = 'pending' AND p2.status = 'pending' AND p1.stale_reason IS NULL "
        "AND p2.stale_reason IS NULL AND c1.role = 'consulted' AND c2.role = 'consulted' LIMIT 1"
    ).fetchone()
    conn.close()
    with Project.open(discover(root), write_agent=True) as p:
        a = review.decide(p, first, "reject", reason="no", decider="t", now=DEMO_NOW)
        b = review.decide(
            p, second, "reject", reason="no", decider="t", now=DEMO_NOW - timedelta(days=3)
        )
    assert b.decided_at >= a.decided_at  # stamped at the last recorded moment, not before
    conn = sqlite3.connect(brains(root)[1])
    fired = [
        r[0]
        for r in conn.execute("SELECT fired_at FROM spike WHERE neuron_id=? ORDER BY id", (shared,))
    ]
    last_review = conn.execute(
        "SELECT json_extract(card_json, '$.last_review') FROM fsrs_state WHERE neuron_id=?",
        (shared,),
    ).fetchone()[0]
    conn.close()
    assert fired == sorted(fired), "spikes out of time order"
    assert last_review >= a.decided_at
    out = cli("proposals", "undo", "--last", "-C", str(root), "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["proposal_id"] == second  # the later decision, not the first


async def test_a_refused_bulk_comes_back_marked(demo, disk_full) -> None:  # type: ignore[no-untyped-def]
    from brainview.tui.app import make_app
    from brainview.tui.clock import frozen

    root, _ = demo
    app = spy(make_app(discover(root), clock=frozen(DEMO_NOW), start="triage", decider="tester"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        fresh = [r.id for r in screen.rows if r.stale is None and r.suspicion is None][:2]
        for pid in fresh:
            await _select(pilot, pid)
            await pilot.press("space")
        await settle(pilot)
        assert screen.marked == set(fresh)
        await pilot.press("r")
        await settle(pilot)
        await pilot.press(*"no", "enter")
        text = await said(pilot, "disk full")
        assert "disk full" in text, text
        await settle(pilot, rounds=6)
        assert app.screen.marked == set(fresh), "a refused bulk must come back as it was"
        assert app.screen.current_id == fresh[0]
