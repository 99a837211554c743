"""A brain configured for a rollback journal (Spikuit's next ``[database] journal_mode``,
``DELETE`` for brains synced across machines) stays in it when brainview writes it —
decisions, recall logs, new brains — including while other processes write it too; an
unconfigured brain is switched to WAL before its first write, as before."""

from __future__ import annotations

import multiprocessing
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

from test_recall import WRITER, _open
from test_review import _check_one_winner, _race, propose, reviewed_reflections

from brainview.services.recall import recall
from brainview.services.recall.result import RecallQuery
from brainview.store import journal
from brainview.store.brain_create import create_empty
from brainview.store.recall_handle import close_all
from tests.unit.test_cli import cli

DELETE_CONFIG = '\n[database]\njournal_mode = "DELETE"\n'


def brains(root: Path) -> list[Path]:
    return [root / ".spikuit" / "circuit.db", root / ".spikuit" / "agent" / "circuit.db"]


def to_rollback(root: Path, where: str = ".spikuit/config.toml") -> None:
    """Configure the project for ``DELETE`` and put both brains in it (what Spikuit's
    next release does when it opens them)."""
    cfg = root / where
    cfg.write_text(cfg.read_text() + DELETE_CONFIG if cfg.exists() else DELETE_CONFIG)
    for db in brains(root):
        conn = sqlite3.connect(db)
        assert conn.execute("PRAGMA journal_mode=DELETE").fetchone()[0] == "delete"
        conn.close()


def modes(root: Path) -> list[str]:
    out = []
    for db in brains(root):
        conn = sqlite3.connect(db)
        out.append(conn.execute("PRAGMA journal_mode").fetchone()[0])
        conn.close()
    return out


def test_configured_mode_is_read_from_the_brains_config(tmp_path: Path) -> None:
    spikuit = tmp_path / ".spikuit"
    (spikuit / "agent").mkdir(parents=True)
    user, agent = spikuit / "circuit.db", spikuit / "agent" / "circuit.db"
    assert journal.configured_mode(user) == "wal" == journal.configured_mode(agent)
    (spikuit / "config.toml").write_text('[brain]\nname = "x"\n' + DELETE_CONFIG)
    assert journal.configured_mode(user) == "delete"
    assert journal.configured_mode(agent) == "delete"  # the project's, for the agent brain
    (spikuit / "agent" / "config.toml").write_text('[database]\njournal_mode = "wal"\n')
    assert journal.configured_mode(agent) == "wal"  # its own config wins
    (spikuit / "config.toml").write_text('[database]\njournal_mode = "off"\n')
    assert journal.configured_mode(user) == "wal"  # not a mode brainview sets
    (spikuit / "config.toml").unlink()
    (spikuit / "config.toml").symlink_to(tmp_path / "elsewhere.toml")
    (tmp_path / "elsewhere.toml").write_text(DELETE_CONFIG)
    assert journal.configured_mode(user) == "wal"  # a link is not followed


def test_a_decision_keeps_a_rollback_journal_brain_in_it(make_demo: Any) -> None:
    root, info = make_demo()
    to_rollback(root)
    out = cli("proposals", "accept", info.proposal_ids[0], "-C", str(root), "--json")
    assert out.returncode == 0, out.stderr
    assert modes(root) == ["delete", "delete"]
    assert not any(db.with_name(db.name + "-wal").exists() for db in brains(root))


def test_an_unconfigured_brain_is_switched_to_wal_at_its_first_write(make_demo: Any) -> None:
    root, info = make_demo()
    for db in brains(root):
        sqlite3.connect(db).execute("PRAGMA journal_mode=DELETE").fetchall()
    out = cli("proposals", "accept", info.proposal_ids[0], "-C", str(root), "--json")
    assert out.returncode == 0, out.stderr
    assert modes(root) == ["wal", "wal"]


def test_a_new_brain_is_created_in_the_configured_mode(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text(DELETE_CONFIG)
    create_empty(tmp_path / "circuit.db", "CREATE TABLE neuron (id TEXT PRIMARY KEY);")
    conn = sqlite3.connect(tmp_path / "circuit.db")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    conn.close()


def test_two_processes_deciding_on_a_rollback_journal_brain(make_demo: Any) -> None:
    root, info = make_demo()
    to_rollback(root)
    a, b = reviewed_reflections(info, 2)
    pid = propose(info, [(a, "support"), (b, "support")])
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(2)
    out = ctx.Queue()
    procs = [
        ctx.Process(target=_race, args=(info, pid, v, barrier, out)) for v in ("accept", "reject")
    ]
    for proc in procs:
        proc.start()
    outcomes = [out.get(timeout=60) for _ in procs]
    for proc in procs:
        proc.join(timeout=30)
    _check_one_winner(info, pid, outcomes)
    assert modes(root) == ["delete", "delete"]


def test_recall_while_another_process_writes_a_rollback_journal_brain(
    make_demo: Any, now: Any
) -> None:
    """The recall index's freshness check must not take a missing ``-wal`` for proof
    that nothing was committed: in a rollback journal no commit creates one."""
    root, _info = make_demo()
    to_rollback(root)
    db = brains(root)[1]
    n = 30
    try:
        with _open(root, write=True) as p:
            recall(p, RecallQuery(text="wombat lesson", limit=100), now=now)  # logged: a write
            writer = subprocess.Popen([sys.executable, "-c", WRITER, str(db), str(n)])
            while writer.poll() is None:
                conn = sqlite3.connect(db, timeout=30)
                retired = {
                    r for (r,) in conn.execute("SELECT id FROM neuron WHERE retired_at NOT NULL")
                }
                conn.close()
                res = recall(p, RecallQuery(text="wombat lesson", limit=100), now=now)
                assert not {h.reflection for h in res.hits} & retired
            assert writer.wait() == 0
            final = recall(p, RecallQuery(text="wombat lesson", limit=100), now=now)
    finally:
        close_all()
    live = {f"r-w{k}" for k in range(n)} - {f"r-w{k - 1}" for k in range(n) if k % 3 == 2}
    assert {h.reflection for h in final.hits if h.reflection.startswith("r-w")} == live
    assert modes(root)[1] == "delete"
