"""``brainview learnings import`` on large trees of similar entries (issue 28).

Two shapes of ``corrections.md``, N lines each, written deterministically:

* ``repeats`` — every line rewords one of a few lessons (Jaccard ≥ 0.5 with its first
  wording): each is linked to that wording, whose group grows to thousands of links;
* ``near`` — lines share common words with many others but stay below the threshold:
  every line is a lesson of its own, and a naive search compares it with all of them.

Each run imports a fresh copy of the tree into empty brains (``--init``) in a child
process, so the figure is what a user waits for.  ``--src`` runs another checkout (its
``brainview`` package first on ``PYTHONPATH``), for a before/after in the same run.

    python bench/bench_learnings_import.py [--sizes 1000,2000,10000] [--src OLD_CHECKOUT]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TIMEOUT_S = 120.0
VOCAB = [f"term{i}" for i in range(400)]
LESSONS = [
    "forgot to run the tests → run pytest before every commit",
    "wrote prose for a list → answer in bullet points",
    "used npm in this repo → the project uses pnpm",
    "guessed the timezone → timestamps are UTC everywhere",
]


def lines(shape: str, n: int, seed: int = 5) -> bytes:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        day = f"2026-{1 + i % 11:02d}-{1 + i % 28:02d}"
        if shape == "repeats":
            text = f"{LESSONS[i % len(LESSONS)]} again (case {rng.randrange(10**6)})"
        else:  # shares "deploy" and "staging" with every line, Jaccard far below 0.5
            text = "deploy staging " + " ".join(rng.sample(VOCAB, 4)) + f" → fix{i} item{i}"
        out.append(f"- [{day}] {text}\n")
    return "".join(out).encode()


def run_once(src: Path, shape: str, n: int) -> float | None:
    """Seconds for one import (``None``: over :data:`TIMEOUT_S`)."""
    with tempfile.TemporaryDirectory(prefix="bv-limport-") as tmp:
        root = Path(tmp) / "ws" / ".learnings"
        root.mkdir(parents=True)
        (root / "HOT.md").write_bytes(b"# HOT\n")
        (root / "corrections.md").write_bytes(lines(shape, n))
        env = {**os.environ, "PYTHONPATH": str(src), "BRAINVIEW_NOW": "2026-12-01T00:00:00Z"}
        cmd = [sys.executable, "-m", "brainview", "learnings", "import", str(root), "--init"]
        start = time.perf_counter()
        try:
            done = subprocess.run(  # cwd: not a checkout, which ``-m`` would put first
                cmd, env=env, cwd=tmp, capture_output=True, timeout=TIMEOUT_S, text=True
            )
        except subprocess.TimeoutExpired:
            return None
        took = time.perf_counter() - start
        if done.returncode != 0:
            raise SystemExit(f"import failed ({src}): {done.stderr.strip()}")
        shutil.rmtree(root, ignore_errors=True)
        return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,2000,10000")
    parser.add_argument("--shapes", default="repeats,near")
    parser.add_argument("--src", type=Path, help="another checkout to time beside this one")
    args = parser.parse_args()
    here = Path(__file__).resolve().parent.parent
    sides = {"this": here, **({"other": args.src.resolve()} if args.src else {})}
    print(f"{'shape':<8} {'lines':>6} " + " ".join(f"{k:>10}" for k in sides))
    for shape in args.shapes.split(","):
        for n in (int(x) for x in args.sizes.split(",")):
            cells = []
            for src in sides.values():  # interleaved: the sides share the machine's state
                took = run_once(src, shape, n)
                cells.append(f"> {TIMEOUT_S:.0f} s" if took is None else f"{took:.2f} s")
            print(f"{shape:<8} {n:>6} " + " ".join(f"{c:>10}" for c in cells), flush=True)


if __name__ == "__main__":
    main()
