"""A brain, or one of its side files, named where brainview expects a plain file (a plan,
a policy text, an export target, proposal input) is refused before anything opens it
with ``open()`` (which would drop this process's SQLite locks) or replaces it."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from brainview.errors import ExitCode
from tests.unit.test_cli import cli, run


def digest(db: Path) -> str:
    conn = sqlite3.connect(db)
    try:
        rows = [repr(r) for r in conn.execute("SELECT * FROM neuron ORDER BY id")]
        return hashlib.sha256("\n".join(rows).encode()).hexdigest()
    finally:
        conn.close()


@pytest.mark.parametrize(
    "argv",
    [
        ["export", "decisions", "--format", "json", "--out", "{agent}"],
        ["propose", "--from-spkt-plan", "{user}"],
        ["propose", "{agent}-wal"],
    ],
    ids=["export-over-a-brain", "plan-is-a-brain", "input-is-a-wal"],
)
def test_a_brain_path_is_refused(demo, argv: list[str]) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    user, agent = root / ".spikuit" / "circuit.db", root / ".spikuit" / "agent" / "circuit.db"
    before = (digest(user), digest(agent), agent.stat().st_ino)
    args = [a.format(user=user, agent=agent) for a in argv]
    out = run(*args, "-C", str(root))
    assert out.returncode == ExitCode.INVALID_INPUT, out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    if "plan" not in argv[1]:  # a plan is read before any connection exists: any refusal
        assert "brain database file" in out.stderr
    assert (digest(user), digest(agent), agent.stat().st_ino) == before


def test_policy_text_from_an_open_brain_is_refused(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    agent = root / ".spikuit" / "agent" / "circuit.db"
    # in this process the brain is opened first (``cli`` runs in-process after ``list``)
    assert cli("proposals", "list", "-C", str(root)).returncode == 0
    out = cli("proposals", "accept", "x", "--policy-text", str(agent), "-C", str(root))
    assert out.returncode == ExitCode.INVALID_INPUT, out.stderr
