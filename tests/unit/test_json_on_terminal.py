"""``--json`` is indented on a terminal and one compact line when piped; strict JSON
both ways."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path


def _on_a_terminal(argv: list[str]) -> str:
    """Run ``argv`` with stdout on a pseudo-terminal; what it wrote there."""
    leader, follower = pty.openpty()
    try:
        proc = subprocess.Popen(
            argv, stdout=follower, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL
        )
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal closed: the program ended
                break
            if not chunk:
                break
            chunks.append(chunk)
        assert proc.wait(timeout=120) == 0
    finally:
        os.close(leader)
    return b"".join(chunks).decode().replace("\r\n", "\n")


def test_stats_json_indented_on_a_terminal_compact_when_piped(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    argv = [sys.executable, "-m", "brainview", "stats", str(root), "--json"]
    shown = _on_a_terminal(argv)
    assert shown.count("\n") > 20 and '\n  "agent": {' in shown
    piped = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=True).stdout
    assert piped.count("\n") == 1
    assert json.loads(shown) == json.loads(piped)
    assert Path(root).is_dir()
