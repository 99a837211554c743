"""Scrolling the reflection list: keyset pages vs a raw sqlite3 page vs a full load.

The app has no 100k-row list widget (the triage queue shows proposals, 200 a page),
so this measures the read a virtualised list would make, on the agent brain:

* ``page_neurons`` (``store.readmodel``), first page and a page 90 % of the way down,
  vs the same keyset query by hand with raw ``sqlite3`` (the floor), interleaved;
* walking the *whole* list page by page, keeping only the current page: time and the
  growth of peak RSS (bounded memory means it does not grow with the list);
* for contrast, loading every live reflection at once (``fetchall``): time and RSS;
* ``brainview reflect list --limit 50 --json`` (the CLI's keyset page), wall time.

Each in-process part runs in a fresh child so RSS figures do not mix.  One JSON line
per size.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from common import brain, installed_env, interleave, wall

PAGE = 100

CHILD_PAGES = """
import json, resource, sqlite3, statistics, sys, time
from brainview.services.project import Project
from brainview.store.readmodel import page_neurons

def rss():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

runs, page = int(sys.argv[2]), int(sys.argv[3])
with Project.locate(sys.argv[1]) as project:
    agent = project.agent
    raw = sqlite3.connect(f"file:{agent.path}?mode=ro", uri=True)
    sql = ("SELECT id, content, type, domain, created_at, updated_at, retired_at, "
           "community_id FROM neuron WHERE +retired_at IS NULL AND +type = 'reflection' "
           "AND id > ? ORDER BY id LIMIT ?")
    with agent.read() as conn:
        t = time.perf_counter()
        first = page_neurons(conn, agent.era, limit=page, type_="reflection")
        cold = time.perf_counter() - t
        n_live = raw.execute("SELECT COUNT(*) FROM neuron WHERE type = 'reflection' "
                             "AND retired_at IS NULL").fetchone()[0]
        deep = raw.execute("SELECT id FROM neuron WHERE +type = 'reflection' AND "
                           "+retired_at IS NULL ORDER BY id LIMIT 1 OFFSET ?",
                           (max(0, int(n_live * 0.9)),)).fetchone()[0]
        samples = {"ours_first": [], "raw_first": [], "ours_deep": [], "raw_deep": []}
        for _ in range(runs):
            for name, fn in (
                ("ours_first", lambda: page_neurons(conn, agent.era, limit=page,
                                                    type_="reflection")),
                ("raw_first", lambda: raw.execute(sql, ("", page)).fetchall()),
                ("ours_deep", lambda: page_neurons(conn, agent.era, after=deep, limit=page,
                                                   type_="reflection")),
                ("raw_deep", lambda: raw.execute(sql, (deep, page)).fetchall()),
            ):
                t = time.perf_counter()
                fn()
                samples[name].append(time.perf_counter() - t)
        before = rss()
        t = time.perf_counter()
        after, seen = None, 0
        while True:
            rows = page_neurons(conn, agent.era, after=after, limit=page, type_="reflection")
            if not rows:
                break
            seen += len(rows)
            after = rows[-1].id
        walk = time.perf_counter() - t
        grown = rss() - before
print(json.dumps({
    "reflections": n_live, "first_page_cold_ms": cold * 1e3,
    **{k + "_ms": statistics.median(v) * 1e3 for k, v in samples.items()},
    **{k + "_ms_min_max": [min(v) * 1e3, max(v) * 1e3] for k, v in samples.items()},
    "walk_all_pages_s": walk, "walked": seen, "walk_rss_growth_mb": grown,
    "rss_mb": rss(),
}))
"""

CHILD_FULL = """
import json, resource, sqlite3, sys, time
path = sys.argv[1]
raw = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
t = time.perf_counter()
rows = raw.execute("SELECT id, content, type, domain, created_at, updated_at, retired_at, "
                   "community_id FROM neuron WHERE type = 'reflection' AND "
                   "retired_at IS NULL ORDER BY id").fetchall()
secs = time.perf_counter() - t
grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 - before
print(json.dumps({"full_load_s": secs, "full_load_rss_growth_mb": grown, "rows": len(rows)}))
"""


def child(code: str, *args: str) -> dict[str, object]:
    out = subprocess.run(
        [sys.executable, "-c", code, *args],
        check=True,
        capture_output=True,
        text=True,
        env=installed_env(),
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="demo,20k,large")
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--cli-runs", type=int, default=5)
    args = ap.parse_args()
    cli = str(Path(sys.executable).with_name("brainview"))
    for size in args.sizes.split(","):
        root = brain(size)
        res: dict[str, object] = {"bench": "scroll", "size": size, "page": PAGE}
        res |= child(CHILD_PAGES, str(root), str(args.runs), str(PAGE))
        res |= child(CHILD_FULL, str(root / ".spikuit" / "agent" / "circuit.db"))
        cmd = [cli, "reflect", "list", "-C", str(root), "--limit", "50", "--json"]
        side = wall(cmd, env=installed_env())
        side()  # warm
        res["cli"] = interleave({"brainview reflect list --limit 50": side}, args.cli_runs)
        res["ratio_first_page_vs_raw"] = round(
            float(res["ours_first_ms"]) / float(res["raw_first_ms"]),
            2,  # type: ignore[arg-type]
        )
        print(json.dumps(res), flush=True)


if __name__ == "__main__":
    main()
