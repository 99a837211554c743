"""Brain discovery, era detection and bad input, without an event loop."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from brainview.errors import (
    LockedError,
    NotABrainError,
    NotFoundError,
    ReadOnlyError,
    UnknownSchemaError,
    UsageError,
)
from brainview.services.project import Project
from brainview.store.brain import open_brain
from brainview.store.discovery import discover


def test_walks_up_to_spikuit(demo) -> None:
    root, _ = demo
    deep = root / "notes" / "deeper"
    deep.mkdir(parents=True)
    paths = discover(cwd=deep)
    assert paths.user_db == (root / ".spikuit" / "circuit.db").resolve()
    assert paths.agent_exists


@pytest.mark.parametrize("form", ["project", "spikuit", "db"])
def test_accepts_project_spikuit_dir_and_db(demo, form: str) -> None:
    root, _ = demo
    loc = {"project": root, "spikuit": root / ".spikuit", "db": root / ".spikuit" / "circuit.db"}
    paths = discover(loc[form])
    assert paths.user_db.name == "circuit.db"
    assert paths.agent_db == root / ".spikuit" / "agent" / "circuit.db"


def test_separate_user_and_agent_urls(demo) -> None:
    root, _ = demo
    user = f"sqlite:///{root}/.spikuit/circuit.db"
    agent = f"sqlite:///{root}/.spikuit/agent/circuit.db"
    paths = discover(user=user, agent=agent)
    assert paths.user_db == root / ".spikuit" / "circuit.db"
    assert paths.agent_exists


def test_postgres_url_refused() -> None:
    with pytest.raises(UsageError):
        discover(user="postgresql://x/y")


def test_no_spikuit_anywhere(tmp_path: Path) -> None:
    with pytest.raises(NotFoundError):
        discover(cwd=tmp_path)


def test_missing_path(tmp_path: Path) -> None:
    with pytest.raises(NotFoundError):
        discover(tmp_path / "nope")


def test_not_sqlite(tmp_path: Path) -> None:
    bad = tmp_path / "circuit.db"
    bad.write_text("hello, I am not a database" * 10)
    with pytest.raises(NotABrainError):
        open_brain(bad, "user")


def test_empty_file_is_not_a_brain(tmp_path: Path) -> None:
    bad = tmp_path / "circuit.db"
    bad.write_bytes(b"")
    with pytest.raises(NotABrainError):
        open_brain(bad, "user")


def test_truncated_db(demo, tmp_path: Path) -> None:
    root, _ = demo
    src = root / ".spikuit" / "circuit.db"
    _checkpoint(src)
    data = src.read_bytes()
    bad = tmp_path / "circuit.db"
    bad.write_bytes(data[: len(data) // 2])
    with pytest.raises(NotABrainError, match="truncated"):
        open_brain(bad, "user")


def test_corrupt_db(tmp_path: Path) -> None:
    path = tmp_path / "circuit.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE t(x)")
    conn.commit()
    conn.close()
    data = bytearray(path.read_bytes())
    data[100:4096] = b"\xff" * (4096 - 100)  # wreck the schema page
    path.write_bytes(bytes(data))
    with pytest.raises(NotABrainError):
        open_brain(path, "user")


def test_unknown_schema(tmp_path: Path) -> None:
    path = tmp_path / "circuit.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE notes(id TEXT)")
    conn.commit()
    conn.close()
    with pytest.raises(UnknownSchemaError, match="neuron"):
        open_brain(path, "user")


def test_read_only_file_refuses_writes_but_reads(demo) -> None:
    root, _ = demo
    agent = root / ".spikuit" / "agent" / "circuit.db"
    _checkpoint(agent)
    os.chmod(agent, 0o444)
    before = agent.read_bytes()
    with pytest.raises(ReadOnlyError):
        open_brain(agent, "agent", write=True)
    brain = open_brain(agent, "agent")
    with brain.read() as conn:
        assert conn.exec_driver_sql("SELECT COUNT(*) FROM neuron").scalar_one() > 0
    brain.dispose()
    assert agent.read_bytes() == before


def test_locked_db_is_reported(demo, monkeypatch: pytest.MonkeyPatch) -> None:
    root, _ = demo
    monkeypatch.setenv("BRAINVIEW_BUSY_TIMEOUT", "0.05")
    agent = root / ".spikuit" / "agent" / "circuit.db"
    holder = sqlite3.connect(agent, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(LockedError):  # at open (WAL pragma) or at BEGIN IMMEDIATE
            brain = open_brain(agent, "agent", write=True)
            with brain.write() as conn:
                conn.exec_driver_sql("SELECT 1")
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def test_reading_never_writes(demo) -> None:
    root, _ = demo
    files = [root / ".spikuit" / "circuit.db", root / ".spikuit" / "agent" / "circuit.db"]
    for f in files:
        _checkpoint(f)
    before = {f: f.read_bytes() for f in files}
    from brainview.services.metrics.stats import project_stats

    with Project.open(discover(root)) as project:
        project_stats(project)
    assert {f: f.read_bytes() for f in files} == before


def test_no_agent_brain_is_normal(demo) -> None:
    root, _ = demo
    import shutil

    shutil.rmtree(root / ".spikuit" / "agent")
    from brainview.services.metrics.stats import project_stats

    with Project.open(discover(root)) as project:
        assert project.agent is None
        data = project_stats(project)
    assert data["agent"] is None
    assert data["proposals"]["pending"] == 0


def _checkpoint(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
