"""Planning an agent-brain consolidation: ``brainview reflect consolidate --dry-run``
vs ``spkt consolidate --json`` on the same agent brain, and how it grows with size.

Both are the console scripts a user types.  spkt plans SHY (every synapse decayed) and
triage only (no embedder: no SWS/REM); brainview plans triage, SWS, SHY and REM,
with community detection when the cached partition is stale.  Each run gets a fresh
copy of the agent brain (not timed): spkt migrates what it opens, and brainview's
cache must not make later runs cheaper.  For sizes in ``--spkt-sizes`` the two run
interleaved and the medians are compared; other sizes run brainview only.  A last
line times queueing the plan (``reflect consolidate`` without ``--dry-run``) once per
size; for the 100k-reflection brains (``agent100k``, ``large``) a floor line gives what
the plan's unavoidable reads cost in raw sqlite3 and its imports.  One JSON line per
measurement.

    python bench/bench_consolidate.py [--sizes demo,20k,large] [--spkt-sizes demo,20k]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
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
    if size in ("large", "agent100k"):
        row |= {"target_s": QUEUE_TARGET_S, "target_mb": QUEUE_TARGET_MB}
        row["met"] = secs <= QUEUE_TARGET_S and peak_mb <= QUEUE_TARGET_MB
    return row


_FLOOR_SQL = {
    "live reflections": "SELECT id, domain, created_at FROM neuron WHERE type = 'reflection' "
    "AND retired_at IS NULL ORDER BY id",
    "spike aggregates (last fire, hot fires, last three)": "SELECT neuron_id, MAX(n), "
    "SUM(n >= '2026-11-23T09:00:00+00:00'), MAX(id), SUM(rn <= 3 AND grade = 1), SUM(rn <= 3) "
    "FROM (SELECT neuron_id, grade, id, n, ROW_NUMBER() OVER (PARTITION BY neuron_id ORDER BY "
    "n DESC, id DESC) AS rn FROM (SELECT neuron_id, grade, id, replace(replace(fired_at, ' ', "
    "'T'), 'Z', '+00:00') AS n FROM spike NOT INDEXED)) GROUP BY neuron_id",
    "cards (stability, last review)": "SELECT neuron_id, json_extract(card_json, '$.stability'), "
    "json_extract(card_json, '$.last_review') FROM fsrs_state WHERE json_valid(card_json) AND "
    "json_extract(card_json, '$.state') IS NOT 0",
    "weak links": "SELECT pre, post, type, weight FROM synapse WHERE type != 'summarizes' AND "
    "weight < 0.5 AND retired_at IS NULL ORDER BY pre, post, type",
    "texts (first 2,000 characters of every reflection)": "SELECT id, substr(content, 1, 2000) "
    "FROM neuron WHERE type = 'reflection' AND retired_at IS NULL",
    "graph aggregates": "SELECT COUNT(*), TOTAL(rowid), MAX(rowid), TOTAL(weight) FROM synapse "
    "WHERE retired_at IS NULL",
}


def floor(root: Path) -> dict[str, object]:
    """What the plan's reads cost in raw sqlite3 on the same agent brain (each statement
    fetched whole, once, warm cache), and what importing SQLAlchemy and numpy costs: the
    work a plan cannot skip, before any of its own Python."""
    db = root / ".spikuit" / "agent" / "circuit.db"
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    cpu: dict[str, float] = {}
    try:
        for name, sql in _FLOOR_SQL.items():
            conn.execute(sql).fetchall()  # warm the page cache
            t = time.process_time()
            rows = len(conn.execute(sql).fetchall())
            cpu[f"{name} ({rows:,} rows)"] = round(time.process_time() - t, 3)
    finally:
        conn.close()
    probe = (
        "import time; t = time.process_time(); import sqlalchemy, numpy; "
        "print(time.process_time() - t)"
    )
    imports = float(
        subprocess.run(
            [sys.executable, "-c", probe], check=True, capture_output=True, text=True, env=ENV
        ).stdout
    )
    total = sum(cpu.values()) + imports
    return {
        "bench": "consolidate-floor", "raw sqlite3 CPU s": cpu,
        "import sqlalchemy, numpy CPU s": round(imports, 3), "total CPU s": round(total, 3),
    }  # fmt: skip


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
            if size in ("large", "agent100k"):
                print(json.dumps({**floor(root), "size": size}), flush=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
