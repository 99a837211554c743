"""One command of this tree against the same command of an older tree, interleaved.

On a shared, busy machine wall times drift too much to compare runs of different days;
this runs both trees in one session, alternating, and reports wall and CPU seconds of
each child.  The older tree is an export of a commit::

    mkdir /tmp/base && git archive bad7711 brainview | tar -x -C /tmp/base
    python bench/bench_before_after.py --base /tmp/base --size large stats
    python bench/bench_before_after.py --base /tmp/base --size large --runs 2 consolidate

``stats`` runs ``brainview stats PATH --json`` on the cached brain (read-only);
``consolidate`` runs ``brainview reflect consolidate -C COPY --json`` (plan + queue) on a
fresh copy of the project each run (SQLite backup API, not timed) with its own
community cache.  One JSON line per tree.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import brain, copy_project, installed_env

HERE = Path(__file__).resolve().parent


def _child(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(  # cwd: not a tree (``-m`` puts the cwd first on sys.path, before
        # PYTHONPATH: run from a checkout, "before" would import the checkout's package)
        cmd,
        env=env,
        check=True,
        capture_output=True,
        stdin=subprocess.DEVNULL,
        cwd="/",
    )
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("work", choices=("stats", "consolidate"))
    ap.add_argument("--base", type=Path, required=True, help="the older tree (holds brainview/)")
    ap.add_argument("--size", default="large")
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    root = brain(args.size)
    trees = {"before": args.base.resolve(), "after": HERE.parent}
    samples: dict[str, list[tuple[float, float]]] = {k: [] for k in trees}
    scratch = Path(tempfile.mkdtemp())
    try:
        for _ in range(args.runs):
            for side, tree in trees.items():
                env = {**installed_env(), "PYTHONPATH": str(tree)}
                env["BRAINVIEW_NOW"] = "2026-11-30T09:00:00+00:00"
                cli = [sys.executable, "-m", "brainview.cli"]
                if args.work == "stats":
                    cmd = [*cli, "stats", str(root), "--json"]
                else:
                    shutil.rmtree(scratch / "p", ignore_errors=True)
                    copy = copy_project(root, scratch / "p")
                    env["XDG_CACHE_HOME"] = str(scratch / f"xdg-{side}")
                    shutil.rmtree(env["XDG_CACHE_HOME"], ignore_errors=True)
                    cmd = [*cli, "reflect", "consolidate", "-C", str(copy), "--json"]
                samples[side].append(_child(cmd, env))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    for side, rows in samples.items():
        walls, cpus = [w for w, _c in rows], [c for _w, c in rows]
        out = {
            "bench": f"before-after-{args.work}", "size": args.size, "side": side,
            "tree": str(trees[side]), "runs": args.runs,
            "wall_median": round(statistics.median(walls), 3),
            "wall": [round(w, 2) for w in walls], "cpu": [round(c, 2) for c in cpus],
        }  # fmt: skip
        print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
