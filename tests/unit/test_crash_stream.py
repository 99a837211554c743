"""SIGKILL at every step of a *streamed* apply (a domain rename big enough to take
several chunks) and of its undo — between two chunks included — then ``recover``:
both brains end as after an uninterrupted run (or no run at all), never half-renamed.

The pattern of ``test_crash_recovery.py``: a child process accepts (or undoes) with a
step hook that kills it at the chosen step (``step#n``: at its n-th announcement);
the brains are checked as the crash left them, recovered, and compared with a twin
on which the same decision ran without a crash.  The child lowers the streaming
threshold and the chunk size, so a 3,000-neuron demo brain streams ≈600 rows in four
chunks; recovery runs in this process with the chunk size recorded in the plan.
"""

from __future__ import annotations

import shutil
import signal
from pathlib import Path
from typing import Any

import pytest
from test_crash_recovery import LATER, NOW, accept_here, log, recover, run_child, state

from brainview.core import fsrs_math
from brainview.demo.generator import DemoSpec
from brainview.services import intake, review
from brainview.services.apply import stream_plan
from brainview.services.apply.hooks import STEPS
from brainview.services.project import Project

SPEC = DemoSpec(user_neurons=3_000, reflections=60, proposals=0, seed=3)
PID = "p-rename"


def streamed_state(root: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """:func:`state` without the chunk rows (audit, like the intents)."""
    user, agent = state(root)
    agent.pop("brainview_apply_chunk", None)
    return user, agent


def _queue(root: Path) -> None:
    with Project.locate(root, write_agent=True) as p:
        params = {"old": "math", "new": "mathematics"}
        intake.submit(p, [{"id": PID, "kind": "rename_domain", "params": params}], now=NOW)


@pytest.fixture
def project_of(make_demo: Any) -> Any:
    def make(name: str) -> Path:
        root, _ = make_demo(SPEC, name=name)
        _queue(root)
        return root

    return make


@pytest.fixture
def twins(project_of: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The brain before the accept, after it, and after its undo (no crash)."""
    monkeypatch.setattr(stream_plan, "STREAM_MIN_LIVE", 100)
    monkeypatch.setattr(stream_plan, "CHUNK_ROWS", 150)
    root = project_of("reference")
    before = streamed_state(root)
    decision = accept_here(root, PID)
    applied = streamed_state(root)
    shutil.copytree(root, tmp_path / "applied")
    with Project.locate(root, write_agent=True, write_user=True) as p:
        result = review.undo(p, decision, now=LATER, actor="bob")
    assert result.user_rows_restored > 3 * 150  # several chunks
    return {
        "before": before,
        "applied": applied,
        "reverted": streamed_state(root),
        "applied_root": tmp_path / "applied",
        "decision": decision,
    }


ACCEPT = [s for s in STEPS if s.startswith(("decision.", "apply."))]
REVERT = [s for s in STEPS if s.startswith("revert.")]
MID = ("decision.committed", "apply.user_chunk#1", "apply.user_chunk#3", "apply.user_mid_txn")


@pytest.mark.parametrize("step", [*ACCEPT, "apply.user_chunk#3"])
def test_kill_during_a_streamed_accept_then_recover(
    project_of: Any, twins: dict[str, Any], step: str
) -> None:
    root = project_of("proj")
    assert run_child(root, PID, step, "-", fsrs_math.format_ts(NOW), stream=True) == -signal.SIGKILL
    user, agent = streamed_state(root)
    tags, intents, states = log(root)
    if step == "decision.before_commit":
        assert (user, agent) == twins["before"] and intents == [] and states == []
    elif step in MID or step == "apply.user_chunk":  # the user brain: not one row renamed
        assert user == twins["before"][0] and agent == twins["applied"][1]
        assert tags == [] and intents == [("apply", "pending")] and states == ["pending"]
    elif step == "apply.user_committed":
        assert (user, agent) == twins["applied"] and intents == [("apply", "pending")]
    else:
        assert (user, agent) == twins["applied"] and intents == [("apply", "done")]
    outcomes = recover(root)
    expected = {"decision.before_commit": [], "apply.user_committed": ["already"]}
    assert [o.state for o in outcomes] == expected.get(
        step, [] if step == "apply.done" else ["done"]
    )
    final = twins["before"] if step == "decision.before_commit" else twins["applied"]
    assert streamed_state(root) == final
    if step != "decision.before_commit":
        tags, intents, states = log(root)
        assert tags == [f"brainview:{PID}"] and intents == [("apply", "done")]
        assert states == ["applied"]
    assert recover(root) == []  # idempotent


@pytest.mark.parametrize("step", [*REVERT, "revert.user_chunk#3"])
def test_kill_during_a_streamed_undo_then_recover(
    tmp_path: Path, twins: dict[str, Any], step: str
) -> None:
    root = tmp_path / "proj"
    shutil.copytree(twins["applied_root"], root)
    decision = twins["decision"]
    assert (
        run_child(root, PID, step, decision, fsrs_math.format_ts(LATER), stream=True)
        == -signal.SIGKILL
    )
    user, agent = streamed_state(root)
    _tags, intents, _states = log(root)
    if step == "revert.before_commit":
        assert (user, agent) == twins["applied"] and intents == [("apply", "done")]
    elif step in ("revert.agent_committed", "revert.user_mid_txn") or "chunk" in step:
        assert user == twins["applied"][0] and agent == twins["reverted"][1]
        assert intents == [("apply", "done"), ("revert", "pending")]
    elif step == "revert.user_committed":
        assert (user, agent) == twins["reverted"]
    outcomes = recover(root)
    assert len(outcomes) == (0 if step in ("revert.before_commit", "revert.done") else 1)
    if step == "revert.before_commit":
        with Project.locate(root, write_agent=True, write_user=True) as p:
            review.undo(p, decision, now=LATER, actor="bob")
    assert streamed_state(root) == twins["reverted"]
    tags, intents, states = log(root)
    assert tags == [f"brainview:{PID}", f"brainview:undo:{PID}"]
    assert intents == [("apply", "done"), ("revert", "done")] and states == ["reverted"]
