"""SIGKILL at every step of the two-file protocol, then ``recover``: both brains end in
the state of an uninterrupted run (or of no run at all), never half-applied.

A subprocess accepts (or undoes) a merge with a step hook that kills the process
with SIGKILL when the named step is reached.  The test then checks the brains as the
crash left them, runs :func:`brainview.services.apply.recover` and compares both
brains with a twin project on which the same decision ran without a crash.
"""

from __future__ import annotations

import json
import re
import signal
import sqlite3
import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from fsrs import Scheduler

from brainview.core import fsrs_math
from brainview.demo.generator import DEMO_NOW
from brainview.services import apply, review
from brainview.services.apply import hooks
from brainview.services.apply.hooks import STEPS, STREAM_STEPS
from brainview.services.project import Project
from tests.project_copy import copy_project

NOW = DEMO_NOW + timedelta(minutes=10)
LATER = NOW + timedelta(minutes=1)
REPO = Path(__file__).resolve().parents[2]
DECISION_ID = re.compile(r"dec-[0-9a-f]{12}")
AUDIT = {"brainview_decision", "brainview_effect", "brainview_grade", "brainview_apply_intent"}

CHILD = r"""
import os, signal, sys
from fsrs import Scheduler
from brainview.core import fsrs_math
from brainview.services import apply, review
from brainview.services.apply import hooks, stream_plan
from brainview.services.project import Project

root, pid, step, decision, when, stream = sys.argv[1:7]
name, _, nth = step.partition("#")  # ``step#n``: at its n-th announcement
if stream == "stream":  # a few hundred rows stream, in chunks of 150
    stream_plan.STREAM_MIN_LIVE, stream_plan.CHUNK_ROWS = 100, 150
seen = []

def die(reached):
    seen.append(reached)
    if reached == name and seen.count(name) == int(nth or 1):
        os.kill(os.getpid(), signal.SIGKILL)

hooks.set_step_hook(die)
now = fsrs_math.parse_ts(when)
with Project.locate(root, write_agent=True, write_user=True) as p:
    if decision == "-":
        review.decide(p, pid, "accept", decider="alice", now=now,
                      scheduler=Scheduler(enable_fuzzing=False),
                      applier=apply.applier_for(p.paths))
    else:
        review.undo(p, decision, now=now, actor="bob")
print("finished")
"""


