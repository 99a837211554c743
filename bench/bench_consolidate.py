"""Planning an agent-brain consolidation: ``brainview reflect consolidate --dry-run``
vs ``spkt consolidate --json`` on the same agent brain, and how it grows with size.

Both are the console scripts a user types.  spkt plans SHY (every synapse decayed) and
triage only (no embedder: no SWS/REM); brainview plans triage, SWS, SHY and REM,
with community detection when the cached partition is stale.  Each run gets a fresh
copy of the agent brain (not timed): spkt migrates what it opens, and brainview's
cache must not make later runs cheaper.  For sizes in ``--spkt-sizes`` the two run
interleaved and the medians are compared; other sizes run brainview only.  A last
line times queueing the plan (``reflect consolidate`` without ``--dry-run``) once per
size.  One JSON line per measurement.

    python bench/bench_consolidate.py [--sizes demo,20k,large] [--spkt-sizes demo,20k]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import brain, copy_brain, copy_project, installed_env, interleave

BIN = Path(sys.executable).parent
ENV = {**installed_env(), "BRAINVIEW_NOW": "2026-11-30T09:00:00+00:00"}


def _fresh(root: Path, scratch: Path, spikuit_layout: bool) -> Path:
    """A copy of the project (brainview) or of the agent brain as a project (spkt),
    through SQLite's backup API (:func:`common.copy_brain`)."""
    copy = scratch / "p"
    shutil.rmtree(copy, ignore_errors=True)
    if spikuit_layout:  # the agent brain alone, as a Spikuit project
        copy_brain(root / ".spikuit" / "agent" / "circuit.db", copy / ".spikuit" / "circuit.db")
        config = root / ".spikuit" / "agent" / "config.toml"
        if config.exists():
            (copy / ".spikuit" / "config.toml").write_text(config.read_text())
        return copy
    return copy_project(root, copy)


def _timed(cmd: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True, stdin=subprocess.DEVNULL, env=ENV)
    return time.perf_counter() - t


def ours(root: Path, scratch: Path, *, dry_run: bool = True):  # type: ignore[no-untyped-def]
    def run() -> float:
        copy = _fresh(root, scratch, spikuit_layout=False)
        flags = ["--dry-run"] if dry_run else []
        return _timed(
            [str(BIN / "brainview"), "reflect", "consolidate", "-C", str(copy), *flags, "--json"]
        )  # noqa: E501

    return run


QUEUE_TARGET_S = 4.0
QUEUE_TARGET_MB = 200.0
"""quality.md, round two: plan + queue at 100k reflections (the large pair)."""

_PEAK = (
    "import resource, subprocess, sys, time\n"
    "t = time.perf_counter()\n"
    "subprocess.run(sys.argv[1:], check=True, capture_output=True, stdin=subprocess.DEVNULL)\n"
    "print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
)


def queue_run(root: Path, scratch: Path, size: str) -> dict[str, object]:
    """One ``reflect consolidate`` (plan + queue) on a fresh copy, run under a small
    wrapper process whose only child it is, so the child's peak RSS is its own."""
    copy = _fresh(root, scratch, spikuit_layout=False)
    cmd = [str(BIN / "brainview"), "reflect", "consolidate", "-C", str(copy), "--json"]
    out = subprocess.run(
        [sys.executable, "-c", _PEAK, *cmd], check=True, capture_output=True, text=True, env=ENV
    ).stdout.split()
    secs, peak_mb = float(out[0]), int(out[1]) / 1024
    row: dict[str, object] = {
        "bench": "consolidate-queue", "size": size, "seconds": round(secs, 3),
        "peak_rss_mb": round(peak_mb, 1),
    }  # fmt: skip
    if size == "large":
        row |= {"target_s": QUEUE_TARGET_S, "target_mb": QUEUE_TARGET_MB}
        row["met"] = secs <= QUEUE_TARGET_S and peak_mb <= QUEUE_TARGET_MB
    return row


def theirs(root: Path, scratch: Path):  # type: ignore[no-untyped-def]
    def run() -> float:
        copy = _fresh(root, scratch, spikuit_layout=True)
        return _timed([str(BIN / "spkt"), "consolidate", "--json", "--brain", str(copy)])

    return run


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="demo,20k", help="comma-separated: demo,20k,large")
    ap.add_argument("--spkt-sizes", default="demo,20k", help="sizes that also run spkt")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    with_spkt = set(args.spkt_sizes.split(","))
    scratch = Path(tempfile.mkdtemp())
    try:
        for size in args.sizes.split(","):
            root = brain(size)
            sides = {"brainview reflect consolidate --dry-run": ours(root, scratch)}
            if size in with_spkt:
                sides["spkt consolidate --json"] = theirs(root, scratch)
            res = interleave(sides, args.runs)
            out: dict[str, object] = {"bench": "consolidate", "size": size, "runs": args.runs}
            for name, stats in res.items():
                out[name] = stats
            if len(res) == 2:
                a, b = (res[k]["median"] for k in sides)
                out["ratio"] = round(a / b, 3)
            print(json.dumps(out), flush=True)
            print(json.dumps(queue_run(root, scratch, size)), flush=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
