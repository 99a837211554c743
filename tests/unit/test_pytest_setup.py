"""The suite's own ergonomics: ``pytest --collect-only -q`` says how many tests."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_collect_only_quiet_prints_the_total() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "tests/unit/test_pytest_setup.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    assert out.strip().splitlines()[-1] == "1 test collected"
