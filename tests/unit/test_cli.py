"""The headless face: every subcommand run as a subprocess (output shapes, exit codes),
and the helpers the other ``test_cli_*`` modules share (``from test_cli import …``).

``run`` starts a real process (what scripts and agents do); ``cli`` calls
:func:`brainview.cli.main` in this process with stdout/stderr captured — the same code
path minus interpreter start-up — for the many detailed checks that would otherwise
cost a second of imports each.
"""

from __future__ import annotations

import io
import json
import os
import sqlite3
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from brainview.cli import main
from brainview.demo.generator import DEMO_NOW
from brainview.errors import ExitCode

ENV = {"BRAINVIEW_NOW": DEMO_NOW.isoformat(), "XDG_CONFIG_HOME": "/nonexistent-bv-config"}
"""Every run: the demo's frozen now, and no user-level config file."""
AUDIT = {"brainview_decision", "brainview_effect", "brainview_meta", "brainview_apply_intent"}
"""brainview's own audit trail: kept (and grown) by undo, so not compared."""


def run(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``python -m brainview ARGS`` in a fresh process."""
    return subprocess.run(
        [sys.executable, "-m", "brainview", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
        env={**os.environ, **ENV, **(env or {})},
    )


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``brainview ARGS`` in this process (same result shape as :func:`run`)."""
    patch = {**ENV, **(env or {})}
    saved = {k: os.environ.get(k) for k in patch}
    os.environ.update(patch)
    out, err = io.StringIO(), io.StringIO()
    try:
        with redirect_stdout(out), redirect_stderr(err):
            code = main(list(args))
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return subprocess.CompletedProcess(list(args), code, out.getvalue(), err.getvalue())


def ok_json(*args: str, env: dict[str, str] | None = None) -> Any:
    """In-process ``ARGS --json`` that must succeed; its parsed stdout."""
    out = cli(*args, "--json", env=env)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def sql(db: Path, query: str, *params: object) -> list[tuple[Any, ...]]:
    """Rows of one query on a brain file."""
    conn = sqlite3.connect(db)
    try:
        return conn.execute(query, params).fetchall()
    finally:
        conn.close()


def agent_db(root: Path) -> Path:
    """The agent brain of a project."""
    return root / ".spikuit" / "agent" / "circuit.db"


def user_db(root: Path) -> Path:
    """The user brain of a project."""
    return root / ".spikuit" / "circuit.db"


def dump(db: Path, skip: set[str] = AUDIT) -> dict[str, list[tuple[Any, ...]]]:
    """Every table of a brain in full (``skip`` aside), rows sorted."""
    names = [r[0] for r in sql(db, "SELECT name FROM sqlite_master WHERE type = 'table'")]
    return {n: sorted(sql(db, f"SELECT * FROM {n}"), key=repr) for n in names if n not in skip}


def fresh(info: Any) -> list[str]:
    """Demo proposals that are not stale (stale ones cannot be accepted)."""
    return [p for p in info.proposal_ids if p not in info.stale_proposal_ids]


def test_help_lists_commands() -> None:
    out = run("--help")
    assert out.returncode == 0
    for cmd in ("demo", "stats", "init-agent", "open"):
        assert cmd in out.stdout


def test_stats_json_shape_and_rows(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    out = run("stats", str(root), "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert set(data) == {
        "user",
        "agent",
        "proposals",
        "outcomes",
        "agent_metrics",
        "reflection_writing",
        "queue_health",
        "two_person",
        "agreement",
    }
    assert data["reflection_writing"]["enabled"] is True
    metrics = data["agent_metrics"]
    assert {"acceptance", "decision_time", "policies_per_week", "at_risk"} <= set(metrics)
    assert sum(metrics["policies_per_week"].values()) == data["agent"]["policies"]
    db = sqlite3.connect(root / ".spikuit" / "circuit.db")
    live = db.execute("SELECT COUNT(*) FROM neuron WHERE retired_at IS NULL").fetchone()[0]
    assert data["user"]["neurons"] == live
    assert data["user"]["era"] == "0.7"
    assert data["agent"]["reflections_per_skill"]
    assert data["proposals"]["pending"] == 36


def test_stats_walks_up_from_cwd(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    sub = root / "a" / "b"
    sub.mkdir(parents=True)
    out = run("stats", "--json", cwd=sub)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["user"]["neurons"] > 0


def test_stats_without_agent_brain(demo) -> None:  # type: ignore[no-untyped-def]
    import shutil

    root, _ = demo
    shutil.rmtree(root / ".spikuit" / "agent")
    out = run("stats", str(root), "--json")
    assert out.returncode == 0
    assert json.loads(out.stdout)["agent"] is None
    human = run("stats", str(root))
    assert "no agent brain yet" in human.stdout


@pytest.mark.parametrize(
    ("setup", "code"),
    [
        ("missing", ExitCode.NOT_FOUND),
        ("text", ExitCode.NOT_A_BRAIN),
        ("truncated", ExitCode.NOT_A_BRAIN),
        ("foreign", ExitCode.UNKNOWN_SCHEMA),
    ],
)
def test_bad_input_one_line_and_exit_code(tmp_path: Path, demo, setup: str, code) -> None:  # type: ignore[no-untyped-def]
    target = tmp_path / "bad.db"
    if setup == "text":
        target.write_text("not a database\n" * 20)
    elif setup == "truncated":
        src = demo[0] / ".spikuit" / "circuit.db"
        c = sqlite3.connect(src)
        c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        c.close()
        target.write_bytes(src.read_bytes()[:9000])
    elif setup == "foreign":
        c = sqlite3.connect(target)
        c.execute("CREATE TABLE invoices(id)")
        c.commit()
        c.close()
    for json_flag in ([], ["--json"]):
        out = run("stats", str(target), *json_flag)
        assert out.returncode == int(code), out.stderr
        assert "Traceback" not in out.stderr
        assert len(out.stderr.strip().splitlines()) == 1
        if json_flag:
            assert json.loads(out.stderr)["exit_code"] == int(code)


def test_locked_brain_exit_code(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    db = root / ".spikuit" / "circuit.db"
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("PRAGMA locking_mode=EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        out = run("stats", str(root), env={"BRAINVIEW_BUSY_TIMEOUT": "0.1"})
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert out.returncode == int(ExitCode.LOCKED), out.stderr
    assert "locked" in out.stderr


def test_demo_no_open_writes_project(tmp_path: Path) -> None:
    target = tmp_path / "d"
    out = run("demo", str(target), "--no-open")
    assert out.returncode == 0, out.stderr
    assert (target / ".spikuit" / "circuit.db").is_file()
    assert (target / ".spikuit" / "agent" / "circuit.db").is_file()
    again = run("demo", str(target), "--no-open")
    assert again.returncode == 0 and "reusing" in again.stderr


def test_init_agent_only_when_asked(demo) -> None:  # type: ignore[no-untyped-def]
    import shutil

    root, _ = demo
    shutil.rmtree(root / ".spikuit" / "agent")
    run("stats", str(root))
    assert not (root / ".spikuit" / "agent").exists()
    out = run("init-agent", str(root))
    assert out.returncode == 0, out.stderr
    stats = json.loads(run("stats", str(root), "--json").stdout)
    assert stats["agent"]["neurons"] == 0
    again = run("init-agent", str(root))
    assert again.returncode == int(ExitCode.CONFLICT)


def test_unknown_command_is_usage_error() -> None:
    out = run("stats", "--bogus")
    assert out.returncode == int(ExitCode.USAGE)


def test_cli_reference_is_current() -> None:
    from brainview.docgen import render

    ref = (Path(__file__).resolve().parents[2] / "docs" / "cli-reference.md").read_text()
    assert ref == render(), (
        "regenerate: COLUMNS=100 python -m brainview.docgen > docs/cli-reference.md"
    )


def test_a_usage_error_names_its_command_once() -> None:
    """``brainview: held-back list: unrecognized arguments: X (see brainview held-back
    list --help)``: one ``brainview:``, and the command the argument was given to."""
    out = cli("held-back", "list", "/nowhere")
    assert out.returncode == 2
    assert out.stderr.strip() == (
        "brainview: held-back list: unrecognized arguments: /nowhere "
        "(see brainview held-back list --help)"
    )
    bad = cli("proposals", "lst")
    assert bad.returncode == 2 and bad.stderr.startswith("brainview: proposals: argument")
