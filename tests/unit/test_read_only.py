"""Read-only means read-only: reading commands, dry runs and a console opened without a
decision change no row of either brain and leave no ``-wal``/``-shm`` behind.

Every CLI command runs as its own process (the honest test for the WAL files: they are
left by connections that are never closed, or by read-only ones). Rows are hashed
table by table through sqlite3 in this process, with a connection closed before the
command runs; the WAL files are only ever looked at with ``os.listdir``.
"""

from __future__ import annotations

import ctypes
import fcntl
import functools
import hashlib
import json
import os
import pty
import select
import shutil
import sqlite3
import stat
import struct
import subprocess
import sys
import tempfile
import termios
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from brainview.demo.generator import DEMO_NOW, DemoInfo, DemoSpec
from brainview.store.discovery import discover
from brainview.tui.app import make_app
from brainview.tui.clock import frozen
from tests.tui_helpers import settle

SPEC = DemoSpec(history=True)
"""What ``brainview demo`` writes: pending proposals, six weeks of decisions, a plan."""
ENV = {"BRAINVIEW_NOW": DEMO_NOW.isoformat(), "XDG_CONFIG_HOME": "/nonexistent-bv-config"}
NOBODY = 65534
PR_CAPBSET_DROP = 24

Argv = Callable[[Path, DemoInfo], list[str]]


def _proposal(tmp: Path, info: DemoInfo) -> Path:
    """A valid curator proposal, for ``propose --dry-run``."""
    path = tmp / "proposal.json"
    one = {
        "kind": "note",
        "skill": "readonly-test",
        "params": {"neurons": [info.user_ids[0]]},
        "rationale": "A dry run: validated, never queued.",
        "consulted": [{"reflection": info.reflection_ids[0], "stance": "support"}],
    }
    path.write_text(json.dumps(one), encoding="utf-8")
    return path


def _spkt_plan(tmp: Path, info: DemoInfo) -> Path:
    """A ``spkt consolidate --json`` plan for the user brain as it is (one advisory item)."""
    from brainview.services.project import Project
    from brainview.services.spkt_plan import current_hash

    with Project.open(discover(info.root)) as project:
        state = current_hash(project)
    plan = {
        "state_hash": state,
        "triage": {"forget_candidates": [{"action": "flag_forget", "id": info.user_ids[0]}]},
    }
    path = tmp / "plan.json"
    path.write_text(json.dumps(plan), encoding="utf-8")
    return path


READING: dict[str, Argv] = {
    "stats --json": lambda t, i: ["stats", "--json"],
    "stats": lambda t, i: ["stats"],
    "proposals list": lambda t, i: ["proposals", "list", "--json"],
    "proposals list --status all": lambda t, i: ["proposals", "list", "--status", "all"],
    "proposals show": lambda t, i: ["proposals", "show", i.proposal_ids[0], "--json"],
    "proposals show (stale)": lambda t, i: ["proposals", "show", i.stale_proposal_ids[0]],
    "reflect list": lambda t, i: ["reflect", "list", "--json"],
    "reflect list --type policy": lambda t, i: ["reflect", "list", "--type", "policy"],
    "reflect inspect": lambda t, i: ["reflect", "inspect", i.reflection_ids[0], "--json"],
    "reflect fading": lambda t, i: ["reflect", "fading", "--json"],
    "reflect consolidate --dry-run --json": lambda t, i: [
        *("reflect", "consolidate", "--dry-run", "--json")
    ],
    "reflect consolidate --dry-run": lambda t, i: ["reflect", "consolidate", "--dry-run"],
    "communities list": lambda t, i: ["communities", "list", "--json"],
    "communities list --sort fading": lambda t, i: ["communities", "list", "--sort", "fading"],
    "communities show": lambda t, i: ["communities", "show", "0", "--json"],
    "export proposals": lambda t, i: ["export", "proposals"],
    "export decisions csv": lambda t, i: ["export", "decisions", "--format", "csv"],
    "export reflections jsonl": lambda t, i: ["export", "reflections", "--format", "jsonl"],
    "export communities": lambda t, i: ["export", "communities"],
    "export --out": lambda t, i: ["export", "proposals", "--out", str(t / "proposals.json")],
    "propose --dry-run": lambda t, i: ["propose", str(_proposal(t, i)), "--dry-run", "--json"],
    "propose --from-spkt-plan --dry-run": lambda t, i: [
        *("propose", str(_spkt_plan(t, i)), "--from-spkt-plan", "--dry-run", "--json")
    ],
    "propose --schema": lambda t, i: ["propose", "--schema"],
}


# -- what "unchanged" means -----------------------------------------------------------


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


# -- the commands ---------------------------------------------------------------------


@pytest.fixture
def history_demo(make_demo) -> tuple[Path, DemoInfo]:  # type: ignore[no-untyped-def]
    return make_demo(SPEC)


