"""Benchmark: recall latency on the 100k-reflection agent brain (issue 16: p95 ≤ 30 ms warm).

On a copy of the ``agent100k`` project (100,005 reflections, 20,000 user neurons; made
with SQLite's backup API, since logged recalls write to it) and a fresh recall cache:

- **cold**: the first recall of a process on an empty cache builds the whole index
  (tokenising every lesson, postings, references), then answers; timed end to end,
  ``--cold-runs`` times (each with a new cache directory and new handles);
- **warm**: the labelled queries of ``bench_recall_quality.py`` (drafts, text with
  ``--ref``, free text), in the same process with the index built — the way an MCP
  server calls it — logging on and ``log=False`` interleaved query by query; p50/p95
  per side over every call, wall clock and this thread's CPU time (on a shared machine
  the difference is mostly waiting for a core);
- **after a write**: another connection commits one new lesson before each recall
  (the index notices and syncs, then answers): what a recall costs right after the
  curator or a decision wrote the agent brain (``syncs`` counts how each sync went);
- **CLI**: wall time of one ``brainview recall PATH --text … --ref … --json`` process
  (warm cache on disk), with and without ``--no-log``; and, for reference, of one real
  ``spkt retrieve … --json`` on the same agent brain (it loads the whole graph first).

Prints one JSON object.  Timings are medians and percentiles over this run only.

    python bench/bench_recall.py [--size agent100k] [--rounds 3] [--cold-runs 2] [--spkt-runs 2]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from common import brain_info, copy_project, installed_env, interleave, wall

from brainview.demo.generator import DEMO_NOW
from brainview.demo.recall_labels import build_cases
from brainview.services.project import Project
from brainview.services.recall import recall
from brainview.store.connect import connect
from brainview.store.discovery import discover
from brainview.store.recall_handle import close_all

BIN = Path(sys.executable).parent
REPO = Path(__file__).resolve().parents[1]


def pct(values: list[float], p: float) -> float:
    """The p-th percentile (nearest rank), in ms."""
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, round(p / 100 * len(ordered) + 0.5) - 1))
    return round(ordered[k] * 1000, 2)


def summary(values: list[float]) -> dict[str, float]:
    return {
        "n": len(values),
        "p50_ms": pct(values, 50),
        "p95_ms": pct(values, 95),
        "max_ms": round(max(values) * 1000, 2),
        "mean_ms": round(statistics.fmean(values) * 1000, 2),
    }


def timed(project: Project, query, log: bool, cpu: list[float] | None = None) -> float:  # type: ignore[no-untyped-def]
    """Wall seconds of one recall (its CPU seconds appended to ``cpu``)."""
    c, t = time.thread_time(), time.perf_counter()
    res = recall(project, query, now=DEMO_NOW, log=log)
    wall = time.perf_counter() - t
    if cpu is not None:
        cpu.append(time.thread_time() - c)
    SYNCS[res.index["sync"]] = SYNCS.get(res.index["sync"], 0) + 1
    return wall


SYNCS: dict[str, int] = {}
"""How each timed recall found the index (current / incremental / full)."""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default="agent100k")
    ap.add_argument("--rounds", type=int, default=3, help="passes over the query set")
    ap.add_argument("--cold-runs", type=int, default=2)
    ap.add_argument("--cli-runs", type=int, default=5)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--spkt-runs", type=int, default=2, help="spkt retrieve CLI runs (0: none)")
    args = ap.parse_args()
    root, info = brain_info(args.size)
    out: dict[str, object] = {"bench": "recall_latency", "size": args.size}
    with tempfile.TemporaryDirectory(prefix="bv-recall-lat-") as tmp:
        copy = copy_project(root, Path(tmp) / "p")
        cases = build_cases(copy, info["themes"], seed=args.seed, per_family=5)
        queries = [c.query(10) for c in cases]
        out["queries"] = len(queries)
        cold = []
        for k in range(args.cold_runs):
            close_all()
            os.environ["XDG_CACHE_HOME"] = str(Path(tmp) / f"xdg-cold-{k}")
            with Project.open(discover(copy), write_agent=True) as project:
                t = time.perf_counter()
                res = recall(project, queries[0], now=DEMO_NOW, log=False)
                cold.append(time.perf_counter() - t)
                assert res.index["sync"] != "current", res.index  # built from empty
                docs = res.index["docs"]
        out["cold_first_recall_s"] = {
            "median": round(statistics.median(cold), 2),
            "all": [round(c, 2) for c in cold],
            "docs_indexed": docs,
        }
        with Project.open(discover(copy), write_agent=True) as project:
            for q in queries[:5]:  # warm-up: imports, page cache, handle
                recall(project, q, now=DEMO_NOW, log=False)
            logged: list[float] = []
            unlogged: list[float] = []
            cpu: dict[bool, list[float]] = {True: [], False: []}
            for r in range(args.rounds):
                for i, q in enumerate(queries):
                    first, second = (True, False) if (i + r) % 2 == 0 else (False, True)
                    for log in (first, second):
                        (logged if log else unlogged).append(timed(project, q, log, cpu[log]))
            out["warm_logged"] = summary(logged) | {"cpu": summary(cpu[True])}
            out["warm_no_log"] = summary(unlogged) | {"cpu": summary(cpu[False])}
            out["warm_syncs"] = dict(SYNCS)
            SYNCS.clear()
            out["target_p95_le_30ms"] = out["warm_logged"]["p95_ms"] <= 30  # type: ignore[index]
            writer = connect(copy / ".spikuit" / "agent" / "circuit.db", write=True, timeout=30)
            after: list[float] = []
            for k, q in enumerate(queries[:20]):
                stamp = DEMO_NOW.isoformat()
                writer.execute("BEGIN IMMEDIATE")
                writer.execute(
                    "INSERT INTO neuron (id, content, type, domain, created_at, updated_at) "
                    "VALUES (?, ?, 'reflection', 'curator', ?, ?)",
                    (f"r-bench-{k}", f"bench lesson {k} about merging notes", stamp, stamp),
                )
                writer.execute("COMMIT")
                after.append(timed(project, q, True))
            writer.close()
            out["after_foreign_write"] = summary(after) | {"syncs": dict(SYNCS)}
        close_all()
        env = installed_env() | {
            "PYTHONPATH": str(REPO),
            "XDG_CACHE_HOME": os.environ["XDG_CACHE_HOME"],
        }
        case = next(c for c in cases if c.style == "text+refs")
        cmd = [str(BIN / "brainview"), "recall", str(copy), "--text", case.prose]
        for ref in case.refs:
            cmd += ["--ref", ref]
        sides = {
            "logged": wall([*cmd, "--json"], env=env),
            "no_log": wall([*cmd, "--no-log", "--json"], env=env),
            "python -c pass": wall([sys.executable, "-c", "pass"], env=env),
        }
        sides["logged"]()  # warm the bytecode cache and the index on disk
        got = interleave(sides, args.cli_runs)
        out["cli_wall_s"] = {
            k: {m: round(v, 3) if isinstance(v, float) else v for m, v in s.items()}
            for k, s in got.items()
        }
        if args.spkt_runs:
            with tempfile.TemporaryDirectory(prefix="bv-spkt-") as sroot:
                os.symlink(copy / ".spikuit" / "agent", Path(sroot) / ".spikuit")
                query = case.words(ids=True)
                spkt = wall([str(BIN / "spkt"), "retrieve", query, "--json", "--brain", sroot])
                runs = [spkt() for _ in range(args.spkt_runs)]
            out["spkt_retrieve_wall_s"] = {
                "median": round(statistics.median(runs), 2),
                "n": len(runs),
            }
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
