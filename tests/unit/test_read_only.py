"""Read-only means read-only: reading commands, dry runs and a console opened without a
decision change no row of either brain and leave no ``-wal``/``-shm`` behind.

Every CLI command runs as its own process (the honest test for the WAL files: they are
left by connections that are never closed, or by read-only ones). Rows are hashed
table by table through sqlite3 in this process, with a connection closed before the
command runs; the WAL files are only ever looked at with ``os.listdir``.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from brainview.demo.generator import DEMO_NOW, DemoInfo, DemoSpec
from brainview.store.discovery import discover
from brainview.tui.app import make_app
from brainview.tui.clock import frozen
from tests.project_copy import copy_project
from tests.read_only_helpers import (
    assert_read_only,
    brain_files,
    changed_tables,
    console_session,
    listing,
    run_cli,
    snapshot,
    unprivileged,
)
from tests.tui_helpers import settle

SPEC = DemoSpec(history=True)
"""What ``brainview demo`` writes: pending proposals, six weeks of decisions, a plan."""

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
    from brainview.services.intake.spkt_plan import current_hash
    from brainview.services.project import Project

    with Project.open(discover(info.root)) as project:
        state = current_hash(project)
    plan = {
        "state_hash": state,
        "triage": {"forget_candidates": [{"action": "flag_forget", "id": info.user_ids[0]}]},
    }
    path = tmp / "plan.json"
    path.write_text(json.dumps(plan), encoding="utf-8")
    return path


def _outcome(tmp: Path, info: DemoInfo) -> list[str]:
    """Record a tutor outcome first (a write, before the watch starts); show it."""
    from brainview.services import outcome
    from brainview.services.project import Project

    del tmp
    rep = outcome.OutcomeReport(
        "o-ro",
        "tutor",
        "failure",
        "a hint that missed",
        [(info.reflection_ids[0], "support", None)],
    )
    with Project.open(discover(info.root), write_agent=True) as project:
        outcome.report_outcome(project, rep, decider="tutor", now=DEMO_NOW)
    return ["outcome", "show", "o-ro", "--json"]


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
    "communities show": lambda t, i: ["communities", "show", "1", "--json"],
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
    "recall --no-log": lambda t, i: ["recall", "--text", "merging keywords", "--no-log"],
    "recall --no-log --json": lambda t, i: [
        *("recall", "--ref", i.user_ids[0], "--text", "merge", "--no-log", "--json")
    ],
    "outcome show": _outcome,
}


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
    from brainview.services.communities import runner as clustering_runner
    from brainview.tui.consolidate import ConsolidateScreen

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
    "recall --no-log --json",
]


@pytest.fixture
def read_only_project(history_demo) -> Iterator[tuple[Path, DemoInfo]]:  # type: ignore[no-untyped-def]
    """The demo copied to a dir another uid can reach, then chmod 555 (dirs) / 444 (files)."""
    src, info = history_demo
    base = Path(tempfile.mkdtemp(prefix="bv-ro-"))
    base.chmod(0o755)
    root = base / "proj"
    copy_project(src, root)
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


def test_the_child_really_cannot_write_there(read_only_project) -> None:  # type: ignore[no-untyped-def]
    """The read-only directory tests are not vacuous: the child cannot create a file."""
    root, _ = read_only_project
    target = root / ".spikuit" / "agent" / "probe"
    code = f"open({str(target)!r}, 'x')"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, **unprivileged()
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
    result = run_cli(READING[name](root, info), root, env=env, **unprivileged())
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip()
    assert listing(root) == before
    modes = {p: stat.S_IMODE(p.stat().st_mode) for p in root.rglob("*")}
    assert all(m in (0o444, 0o555) for m in modes.values())


def test_console_opens_a_project_in_a_read_only_directory(read_only_project) -> None:  # type: ignore[no-untyped-def]
    root, _ = read_only_project
    before = listing(root)
    env = {"XDG_CACHE_HOME": "/nonexistent-bv-cache", "HOME": "/nonexistent-bv-home"}
    code, seen = console_session(root, env=env, **unprivileged())
    assert b"modularity" in seen, seen[-2000:]
    assert code == 0, seen[-2000:]
    assert listing(root) == before
