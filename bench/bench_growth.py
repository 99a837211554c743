"""How the cost of each read grows with brain size (in process, warm page cache).

For each size, the median (and min–max) of the reads the overview, the triage
screen and ``brainview stats`` make, timed in one process after one warm-up call:

* ``counts`` of the user brain (vital signs: live/retired, per domain, per type);
* ``retention`` of the user and agent brains (stride sample of cards);
* the staleness check of every pending proposal in one batch (``stale_for``);
* one triage queue page (200 rows, with staleness and suspicion);
* a keyset page of 100 user neurons (``page_neurons``);
* ``project_stats`` (everything ``brainview stats`` computes but agent metrics).

One JSON line per size; a read whose cost followed the brain would grow ×50 from
20k to large.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable

from common import brain
from sqlalchemy import text

from brainview.demo.generator import DEMO_NOW
from brainview.services.apply.stale import QueuedRef, stale_for
from brainview.services.metrics import stats
from brainview.services.metrics.retention import retention
from brainview.services.project import Project
from brainview.services.review import queue
from brainview.store.readmodel import counts, page_neurons


def timed(fn: Callable[[], object], runs: int) -> dict[str, float]:
    fn()  # warm-up
    samples = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t) * 1e3)
    return {
        "median_ms": round(statistics.median(samples), 2),
        "min_ms": round(min(samples), 2),
        "max_ms": round(max(samples), 2),
    }


def measure(project: Project, runs: int) -> dict[str, object]:
    agent = project.require_agent()
    with agent.read() as conn:
        pending = [
            QueuedRef(*r)
            for r in conn.execute(
                text(
                    "SELECT id, kind, params_json, created_at FROM brainview_proposal "
                    "WHERE status = 'pending'"
                )
            )
        ]

    def user_counts() -> None:
        with project.user.read() as conn:
            counts(conn, project.user.era)

    def stale_all_pending() -> None:
        with agent.read() as conn:
            stale_for(project, pending, agent_conn=conn)

    def keyset_page() -> None:
        with project.user.read() as conn:
            page_neurons(conn, project.user.era, limit=100)

    with project.user.read() as conn:
        size = counts(conn, project.user.era)
    return {
        "user_neurons": size.live + size.retired,
        "user_synapses": size.synapses + size.synapses_retired,
        "reflections": stats.agent_extra(agent)["reflections"],
        "pending": len(pending),
        "counts(user)": timed(user_counts, runs),
        "retention(user)": timed(lambda: retention(project.user, DEMO_NOW), runs),
        "retention(agent)": timed(lambda: retention(agent, DEMO_NOW), runs),
        "stale_for(all pending)": timed(stale_all_pending, runs),
        "queue.page(200)": timed(lambda: queue.page(project, limit=200), runs),
        "page_neurons(user, 100)": timed(keyset_page, runs),
        "project_stats": timed(lambda: stats.project_stats(project), runs),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="demo,20k,large")
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    for size in args.sizes.split(","):
        with Project.locate(brain(size)) as project:
            res = measure(project, args.runs)
        print(json.dumps({"bench": "growth", "size": size, **res}), flush=True)


if __name__ == "__main__":
    main()
