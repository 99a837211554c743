"""Warm recall latency on a copy of a cached project, one tree per process (issue 28).

Run it with ``PYTHONPATH`` naming the tree to measure (an older one exported with
``git archive``), alternating trees in one session::

    PYTHONPATH=/tmp/base python bench/bench_recall_before_after.py bench/.cache/20k
    PYTHONPATH=.         python bench/bench_recall_before_after.py bench/.cache/20k

60 recalls with ``log=False`` then 60 logged, back to back in one process (an MCP
server's pattern); prints p50/p95 in ms as one JSON line.
"""

import json, statistics, sys, time, shutil, tempfile, sqlite3
from pathlib import Path

src = Path(sys.argv[1])
tmp = Path(tempfile.mkdtemp())
# copy the project with SQLite's backup API
for rel in (".spikuit/circuit.db", ".spikuit/agent/circuit.db"):
    (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
    a, b = sqlite3.connect(src / rel), sqlite3.connect(tmp / rel)
    a.backup(b)
    a.close()
    b.close()
for rel in (".spikuit/config.toml", ".spikuit/agent/config.toml"):
    if (src / rel).exists():
        shutil.copy(src / rel, tmp / rel)
import os

os.environ["XDG_CACHE_HOME"] = str(tmp / "cache")
from brainview.services.project import Project
from brainview.services.recall import recall
from brainview.services.recall.result import RecallQuery
from brainview.demo.generator import DEMO_NOW

queries = [
    "merge duplicate neurons keywords overlap",
    "link requires extends example",
    "retire neuron pitfalls",
    "rename domain systems",
    "edit content mnemonic",
]
out = {}
with Project.locate(tmp, write_agent=True) as p:
    recall(p, RecallQuery(text="warm up"), now=DEMO_NOW, log=False)
    for log in (False, True):
        t = []
        for i in range(60):
            q = RecallQuery(text=queries[i % 5])
            s = time.perf_counter()
            recall(p, q, now=DEMO_NOW, log=log)
            t.append((time.perf_counter() - s) * 1000)
        t.sort()
        out["log" if log else "nolog"] = {"p50": round(t[30], 1), "p95": round(t[56], 1)}
print(json.dumps(out))
