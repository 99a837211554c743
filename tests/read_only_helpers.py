"""Helpers for the read-only tests: what "unchanged" means for a project's brains, and
how to run brainview as a child process (a pty for the console; a child bound by
permission bits even when the tests run as root).

Rows are read through sqlite3 with a connection closed before returning; WAL files are
only ever looked at by name (``os.walk``), never opened.
"""

from __future__ import annotations

import ctypes
import fcntl
import functools
import hashlib
import os
import pty
import select
import sqlite3
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Callable
from pathlib import Path

from brainview.demo.generator import DEMO_NOW

ENV = {"BRAINVIEW_NOW": DEMO_NOW.isoformat(), "XDG_CONFIG_HOME": "/nonexistent-bv-config"}
NOBODY = 65534
PR_CAPBSET_DROP = 24


def brain_files(root: Path) -> list[Path]:
    """Every SQLite brain of the project (user, tutor overlay, agent)."""
    return sorted(p for p in (root / ".spikuit").rglob("*.db") if p.is_file())


def table_digests(db: Path) -> dict[str, str]:
    """A content hash of every row of every table (and of the schema), by table."""
    conn = sqlite3.connect(db)
    try:
        schema = conn.execute(
            "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name"
        ).fetchall()
        out = {"<schema>": hashlib.sha256(repr(schema).encode()).hexdigest()}
        out["<user_version>"] = repr(conn.execute("PRAGMA user_version").fetchone())
        for kind, name, _tbl, sql in schema:
            if kind != "table" or (sql or "").upper().startswith("CREATE VIRTUAL"):
                continue
            quoted = '"' + name.replace('"', '""') + '"'
            try:
                rows = conn.execute(f"SELECT * FROM {quoted} ORDER BY rowid").fetchall()
            except sqlite3.OperationalError:  # WITHOUT ROWID
                rows = sorted(conn.execute(f"SELECT * FROM {quoted}").fetchall(), key=repr)
            out[name] = hashlib.sha256(repr(rows).encode()).hexdigest()
        return out
    finally:
        conn.close()


def snapshot(root: Path) -> dict[str, dict[str, str]]:
    """Table digests of every brain of the project."""
    return {str(db.relative_to(root)): table_digests(db) for db in brain_files(root)}


def listing(root: Path) -> set[str]:
    """Every file under ``.spikuit/`` (names only: nothing is opened)."""
    base = root / ".spikuit"
    out = set()
    for folder, _dirs, files in os.walk(base):
        out |= {os.path.relpath(os.path.join(folder, f), root) for f in files}
    return out


def changed_tables(before: dict, after: dict) -> dict[str, list[str]]:  # type: ignore[type-arg]
    """Per brain, the tables whose rows differ (added, removed or changed)."""
    out = {}
    for db in sorted(set(before) | set(after)):
        b, a = before.get(db, {}), after.get(db, {})
        diff = sorted(t for t in set(b) | set(a) if b.get(t) != a.get(t))
        if diff:
            out[db] = diff
    return out


def run_cli(argv: list[str], root: Path, **kw: object) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "brainview", *argv, "-C", str(root)]
    env = {**os.environ, **ENV, **kw.pop("env", {})}  # type: ignore[dict-item]
    return subprocess.run(
        cmd, capture_output=True, text=True, env=env, timeout=120, check=False, **kw
    )  # type: ignore[call-overload]


def assert_read_only(root: Path, action: Callable[[], None]) -> None:
    """Run ``action``; no row of either brain and no file under .spikuit/ may change."""
    before = snapshot(root)
    files_before = listing(root)  # after our own connection closed
    action()
    files_after = listing(root)  # before we open anything again
    after = snapshot(root)
    new = sorted(files_after - files_before)
    assert not changed_tables(before, after), f"rows changed: {changed_tables(before, after)}"
    assert not new, f"files left behind: {new}"
    assert files_after == files_before


def console_session(root: Path, **kw: object) -> tuple[int, bytes]:
    """``brainview open`` on a pseudo-terminal: wait until the communities screen shows
    its partition, then ctrl+q. Returns the exit code and everything it drew."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    env = {**os.environ, **ENV, "TERM": "xterm-256color", **kw.pop("env", {})}  # type: ignore[dict-item]
    cmd = [sys.executable, "-m", "brainview", "open", str(root), "--screen", "communities"]
    proc = subprocess.Popen(
        cmd, stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True, **kw
    )  # type: ignore[call-overload]
    os.close(slave)
    seen, deadline = b"", time.monotonic() + 90
    try:
        while b"modularity" not in seen and time.monotonic() < deadline:
            if select.select([master], [], [], 0.5)[0]:
                seen += os.read(master, 65536)
        os.write(master, b"\x11")  # ctrl+q
        while proc.poll() is None and time.monotonic() < deadline + 30:
            if select.select([master], [], [], 0.2)[0]:
                seen += os.read(master, 65536)
        return proc.wait(timeout=5), seen
    except OSError:  # the child closed the terminal: it has exited
        return proc.wait(timeout=30), seen
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)


def _as_nobody() -> None:
    os.setgroups([])
    os.setgid(NOBODY)
    os.setuid(NOBODY)


def _root_without_dac() -> None:
    """Root that obeys permission bits: drop CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH and
    CAP_FOWNER from the bounding set, so the exec'd child never has them."""
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in (1, 2, 3):
        if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


@functools.cache
def _demote() -> Callable[[], None] | None:
    """How to run a child that permission bits bind (``None``: we are not root).

    As root: the unprivileged uid when it can run this interpreter and import
    brainview; where it cannot (an interpreter under a private ``/root``), root
    without the capabilities that bypass permission bits."""
    if os.geteuid() != 0:
        return None
    probe = [sys.executable, "-c", "import brainview.cli"]
    env = {**os.environ, "HOME": "/nonexistent-bv-home"}
    try:
        ok = subprocess.run(
            probe, preexec_fn=_as_nobody, cwd="/", env=env, capture_output=True, check=False
        )
    except OSError:  # the interpreter itself is out of its reach
        return _root_without_dac
    return _as_nobody if ok.returncode == 0 else _root_without_dac


def unprivileged() -> dict[str, object]:
    demote = _demote()
    return {} if demote is None else {"preexec_fn": demote, "cwd": "/"}
