"""Clustering 100k reflections: brainview vs igraph multilevel (same graph) vs spkt.

Sides, interleaved and compared by median in one run (targets in quality.md):

* algorithm: ``core.clustering.detect`` (igraph Leiden + canonical numbering +
  modularity) vs ``igraph.community_multilevel`` on the same folded graph (target ≤ 1.5×);
* end to end, in process: brainview's ``compute`` (fingerprint + bulk read + fold +
  detect + policies) vs a plain reference (sqlite3 read + dict mapping + multilevel);
* end to end as the UI runs it: ``ClusteringJob`` in a child process (spawn, imports,
  JSON result) — the cost of keeping the UI responsive;
* ``spkt community detect`` on a copy of the same brain (target: brainview ≥ 10× faster);
* UI responsiveness: the longest gap between 20 ms timer ticks of a headless Textual app
  while the clustering runs in a thread (in process) vs in a child process.

Run: ``python bench/bench_clustering.py [--runs 5] [--spkt-runs 1]``.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import igraph
import numpy as np
from common import SIZES, brain, copy_brain, interleave

from brainview.core import clustering
from brainview.demo.generator import DemoSpec
from brainview.services.communities.runner import ClusteringJob, compute, read_graph
from brainview.store.brain import open_brain

SIZES["clust100k"] = DemoSpec(user_neurons=2_000, reflections=100_000, proposals=0, seed=5)
SPKT = Path(sys.executable).with_name("spkt")


def timed(fn) -> float:  # type: ignore[no-untyped-def]
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def reference_end_to_end(db: Path) -> None:
    """What a plain implementation does: read with sqlite3, map ids, igraph multilevel."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    ids = [
        r[0]
        for r in conn.execute(
            "SELECT id FROM neuron WHERE type = 'reflection' AND retired_at IS NULL ORDER BY id"
        )
    ]
    index = {rid: k for k, rid in enumerate(ids)}
    edges, weights = [], []
    for pre, post, w in conn.execute(
        "SELECT pre, post, weight FROM synapse WHERE retired_at IS NULL AND type != 'summarizes'"
    ):
        a, b = index.get(pre), index.get(post)
        if a is not None and b is not None and a != b:
            edges.append((a, b))
            weights.append(w)
    conn.close()
    igraph.Graph(n=len(ids), edges=edges, directed=False).community_multilevel(weights=weights)


def spkt_side(agent_db: Path, work: Path):  # type: ignore[no-untyped-def]
    """A fresh copy of the agent brain as a Spikuit project, then ``spkt community detect``."""
    root = work / "spkt"

    def run() -> float:
        shutil.rmtree(root, ignore_errors=True)
        (root / ".spikuit").mkdir(parents=True)
        copy_brain(agent_db, root / ".spikuit" / "circuit.db")
        (root / ".spikuit" / "config.toml").write_text('[brain]\nname = "agent-copy"\n')
        t = time.perf_counter()
        subprocess.run(
            [str(SPKT), "community", "detect", "--brain", str(root), "--json"],
            check=True,
            capture_output=True,
        )
        return time.perf_counter() - t

    return run


UI_PROBE = """
import json, sys, time
from pathlib import Path
from textual.app import App
from brainview.services.communities.runner import ClusteringJob


class Probe(App):
    def on_mount(self):
        self.ticks = []
        self.span = (0.0, 0.0)
        self.set_interval(0.02, lambda: self.ticks.append(time.perf_counter()))
        self.run_worker(self.cluster, thread=True)

    def cluster(self):
        start = time.perf_counter()
        ClusteringJob(Path(sys.argv[1]), now_iso="x", in_process=sys.argv[2] == "thread").run()
        self.span = (start, time.perf_counter())
        self.call_from_thread(self.exit)


app = Probe()
app.run(headless=True, size=(80, 24))
start, end = app.span
ticks = [start] + [t for t in app.ticks if start <= t <= end] + [end]
gaps = [b - a for a, b in zip(ticks, ticks[1:])]
print(json.dumps({"max_gap_s": round(max(gaps), 3), "run_s": round(end - start, 2)}))
"""


def ui_gap(agent_db: Path, mode: str) -> dict[str, float]:
    """Longest gap between 20 ms UI ticks while clustering (``thread`` or ``child``)."""
    out = subprocess.run(
        [sys.executable, "-c", UI_PROBE, str(agent_db), mode],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--spkt-runs", type=int, default=1, help="0 skips spkt")
    args = ap.parse_args()
    root = brain("clust100k")
    db = root / ".spikuit" / "agent" / "circuit.db"
    agent = open_brain(db, "agent")
    with agent.read() as conn:
        graph = read_graph(conn, agent.era)
    edges = clustering.collapse_edges(graph.pre, graph.post, graph.weight)
    n = len(graph.ids)
    pairs = np.column_stack((edges.a, edges.b))

    def multilevel() -> None:
        g = igraph.Graph(n=n, edges=pairs, directed=False)
        igraph.set_random_number_generator(random.Random(clustering.SEED))
        g.community_multilevel(weights=edges.w.tolist())
        igraph.set_random_number_generator(random)

    algo = interleave(
        {
            "brainview detect (Leiden)": lambda: timed(lambda: clustering.detect(n, edges)),
            "igraph multilevel": lambda: timed(multilevel),
        },
        args.runs,
    )
    e2e = interleave(
        {
            "brainview compute (in process)": lambda: timed(lambda: compute(agent, now_iso="x")),
            "brainview ClusteringJob (child process)": lambda: timed(
                lambda: ClusteringJob(db, now_iso="x", in_process=False).run()
            ),
            "reference sqlite3 + multilevel": lambda: timed(lambda: reference_end_to_end(db)),
        },
        args.runs,
    )
    part = compute(agent, now_iso="x")
    agent.dispose()
    result: dict[str, object] = {
        "bench": "clustering",
        "reflections": n,
        "synapse_rows": int(graph.pre.size),
        "links": len(edges),
        "communities": part.n_communities,
        "modularity": round(part.modularity, 4),
        "algorithm": algo,
        "algorithm_ratio": round(
            algo["brainview detect (Leiden)"]["median"] / algo["igraph multilevel"]["median"], 2
        ),
        "end_to_end": e2e,
        "end_to_end_ratio": round(
            e2e["brainview compute (in process)"]["median"]
            / e2e["reference sqlite3 + multilevel"]["median"],
            2,
        ),
        "target_ratio": 1.5,
        "ui_max_gap": {"thread": ui_gap(db, "thread"), "child": ui_gap(db, "child")},
    }
    if args.spkt_runs and SPKT.exists():
        with tempfile.TemporaryDirectory() as work:
            spkt = interleave({"spkt community detect": spkt_side(db, Path(work))}, args.spkt_runs)
        result["spkt"] = spkt
        child = e2e["brainview ClusteringJob (child process)"]["median"]
        result["speedup_vs_spkt"] = round(spkt["spkt community detect"]["median"] / child, 1)
        result["target_speedup"] = 10
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
