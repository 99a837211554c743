"""A brain with corrupt pages is bad input like any other: one line, exit 8
(``not_a_brain``) — never ``internal error`` (recall reads the brain through its own
connections, which now translate SQLite's errors like every other read)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from test_cli import agent_db, cli

from brainview.errors import ExitCode


def corrupt(db: Path) -> None:
    """Overwrite pages in the middle of the file (no connection of ours is open)."""
    conn = sqlite3.connect(db)
    try:
        conn.execute("PRAGMA journal_mode=DELETE").fetchall()
    finally:
        conn.close()
    size = db.stat().st_size
    with open(db, "r+b") as f:  # the test plants the damage; brainview never does this
        f.seek(size // 2)
        f.write(bytes(range(256)) * 64)


@pytest.mark.parametrize("argv", [("recall", "--text", "merge duplicates", "--no-log")])
def test_a_corrupt_agent_brain_is_exit_8_in_one_line(demo, argv: tuple[str, ...]) -> None:  # type: ignore[no-untyped-def]
    root, _info = demo
    corrupt(agent_db(root))
    out = cli(*argv, "-C", str(root))
    assert out.returncode == ExitCode.NOT_A_BRAIN, out.stderr
    assert len(out.stderr.strip().splitlines()) == 1 and "internal" not in out.stderr
