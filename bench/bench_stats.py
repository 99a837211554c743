"""``brainview stats --json`` vs ``spkt stats --json`` on the same 20k-neuron brain.

spkt writes to a brain it opens (migrations, WAL), so each spkt run gets a fresh
copy (the copy is not timed). Sides interleaved; medians reported.
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

from common import brain, interleave

SPKT = str(Path(sys.executable).with_name("spkt"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--size", default="20k")
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    root = brain(args.size)
    scratch = Path(tempfile.mkdtemp())

    def ours() -> float:
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "brainview", "stats", str(root), "--json"],
                       check=True, capture_output=True)
        return time.perf_counter() - t

    def theirs() -> float:
        copy = scratch / "p"
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(root / ".spikuit", copy / ".spikuit",
                        ignore=shutil.ignore_patterns("agent"))
        t = time.perf_counter()
        subprocess.run([SPKT, "stats", "--json", "--brain", str(copy)], check=True,
                       capture_output=True, stdin=subprocess.DEVNULL)
        return time.perf_counter() - t

    res = interleave({"spkt stats --json": theirs, "brainview stats --json": ours}, args.runs)
    shutil.rmtree(scratch, ignore_errors=True)
    speedup = res["spkt stats --json"]["median"] / res["brainview stats --json"]["median"]
    print(json.dumps({"bench": "stats", "size": args.size, "speedup": round(speedup, 2), **res}))


if __name__ == "__main__":
    main()
