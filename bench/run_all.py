"""Run every benchmark of quality.md once, in order, and collect the results.

    python bench/run_all.py [--only first_paint,stats] [--out bench/.cache/results.jsonl]

Each bench runs as its own process (so one cannot warm another's caches in a way
the user would not see) and prints JSON; the results are appended, one object per
line, to ``--out`` with the command that produced them, and a summary is printed.
With the large brains already built (``bench/.cache``) the whole run takes about
5 minutes on the 2-core reference machine, plus ~15 for the two recall benches (the
100k-reflection agent brain they use is built once, ~3 min) and ~5 for the streamed
apply (its three brains, up to a 1M-neuron user brain with a 200k-neuron domain, are
built once under ``/tmp/brainview-bench-apply``, ~10 min); it is not part of the
unit-test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from common import CACHE

HERE = Path(__file__).resolve().parent
PY = sys.executable

BENCHES: dict[str, list[list[str]]] = {
    "first_paint": [
        [PY, "bench/bench_first_paint.py", "--size", size, "--runs", "7"]
        for size in ("demo", "20k", "large")
    ],
    "decide": [[PY, "bench/bench_decide.py", "--target", "1.4"]],
    "cli_help": [[PY, "bench/bench_cli_help.py"]],
    "stats": [[PY, "bench/bench_stats.py", "--sizes", "demo,20k,large", "--runs", "5"]],
    "growth": [[PY, "bench/bench_growth.py", "--sizes", "demo,20k,large"]],
    "scroll": [[PY, "bench/bench_scroll.py", "--sizes", "demo,20k,large"]],
    "memory": [
        [PY, "bench/bench_memory.py", "--size", "20k"],
        [PY, "bench/bench_memory.py", "--size", "large", "--deadline", "120"],
        [PY, "bench/bench_memory.py", "--size", "large", "--no-preview"],
    ],
    "triage_keys": [[PY, "bench/bench_triage_keys.py"]],
    "clustering": [[PY, "bench/bench_clustering.py"]],
    "consolidate": [
        [PY, "bench/bench_consolidate.py", "--sizes", "demo,20k,agent100k,large", "--runs", "3"]
    ],
    "intake": [[PY, "bench/bench_intake.py", "--size", "20k", "--runs", "3"]],
    "apply_stream": [[PY, "bench/bench_apply_stream.py", "--sizes", "20k,50k,200k"]],
    "simulate": [[PY, "bench/bench_simulate.py", "--arm", "on", "--weeks", "12", "--runs", "2"]],
    "recall": [[PY, "bench/bench_recall.py"]],
    "recall_quality": [[PY, "bench/bench_recall_quality.py", "--sizes", "demo,agent100k"]],
    "team": [
        [PY, "bench/bench_team.py", "--sessions", "10", "--decisions", "12"],
        [PY, "bench/bench_team.py", "--sessions", "10", "--decisions", "12", "--think", "1"]
        + ["--stress"],
    ],
}


def parse(stdout: str) -> list[dict]:
    """JSON objects printed by a bench: one per line, or one pretty-printed object."""
    text = stdout.strip()
    try:
        return [json.loads(text)]
    except json.JSONDecodeError:
        return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="", help="comma-separated bench names")
    ap.add_argument("--out", type=Path, default=CACHE / "results.jsonl")
    args = ap.parse_args()
    wanted = [b for b in args.only.split(",") if b] or list(BENCHES)
    root = HERE.parent
    env = {"PYTHONPATH": str(root)}
    start = time.perf_counter()
    failures = 0
    with args.out.open("a") as out:
        for name in wanted:
            for cmd in BENCHES[name]:
                shown = " ".join(["python", *cmd[1:]])
                t = time.perf_counter()
                proc = subprocess.run(
                    cmd, cwd=root, capture_output=True, text=True, env={**os.environ, **env}
                )
                secs = time.perf_counter() - t
                try:
                    results = parse(proc.stdout)
                except json.JSONDecodeError:
                    results = []
                # Benches exit 1 on a missed target, but a crash exits 1 too: a bench
                # that printed no result failed, whatever its exit code.
                if proc.returncode not in (0, 1) or not results:
                    failures += 1
                    print(f"✗ {shown} failed ({proc.returncode}): {proc.stderr[-500:]}")
                    continue
                for res in results:
                    out.write(json.dumps({"command": shown, "wall_s": round(secs, 1), **res}))
                    out.write("\n")
                    out.flush()  # a run cut short keeps what it measured
                    print(f"{shown}  [{secs:.0f} s]\n  {json.dumps(res)[:400]}", flush=True)
    print(f"total {time.perf_counter() - start:.0f} s; results appended to {args.out}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
