"""Warm recall latency on a copy of a cached project, one tree per process (issue 28).

Run it with ``PYTHONPATH`` naming the tree to measure (an older one exported with
``git archive``), alternating trees in one session::

    PYTHONPATH=/tmp/base python bench/bench_recall_before_after.py bench/.cache/20k
    PYTHONPATH=.         python bench/bench_recall_before_after.py bench/.cache/20k

60 recalls with ``log=False`` then 60 logged, back to back in one process (an MCP
server's pattern); prints p50/p95 in ms as one JSON line.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

QUERIES = [
    "merge duplicate neurons keywords overlap",
    "link requires extends example",
    "retire neuron pitfalls",
    "rename domain systems",
    "edit content mnemonic",
]


def copy_project(src: Path) -> Path:
    """The project's brains copied with SQLite's backup API (never as files)."""
    tmp = Path(tempfile.mkdtemp(prefix="bv-recall-ab-"))
    for rel in (".spikuit/circuit.db", ".spikuit/agent/circuit.db"):
        (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
        a, b = sqlite3.connect(src / rel), sqlite3.connect(tmp / rel)
        try:
            a.backup(b)
        finally:
            a.close()
            b.close()
    for rel in (".spikuit/config.toml", ".spikuit/agent/config.toml"):
        if (src / rel).exists():
            shutil.copy(src / rel, tmp / rel)
    return tmp


def main(src: Path) -> dict[str, dict[str, float]]:
    tmp = copy_project(src)
    os.environ["XDG_CACHE_HOME"] = str(tmp / "cache")
    from brainview.demo.generator import DEMO_NOW
    from brainview.services.project import Project
    from brainview.services.recall import recall
    from brainview.services.recall.result import RecallQuery

    out: dict[str, dict[str, float]] = {}
    with Project.locate(tmp, write_agent=True) as p:
        recall(p, RecallQuery(text="warm up"), now=DEMO_NOW, log=False)
        for log in (False, True):
            took = []
            for i in range(60):
                started = time.perf_counter()
                recall(p, RecallQuery(text=QUERIES[i % 5]), now=DEMO_NOW, log=log)
                took.append((time.perf_counter() - started) * 1000)
            took.sort()
            out["log" if log else "nolog"] = {"p50": round(took[30], 1), "p95": round(took[56], 1)}
    shutil.rmtree(tmp, ignore_errors=True)
    return out


if __name__ == "__main__":
    print(json.dumps(main(Path(sys.argv[1]))))