@pytest.mark.parametrize("name", list(READING))
def test_reading_command_writes_nothing(name: str, history_demo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root, info = history_demo
    argv = READING[name](tmp_path, info)
    result: list[subprocess.CompletedProcess[str]] = []
    assert_read_only(root, lambda: result.append(run_cli(argv, root)))
    assert result[0].returncode == 0, result[0].stderr


async def test_console_opened_and_quit_writes_nothing(history_demo, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Every screen visited, a reflection opened, a consolidation planned and cancelled;
    the clustering runs in its child process (as it does from 3,000 reflections on)."""
    from brainview.services import clustering_runner
    from brainview.tui.screens.consolidate import ConsolidateScreen

    monkeypatch.setattr(clustering_runner, "SUBPROCESS_MIN", 0)
    root, info = history_demo

    async def session() -> None:
        app = make_app(discover(root), clock=frozen(DEMO_NOW), start="overview", decider="ro")
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            for key in ("2", "3", "f", "f", "1", "2"):
                await pilot.press(key)
                await settle(pilot)
            app.open_reflection(info.reflection_ids[0])
            await settle(pilot)
            await pilot.press("escape")
            await settle(pilot)
            await pilot.press("3")
            await settle(pilot)
            await pilot.press("z")
            await settle(pilot, rounds=8)
            assert isinstance(app.screen, ConsolidateScreen) and app.screen.plan is not None
            await pilot.press("escape")
            await settle(pilot)
            await pilot.press("ctrl+q")

    before = snapshot(root)
    files_before = listing(root)
    await session()
    files_after = listing(root)
    after = snapshot(root)
    assert not changed_tables(before, after), f"rows changed: {changed_tables(before, after)}"
    assert sorted(files_after - files_before) == []


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


def test_console_process_opened_and_quit_writes_nothing(history_demo) -> None:  # type: ignore[no-untyped-def]
    """The real console process (startup checks, workers, clustering), quit with ctrl+q."""
    root, _ = history_demo
    out: list[tuple[int, bytes]] = []
    assert_read_only(root, lambda: out.append(console_session(root)))
    code, seen = out[0]
    assert b"modularity" in seen, seen[-2000:]
    assert code == 0, seen[-2000:]


OTHER_ERA = [
    "stats --json",
    "proposals show",
    "reflect list",
    "reflect inspect",
    "reflect consolidate --dry-run --json",
    "communities list",
]


@pytest.mark.parametrize("name", OTHER_ERA)
def test_spikuit_09_with_a_tutor_overlay_writes_nothing(name: str, make_demo, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Cards in ``circuit.tutor.db`` (Spikuit 0.9): that file is hashed and watched too."""
    from tests.eras import to_09

    root, info = make_demo()
    for db in (root / ".spikuit" / "circuit.db", root / ".spikuit" / "agent" / "circuit.db"):
        to_09(db, overlay=True)
    assert len(brain_files(root)) == 4
    result: list[subprocess.CompletedProcess[str]] = []
    argv = READING[name](tmp_path, info)
    assert_read_only(root, lambda: result.append(run_cli(argv, root)))
    assert result[0].returncode == 0, result[0].stderr


# -- a project in a read-only directory -------------------------------------------------

READ_ONLY_DIR = [
    "stats --json",
    "proposals list",
    "proposals show",
    "reflect inspect",
    "reflect fading",
    "reflect consolidate --dry-run --json",
    "communities list",
    "export reflections jsonl",
]


@pytest.fixture
def read_only_project(history_demo) -> Iterator[tuple[Path, DemoInfo]]:  # type: ignore[no-untyped-def]
    """The demo copied to a dir another uid can reach, then chmod 555 (dirs) / 444 (files)."""
    src, info = history_demo
    base = Path(tempfile.mkdtemp(prefix="bv-ro-"))
    base.chmod(0o755)
    root = base / "proj"
    shutil.copytree(src, root)
    info = DemoInfo(**{**vars(info), "root": root})
    dirs = [root, *(p for p in root.rglob("*") if p.is_dir())]
    files = [p for p in root.rglob("*") if p.is_file()]
    for f in files:
        f.chmod(0o444)
    for d in sorted(dirs, reverse=True):
        d.chmod(0o555)
    try:
        yield root, info
    finally:
        for d in dirs:
            d.chmod(0o755)
        for f in files:
            f.chmod(0o644)
        shutil.rmtree(base)


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


def _unprivileged() -> dict[str, object]:
    demote = _demote()
    return {} if demote is None else {"preexec_fn": demote, "cwd": "/"}


def test_the_child_really_cannot_write_there(read_only_project) -> None:  # type: ignore[no-untyped-def]
    """The read-only directory tests are not vacuous: the child cannot create a file."""
    root, _ = read_only_project
    target = root / ".spikuit" / "agent" / "probe"
    code = f"open({str(target)!r}, 'x')"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, **_unprivileged()
    )  # type: ignore[call-overload]
    assert result.returncode != 0 and "PermissionError" in result.stderr
    assert not target.exists()


@pytest.mark.parametrize("name", READ_ONLY_DIR)
def test_project_in_a_read_only_directory_opens_and_reads(name: str, read_only_project) -> None:  # type: ignore[no-untyped-def]
    root, info = read_only_project
    spikuit = root / ".spikuit"
    assert not os.access(spikuit, os.W_OK) or os.geteuid() == 0
    before = listing(root)
    # The cache dir cannot be written either: caching is best effort.
    env = {"XDG_CACHE_HOME": "/nonexistent-bv-cache", "HOME": "/nonexistent-bv-home"}
    result = run_cli(READING[name](root, info), root, env=env, **_unprivileged())
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip()
    assert listing(root) == before
    modes = {p: stat.S_IMODE(p.stat().st_mode) for p in root.rglob("*")}
    assert all(m in (0o444, 0o555) for m in modes.values())


def test_console_opens_a_project_in_a_read_only_directory(read_only_project) -> None:  # type: ignore[no-untyped-def]
    root, _ = read_only_project
    before = listing(root)
    env = {"XDG_CACHE_HOME": "/nonexistent-bv-cache", "HOME": "/nonexistent-bv-home"}
    code, seen = console_session(root, env=env, **_unprivileged())
    assert b"modularity" in seen, seen[-2000:]
    assert code == 0, seen[-2000:]
    assert listing(root) == before
