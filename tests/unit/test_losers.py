"""The losers of a race are told so clearly and touch nothing of the winner's:

* a second undo by proposal id (another process undid it first) is a conflict (5),
  not "not found" (3);
* recovery leaves alone an intent another live process is carrying out (no
  "recovered apply of X: already" about someone else's decision), and still finishes
  one whose process has ended;
* an accept refused because the agent brain is locked (6) leaves the user brain's
  journal mode as it was (DELETE stays DELETE).
"""

from __future__ import annotations

import os
import socket
import sqlite3
import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from test_cli import ENV, agent_db, cli, fresh, run, user_db

from brainview.demo.generator import DEMO_NOW
from brainview.errors import ExitCode
from brainview.services import apply, review
from brainview.services.apply import hooks, owner
from brainview.services.project import Project

NOW = DEMO_NOW + timedelta(minutes=10)


def applicable(root: Path, info: Any, n: int = 1) -> list[str]:
    conn = sqlite3.connect(agent_db(root))
    try:
        rows = conn.execute(
            "SELECT id FROM brainview_proposal WHERE status = 'pending' "
            "AND kind IN ('add_synapse', 'set_synapse_weight', 'edit_content') ORDER BY id"
        ).fetchall()
    finally:
        conn.close()
    return [pid for (pid,) in rows if pid in fresh(info)][:n]


def test_a_second_undo_by_proposal_id_is_a_conflict(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    (pid,) = applicable(root, info)
    assert cli("proposals", "accept", pid, "-C", str(root)).returncode == 0
    assert cli("proposals", "undo", pid, "-C", str(root)).returncode == 0
    again = cli("proposals", "undo", pid, "-C", str(root))
    assert again.returncode == ExitCode.CONFLICT, again.stderr
    assert "already undone" in again.stderr and len(again.stderr.strip().splitlines()) == 1
    unknown = cli("proposals", "undo", "prop-nope", "-C", str(root))
    assert unknown.returncode == ExitCode.NOT_FOUND


def test_concurrent_undos_by_proposal_id_one_wins_one_conflicts(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    (pid,) = applicable(root, info)
    assert cli("proposals", "accept", pid, "-C", str(root)).returncode == 0
    env = {"BRAINVIEW_BUSY_TIMEOUT": "60"}
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "brainview", "proposals", "undo", pid, "-C", str(root)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, **ENV, **env},
        )
        for _ in range(2)
    ]
    results = [(p.wait(timeout=120), p.stderr.read() if p.stderr else "") for p in procs]
    codes = sorted(code for code, _ in results)
    assert codes == [0, ExitCode.CONFLICT], results
    loser = next(err for code, err in results if code)
    assert "already undone" in loser and "Traceback" not in loser


def _crash_after_the_decision(root: Path, pid: str) -> None:
    """Accept in this process and stop right after the agent brain committed: the
    intent stays pending, as if its process were still carrying it out."""

    class Stop(Exception):
        pass

    def stop(step: str) -> None:
        if step == "decision.committed":
            raise Stop

    hooks.set_step_hook(stop)
    try:
        with (
            Project.locate(root, write_agent=True, write_user=True) as p,
            pytest.raises(Stop),
        ):
            review.decide(
                p, pid, "accept", decider="a", now=NOW, applier=apply.applier_for(p.paths)
            )
    finally:
        hooks.set_step_hook(None)


def _owned_by(root: Path, who: str) -> None:
    conn = sqlite3.connect(agent_db(root))
    try:
        conn.execute("UPDATE brainview_apply_intent SET owner = ? WHERE state = 'pending'", (who,))
        conn.commit()
    finally:
        conn.close()


def _owner_of(pid: int) -> str:
    return f"{socket.gethostname()}:{pid}:{owner._start_ticks(pid)}"


def test_recovery_leaves_a_live_process_s_intent_alone(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    first, second = applicable(root, info, 2)
    _crash_after_the_decision(root, first)
    other = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"],
                             stdin=subprocess.PIPE)  # fmt: skip
    try:
        _owned_by(root, _owner_of(other.pid))
        out = cli("proposals", "accept", second, "-C", str(root))
        assert out.returncode == 0, out.stderr
        assert "recovered" not in out.stderr and first not in out.stdout + out.stderr
        with Project.locate(root, write_agent=True, write_user=True) as p:
            assert apply.open_intents(p) == 1
            assert apply.recover(p, now=NOW) == []
    finally:
        other.communicate(b"", timeout=60)  # the other process ends (and is reaped)
    with Project.locate(root, write_agent=True, write_user=True) as p:
        outcomes = apply.recover(p, now=NOW)
    assert [(o.proposal_id, o.state) for o in outcomes] == [(first, "done")]


def test_an_intent_in_flight_in_this_process_is_not_recovered(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    (pid,) = applicable(root, info)
    seen: list[Any] = []

    def meanwhile(step: str) -> None:  # another screen of this process starts up
        if step == "decision.committed":
            with Project.locate(root, write_agent=True, write_user=True) as other:
                seen.append(apply.recover(other, now=NOW))

    hooks.set_step_hook(meanwhile)
    try:
        with Project.locate(root, write_agent=True, write_user=True) as p:
            result = review.decide(
                p, pid, "accept", decider="a", now=NOW, applier=apply.applier_for(p.paths)
            )
    finally:
        hooks.set_step_hook(None)
    assert seen == [[]] and result.apply_state == "applied"


def test_an_ended_owner_s_intent_is_recovered(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    (pid,) = applicable(root, info)
    _crash_after_the_decision(root, pid)
    _owned_by(root, f"{socket.gethostname()}:2147483646:1")  # beyond pid_max: long gone
    out = cli("proposals", "accept", applicable(root, info)[0], "-C", str(root))
    assert out.returncode == 0, out.stderr
    assert f"recovered apply of {pid}: done" in out.stderr


def test_a_locked_agent_brain_leaves_the_user_journal_mode_alone(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    (pid,) = applicable(root, info)

    def mode(db: Path) -> str:
        conn = sqlite3.connect(db)
        try:
            return str(conn.execute("PRAGMA journal_mode").fetchone()[0])
        finally:
            conn.close()

    conn = sqlite3.connect(user_db(root))
    conn.execute("PRAGMA journal_mode=DELETE")
    conn.close()
    assert mode(user_db(root)) == "delete"
    holder = sqlite3.connect(agent_db(root), isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # spkt (or another decider) is writing the agent brain
    try:
        out = run("proposals", "accept", pid, "-C", str(root),
                  env={"BRAINVIEW_BUSY_TIMEOUT": "0.2"})  # fmt: skip
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert out.returncode == ExitCode.LOCKED, out.stderr
    assert mode(user_db(root)) == "delete"
    assert not Path(str(user_db(root)) + "-wal").exists()
    done = cli("proposals", "accept", pid, "-C", str(root))
    assert done.returncode == 0, done.stderr
    assert mode(user_db(root)) == "wal"  # switched by the first write, as Spikuit does