def run_child(
    root: Path, pid: str, step: str, decision: str, when: str, *, stream: bool = False
) -> int:
    """Accept ``pid`` (``decision`` ``-``) or undo ``decision`` in a child killed at
    ``step`` (``step#n``: its n-th announcement); ``stream``: with a low streaming
    threshold and small chunks.  The child's exit code (0: it finished)."""
    args = [str(root), pid, step, decision, when, "stream" if stream else "-"]
    done = subprocess.run(
        [sys.executable, "-c", CHILD, *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=180 if stream else 120,
    )
    assert done.returncode in (0, -signal.SIGKILL), done.stderr
    return done.returncode


def _mask(value: Any) -> Any:
    # Decision ids are random (spikes carry theirs as session_id); everything else is
    # deterministic with a frozen clock and a non-fuzzing scheduler.
    return "dec-*" if isinstance(value, str) and DECISION_ID.fullmatch(value) else value


def dump(db: Path, skip: set[str]) -> dict[str, list[tuple[Any, ...]]]:
    conn = sqlite3.connect(db)
    names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
    out = {
        n: sorted(
            (tuple(_mask(v) for v in r) for r in conn.execute(f"SELECT * FROM {n}")), key=repr
        )
        for n in sorted(names)
        if n not in skip
    }
    conn.close()
    return out


def state(root: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """User rows minus the change log; agent rows minus audit tables and the
    proposal version."""
    user = dump(root / ".spikuit" / "circuit.db", {"changeset", "event"})
    agent = dump(root / ".spikuit" / "agent" / "circuit.db", AUDIT)
    agent["brainview_proposal"] = [r[:-1] for r in agent["brainview_proposal"]]
    return user, agent


def log(root: Path) -> tuple[list[str], list[tuple[str, str]], list[str]]:
    """(brainview changeset tags, (action, state) of intents, decision apply_states)."""
    user = sqlite3.connect(root / ".spikuit" / "circuit.db")
    tags = [r[0] for r in user.execute("SELECT tag FROM changeset WHERE tag LIKE 'brainview:%'")]
    user.close()
    agent = sqlite3.connect(root / ".spikuit" / "agent" / "circuit.db")
    try:
        intents = agent.execute(
            "SELECT action, state FROM brainview_apply_intent ORDER BY created_at, rowid"
        ).fetchall()
    except sqlite3.OperationalError:
        intents = []
    states = [r[0] for r in agent.execute("SELECT apply_state FROM brainview_decision")]
    agent.close()
    return tags, intents, states


def merge_proposal(root: Path) -> str:
    conn = sqlite3.connect(root / ".spikuit" / "agent" / "circuit.db")
    (pid,) = conn.execute(
        "SELECT id FROM brainview_proposal WHERE kind = 'merge_neurons' AND status = 'pending' "
        "ORDER BY id LIMIT 1"
    ).fetchone()
    conn.close()
    return str(pid)


def accept_here(root: Path, pid: str) -> str:
    with Project.locate(root, write_agent=True, write_user=True) as p:
        result = review.decide(
            p,
            pid,
            "accept",
            decider="alice",
            now=NOW,
            scheduler=Scheduler(enable_fuzzing=False),
            applier=apply.applier_for(p.paths),
        )
    return result.decision_id


def recover(root: Path) -> list[apply.Outcome]:
    with Project.locate(root, write_agent=True, write_user=True) as p:
        return apply.recover(p, now=LATER)


@pytest.fixture
def twins(make_demo: Any, tmp_path: Path) -> dict[str, Any]:
    """The demo before the accept, after it, and after its undo (no crash)."""
    root, _info = make_demo(name="reference")
    pid = merge_proposal(root)
    before = state(root)
    decision = accept_here(root, pid)
    applied = state(root)
    copy_project(root, tmp_path / "applied")
    with Project.locate(root, write_agent=True, write_user=True) as p:
        review.undo(p, decision, now=LATER, actor="bob")
    return {
        "pid": pid,
        "before": before,
        "applied": applied,
        "reverted": state(root),
        "applied_root": tmp_path / "applied",
        "decision": decision,
    }


ACCEPT_STEPS = [s for s in STEPS if s.startswith(("decision.", "apply."))]
REVERT_STEPS = [s for s in STEPS if s.startswith("revert.")]
MERGE_ACCEPT_STEPS = [s for s in ACCEPT_STEPS if s not in STREAM_STEPS]
MERGE_REVERT_STEPS = [s for s in REVERT_STEPS if s not in STREAM_STEPS]
"""A merge is not streamed: it never reaches ``*.user_chunk`` (test_crash_stream.py)."""


@pytest.mark.parametrize("step", MERGE_ACCEPT_STEPS)
def test_kill_during_accept_then_recover(make_demo: Any, twins: dict[str, Any], step: str) -> None:
    root, _info = make_demo()
    pid = twins["pid"]
    assert run_child(root, pid, step, "-", fsrs_math.format_ts(NOW)) == -signal.SIGKILL
    user, agent = state(root)
    tags, intents, states = log(root)
    # As the crash left it: never half-applied.
    if step == "decision.before_commit":
        assert (user, agent) == twins["before"] and intents == [] and states == []
    elif step in ("decision.committed", "apply.user_mid_txn"):
        assert user == twins["before"][0] and agent == twins["applied"][1]
        assert tags == [] and intents == [("apply", "pending")] and states == ["pending"]
    elif step == "apply.user_committed":
        assert (user, agent) == twins["applied"]
        assert tags == [f"brainview:{pid}"] and intents == [("apply", "pending")]
    else:
        assert (user, agent) == twins["applied"] and intents == [("apply", "done")]
    outcomes = recover(root)
    expected = {
        "decision.before_commit": [],
        "decision.committed": ["done"],
        "apply.user_mid_txn": ["done"],
        "apply.user_committed": ["already"],
        "apply.done": [],
    }[step]
    assert [o.state for o in outcomes] == expected
    final = twins["before"] if step == "decision.before_commit" else twins["applied"]
    assert state(root) == final
    tags, intents, states = log(root)
    if step != "decision.before_commit":
        assert tags == [f"brainview:{pid}"] and intents == [("apply", "done")]
        assert states == ["applied"]
    assert recover(root) == []  # idempotent


@pytest.mark.parametrize("step", MERGE_REVERT_STEPS)
def test_kill_during_undo_of_an_applied_decision_then_recover(
    tmp_path: Path, twins: dict[str, Any], step: str
) -> None:
    root = tmp_path / "proj"
    copy_project(twins["applied_root"], root)
    pid, decision = twins["pid"], twins["decision"]
    assert run_child(root, pid, step, decision, fsrs_math.format_ts(LATER)) == -signal.SIGKILL
    user, agent = state(root)
    _tags, intents, _states = log(root)
    if step == "revert.before_commit":
        assert (user, agent) == twins["applied"] and intents == [("apply", "done")]
    elif step in ("revert.agent_committed", "revert.user_mid_txn"):
        assert user == twins["applied"][0] and agent == twins["reverted"][1]
        assert intents == [("apply", "done"), ("revert", "pending")]
    elif step == "revert.user_committed":
        assert (user, agent) == twins["reverted"]
        assert intents == [("apply", "done"), ("revert", "pending")]
    outcomes = recover(root)
    assert len(outcomes) == (0 if step in ("revert.before_commit", "revert.done") else 1)
    tags, intents, states = log(root)
    if step == "revert.before_commit":
        assert state(root) == twins["applied"] and states == ["applied"]
        with Project.locate(root, write_agent=True, write_user=True) as p:
            review.undo(p, decision, now=LATER, actor="bob")  # the undo can simply be redone
    assert state(root) == twins["reverted"]
    tags, intents, states = log(root)
    assert tags == [f"brainview:{pid}", f"brainview:undo:{pid}"]
    assert intents == [("apply", "done"), ("revert", "done")] and states == ["reverted"]


def test_every_step_is_covered() -> None:
    assert list(STEPS) == ACCEPT_STEPS + REVERT_STEPS


class _Crash(Exception):
    """Stands in for a crash between two steps (the on-disk state is the same)."""


def test_recover_rolls_back_when_the_user_brain_changed_before_restart(
    make_demo: Any, twins: dict[str, Any]
) -> None:
    root, _info = make_demo()
    pid = twins["pid"]

    def crash(step: str) -> None:
        if step == "decision.committed":
            raise _Crash(step)

    hooks.set_step_hook(crash)
    try:
        with pytest.raises(_Crash):
            accept_here(root, pid)
    finally:
        hooks.set_step_hook(None)
    agent = sqlite3.connect(root / ".spikuit" / "agent" / "circuit.db")
    (params,) = agent.execute(
        "SELECT params_json FROM brainview_proposal WHERE id = ?", (pid,)
    ).fetchone()
    agent.close()
    survivor = json.loads(params)["keep"]
    conn = sqlite3.connect(root / ".spikuit" / "circuit.db")  # spkt edits it meanwhile
    conn.execute("UPDATE neuron SET content = 'edited by spkt' WHERE id = ?", (survivor,))
    conn.commit()
    conn.close()
    outcomes = recover(root)
    assert [o.state for o in outcomes] == ["rolled_back"] and "changed" in outcomes[0].note
    user, agent_rows = state(root)
    assert agent_rows == twins["before"][1]  # grades, spikes, cards, proposal: as before
    tags, intents, states = log(root)
    assert tags == [] and intents == [("apply", "rolled_back")] and states == ["rolled_back"]
