"""Influence and suspicion on the 5k-reflection agent brain (``20k`` project): the
in-process cost of ``reflect list`` by id (the reference, same run), ``--sort
influence``, ``--suspicious`` and ``inspect``'s influence + signals, as medians and as
ratios to the reference.

    .venv/bin/python bench/bench_signals.py [--runs 5] [--size 20k]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import brain  # noqa: E402

from brainview.services.influence import page_by_influence, reflection_signals  # noqa: E402
from brainview.services.influence.suspects import suspects  # noqa: E402
from brainview.services.project import Project  # noqa: E402
from brainview.services.readout.reflections import page_reflections  # noqa: E402
from brainview.store.discovery import discover  # noqa: E402


def timed(fn: Callable[[], object], runs: int) -> float:
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return statistics.median(out)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--size", default="20k")
    args = ap.parse_args()
    root = brain(args.size)
    from datetime import UTC, datetime

    now = datetime.now(UTC)
    with Project.open(discover(root)) as p:
        with p.require_agent().read() as conn:
            n = conn.exec_driver_sql("SELECT count(*) FROM neuron").scalar()
        rid = page_by_influence(p, skill=None, status="live", after=None, limit=1)[0][0]
        sides = {
            "reflect list (id, 50)": lambda: page_reflections(p, now, limit=50),
            "reflect list --sort influence (50)": lambda: page_by_influence(
                p, skill=None, status="live", after=None, limit=50
            ),
            "inspect: influence + signals (top lesson)": lambda: reflection_signals(p, rid),
            "reflect list --suspicious (whole ranking)": lambda: suspects(p),
        }
        ref = None
        print(f"# {args.size}: {n} agent-brain neurons, median of {args.runs}")
        for name, fn in sides.items():
            t = timed(fn, args.runs)
            ref = ref or t
            print(f"{name:<45} {t * 1000:8.1f} ms  {t / ref:5.2f}x")
        print(f"# suspicious lessons: {len(suspects(p))}")


if __name__ == "__main__":
    main()
