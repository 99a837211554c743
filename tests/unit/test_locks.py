"""Only SQLite opens a brain file: every path that opens a project keeps this process's locks.

POSIX advisory locks belong to the process, so one ``open()`` + ``close()`` of a brain
file anywhere in brainview drops the locks that every other connection of the process
holds on it; the next process to close its connection then checkpoints and deletes
the WAL we still write to.  Each case below holds a WAL connection in this process,
runs one code path, then checks (1) ``/proc/locks`` still lists the held connection's
shared lock on the brain file, and (2) behaviourally: another process opens and
closes the brain, the held connection commits, and a third process sees the row.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from brainview.demo.generator import DEMO_NOW
from brainview.store.discovery import discover
from tests.tui_helpers import settle
from tests.unit.test_cli import cli

pytestmark = pytest.mark.skipif(not Path("/proc/locks").exists(), reason="needs /proc/locks")


def _locks_on(path: Path) -> list[tuple[str, int, int]]:
    """This process's POSIX locks on ``path``'s inode: (type, start, end)."""
    inode = os.stat(path).st_ino
    dev = os.stat(path).st_dev
    out = []
    with open("/proc/locks") as fh:  # /proc/locks is not a brain file
        for line in fh:
            f = line.split()
            if len(f) > 1 and f[1] == "->":
                f = f[1:]
            if len(f) < 8 or f[1] != "POSIX" or int(f[4]) != os.getpid():
                continue
            major, minor, ino = f[5].split(":")
            if int(ino) == inode and os.makedev(int(major, 16), int(minor, 16)) == dev:
                out.append((f[3], int(f[6]), int(f[7]) if f[7] != "EOF" else -1))
    return out


def _other_process(db: Path, sql: str) -> str:
    code = (
        "import sqlite3, sys\n"
        f"c = sqlite3.connect({str(db)!r}, timeout=10)\n"
        f"r = c.execute({sql!r}).fetchall()\n"
        "c.commit(); c.close(); print(r)\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    ).stdout.strip()


class Held:
    """A WAL connection held for a whole test, like a second console in this process."""

    def __init__(self, db: Path) -> None:
        self.db = db
        self.conn = sqlite3.connect(db, timeout=10, isolation_level=None)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("CREATE TABLE IF NOT EXISTS lock_probe (n INTEGER)")
        self.n = 0

    def assert_still_locked_and_visible(self, after: str) -> None:
        shared = [lk for lk in _locks_on(self.db) if lk[0] == "READ"]
        assert shared, f"{after}: this process lost its shared lock on {self.db.name}"
        _other_process(self.db, "SELECT 1")  # a second process opens and closes
        self.n += 1
        self.conn.execute("INSERT INTO lock_probe VALUES (?)", (self.n,))
        seen = _other_process(self.db, "SELECT max(n) FROM lock_probe")
        assert seen == f"[({self.n},)]", f"{after}: another process missed a commit ({seen})"
        wal = self.db.with_name(self.db.name + "-wal")
        assert wal.exists(), f"{after}: the WAL was deleted under a live connection"


@pytest.fixture
def held(demo):  # type: ignore[no-untyped-def]
    root = demo[0]
    pair = (
        Held(root / ".spikuit" / "circuit.db"),
        Held(root / ".spikuit" / "agent" / "circuit.db"),
    )
    yield root, pair
    for h in pair:
        h.conn.close()


def _check(pair: tuple[Held, Held], after: str) -> None:
    for h in pair:
        h.assert_still_locked_and_visible(after)


def test_the_pattern_itself_is_detected(held) -> None:  # type: ignore[no-untyped-def]
    """The check fails when something does what ``check_sqlite_file`` used to do."""
    _root, (user, _agent) = held
    with open(user.db, "rb") as fh:  # the bug, on purpose
        fh.read(100)
    with pytest.raises(AssertionError, match="lost its shared lock"):
        user.assert_still_locked_and_visible("open()+close()")


def _open_paths(root: Path) -> list[tuple[str, Callable[[], object]]]:
    from brainview.services.project import Project
    from brainview.store import light
    from brainview.store.brain import open_brain

    paths = discover(root)

    def project(**kw: bool) -> None:
        with Project.open(paths, **kw) as p, p.user.read() as c:
            c.exec_driver_sql("SELECT count(*) FROM neuron").fetchall()

    def brain(write: bool) -> None:
        b = open_brain(paths.agent_db, "agent", write=write)  # type: ignore[arg-type]
        b.dispose()

    return [
        ("light.validate", lambda: light.validate(paths)),
        ("light.pending_count", lambda: light.pending_count(paths)),
        ("open_brain read", lambda: brain(False)),
        ("open_brain write", lambda: brain(True)),
        ("Project.open read", lambda: project()),
        ("Project.open write", lambda: project(write_agent=True, write_user=True)),
    ]


def test_every_opener_keeps_the_locks(held) -> None:  # type: ignore[no-untyped-def]
    root, pair = held
    for name, call in _open_paths(root):
        call()
        _check(pair, name)


CLI_PATHS = [
    ("stats", "--json"),
    ("proposals", "list", "--json"),
    ("reflect", "list"),
    ("reflect", "fading"),
    ("communities", "list"),
    ("export", "decisions", "--format", "json"),
    ("reflect", "consolidate", "--dry-run"),
]


def test_every_cli_path_keeps_the_locks(held) -> None:  # type: ignore[no-untyped-def]
    root, pair = held
    for args in CLI_PATHS:
        out = cli(*args, "-C", str(root))
        assert out.returncode == 0, out.stderr
        _check(pair, " ".join(args))
    listed = cli("proposals", "list", "-C", str(root), "--json")
    pid = next(p["id"] for p in json.loads(listed.stdout)["proposals"] if not p["stale"])
    for args in (
        ("proposals", "accept", pid, "--reason", "ok"),
        ("proposals", "undo", pid),
        ("proposals", "reject", pid, "--reason", "no"),
    ):
        out = cli(*args, "-C", str(root))
        assert out.returncode == 0, out.stderr
        _check(pair, " ".join(args))


def test_every_mcp_tool_keeps_the_locks(held) -> None:  # type: ignore[no-untyped-def]
    """The MCP server's tools, called in this process as its worker threads call them."""
    from brainview.mcp import tools_queue, tools_reflections
    from brainview.mcp.registry import Session
    from brainview.services import shipped

    root, pair = held
    user = pair[0].conn.execute("SELECT id FROM neuron WHERE retired_at IS NULL").fetchone()[0]
    rid = (
        pair[1]
        .conn.execute("SELECT id FROM neuron WHERE type = 'reflection' AND retired_at IS NULL")
        .fetchone()[0]
    )
    call = Session(discover(root), "lock-test", lambda: DEMO_NOW).call(None)
    note = {"kind": "note", "params": {"neurons": [user]}, "consulted": [rid]}
    for name, run in (
        ("propose dry run", lambda: tools_queue.propose(call, note, dry_run=True)),
        ("propose", lambda: tools_queue.propose(call, note)),
        ("decisions_since", lambda: tools_queue.decisions_since(call, since="30d")),
        ("inspect_reflection", lambda: tools_reflections.inspect_reflection(call, rid)),
        ("curator guide", shipped.curator_guide),
        ("proposal schema", shipped.proposal_schema),
    ):
        run()
        _check(pair, f"mcp {name}")


async def test_the_console_keeps_the_locks(held) -> None:  # type: ignore[no-untyped-def]
    from brainview.tui.app import make_app
    from brainview.tui.clock import frozen

    root, pair = held
    app = make_app(discover(root), clock=frozen(DEMO_NOW), start="triage", decider="tester")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for keys, name in (((), "open"), (("a",), "accept"), (("u",), "undo"), (("r",), "reject")):
            for key in keys:
                await pilot.press(key)
            if keys == ("r",):
                await settle(pilot)
                await pilot.press(*"poisoned", "enter")
            await settle(pilot)
            await pilot.pause(1.2)  # at least one poll of the queue's fingerprint
            _check(pair, f"console {name}")
        for key, name in (("1", "overview"), ("3", "communities")):
            await pilot.press(key)
            await settle(pilot, rounds=8)
            _check(pair, f"console {name}")
