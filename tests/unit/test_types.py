"""mypy over brainview/ (settings in pyproject's [tool.mypy], unused ignores reported) is clean."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_mypy_is_clean_over_brainview() -> None:
    # One clean run: no cache read (faster than filling a fresh one) and none written, so
    # nothing lands inside the checkout.
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--cache-dir", "/dev/null", "brainview"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout[-20000:] + done.stderr
    assert "Success: no issues found" in done.stdout
