"""Accept + apply of a big domain rename, and its undo, against raw sqlite3 (issue 21).

For each size a user brain is built once by the demo generator (five domains of equal
size: ``--sizes 20k,50k,200k`` are the neurons of the renamed domain, so the brain
holds five times that) and cached under ``--cache`` (default ``/tmp``) with one
pending ``rename_domain`` proposal queued through intake.  Each run works on a fresh
copy (SQLite's backup API) and times, each in its own child process (imports
excluded, printed by the child):

* **ours**: ``review.decide(accept)`` with the user-brain applier — stale check, the
  streamed plan (every row read and digested, its chunks stored with the intent), the
  decision, then the user-brain apply (rows + one ``neuron.update`` event each + the
  changeset), then ``review.undo`` of that decision on the same copy;
* **raw**: one hand-written sqlite3 transaction doing the same user-brain writes —
  the events built by SQLite itself (``json_object`` snapshots, no digest, no agent
  brain, no checks), ``UPDATE neuron SET domain = ? WHERE domain = ?``, the changeset
  — then its undo (the ids back from the event log, the inverse events).

Each child reports wall time, CPU time (``process_time``) and its peak RSS
(``ru_maxrss``, imports included).  The machine is shared: CPU seconds are the steadier
figure.  One JSON line per size; ``--base DIR`` adds a "before" side run with another
tree first on ``PYTHONPATH`` (e.g. a ``git archive`` of the commit before).

    python bench/bench_apply_stream.py [--sizes 20k,50k,200k] [--runs 1] [--base DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import copy_project, installed_env

from brainview.demo.generator import DEMO_NOW, DemoSpec, build_project

HERE = Path(__file__).resolve().parent
SIZES = {"20k": 20_000, "50k": 50_000, "200k": 200_000}
DOMAIN = "math"
PROPOSAL = "bench-rename"

CHILD = r"""
import json, resource, sys, time
root, what = sys.argv[1], sys.argv[2]
from datetime import timedelta
from fsrs import Scheduler
from brainview.demo.generator import DEMO_NOW
from brainview.services import apply, review
from brainview.services.project import Project
now = DEMO_NOW + timedelta(minutes=5)
t0, c0 = time.perf_counter(), time.process_time()
with Project.locate(root, write_agent=True, write_user=True) as p:
    if what == "accept":
        r = review.decide(p, sys.argv[3], "accept", decider="bench", now=now,
                          scheduler=Scheduler(enable_fuzzing=False),
                          applier=apply.applier_for(p.paths))
        out = {"decision": r.decision_id, "apply_state": r.apply_state}
    else:
        u = review.undo(p, sys.argv[3], now=now + timedelta(minutes=1), actor="bench")
        out = {"rows": u.user_rows_restored}
out.update(wall=time.perf_counter() - t0, cpu=time.process_time() - c0,
           rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
print(json.dumps(out))
"""

RAW = r"""
import json, resource, sqlite3, sys, time
db, what, old, new = sys.argv[1:5]
t0, c0 = time.perf_counter(), time.process_time()
conn = sqlite3.connect(db, isolation_level=None, timeout=30)
conn.execute("PRAGMA journal_mode=WAL")
snap = ("json_object('id',n.id,'content',n.content,'type',n.type,'domain',{d},"
        "'source',n.source,'created_at',n.created_at,'updated_at',n.updated_at)")
cs = "cs_raw" + what
conn.execute("BEGIN IMMEDIATE")
if what == "apply":
    conn.execute(
        "INSERT INTO event (id, changeset_id, seq, op, target_kind, target_id, before_json, "
        f"after_json, at) SELECT 'ev_' || lower(hex(randomblob(6))), ?, "
        "row_number() OVER (ORDER BY n.rowid) - 1, 'neuron.update', 'neuron', n.id, "
        f"{snap.format(d='n.domain')}, {snap.format(d='?')}, '2026-11-30T09:05:00+00:00' "
        "FROM neuron n WHERE n.domain = ? ORDER BY n.rowid", (cs, new, old))
    conn.execute("UPDATE neuron SET domain = ? WHERE domain = ?", (new, old))
else:
    conn.execute("CREATE TEMP TABLE moved AS SELECT target_id AS id, seq FROM event "
                 "WHERE changeset_id = 'cs_rawapply'")
    conn.execute(
        "INSERT INTO event (id, changeset_id, seq, op, target_kind, target_id, before_json, "
        f"after_json, at) SELECT 'ev_' || lower(hex(randomblob(6))), ?, "
        "row_number() OVER (ORDER BY m.seq DESC) - 1, 'neuron.update', 'neuron', n.id, "
        f"{snap.format(d='n.domain')}, {snap.format(d='?')}, '2026-11-30T09:06:00+00:00' "
        "FROM moved m JOIN neuron n ON n.id = m.id ORDER BY m.seq DESC", (cs, old))
    conn.execute("UPDATE neuron SET domain = ? WHERE id IN (SELECT id FROM moved)", (old,))
conn.execute("INSERT INTO changeset (id, tag, actor_id, actor_kind, started_at, committed_at, "
             "status) VALUES (?, 'raw', 'bench', 'human', '2026-11-30T09:05:00+00:00', "
             "'2026-11-30T09:05:00+00:00', 'committed')", (cs,))
conn.execute("COMMIT")
conn.close()
print(json.dumps({"wall": time.perf_counter() - t0, "cpu": time.process_time() - c0,
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def prepared(size: str, cache: Path) -> Path:
    """The cached project for ``size`` with the rename proposal queued (built once)."""
    root = cache / f"apply-{size}"
    if (root / ".ready").exists():
        return root
    shutil.rmtree(root, ignore_errors=True)
    t = time.perf_counter()
    spec = DemoSpec(
        user_neurons=5 * SIZES[size], reflections=200, proposals=0, seed=5, spiked_fraction=0.1
    )
    build_project(root, spec)
    from brainview.services import intake
    from brainview.services.project import Project

    proposal = {
        "id": PROPOSAL,
        "kind": "rename_domain",
        "params": {"old": DOMAIN, "new": f"{DOMAIN}-notes"},
        "rationale": "bench: a big rename",
    }
    with Project.locate(root, write_agent=True) as project:
        intake.submit(project, [proposal], source="bench", now=DEMO_NOW)
    (root / ".ready").write_text("ok")
    print(f"# built {size} in {time.perf_counter() - t:.0f}s", file=sys.stderr)
    return root


def child(code: str, args: list[str], pythonpath: str) -> dict[str, object]:
    env = {**installed_env(), "PYTHONPATH": pythonpath}
    done = subprocess.run(  # cwd: not a tree (``-c`` puts the cwd first on sys.path)
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        cwd=tempfile.gettempdir(),
    )
    if done.returncode != 0:
        raise RuntimeError(done.stderr.strip().splitlines()[-1] if done.stderr else "failed")
    return json.loads(done.stdout.strip().splitlines()[-1])


def run_ours(src: Path, work: Path, tree: str) -> dict[str, object]:
    shutil.rmtree(work, ignore_errors=True)
    copy_project(src, work)
    accept = child(CHILD, [str(work), "accept", PROPOSAL], tree)
    undo = child(CHILD, [str(work), "undo", str(accept["decision"])], tree)
    return {"accept": accept, "undo": undo}


def run_raw(src: Path, work: Path) -> dict[str, object]:
    shutil.rmtree(work, ignore_errors=True)
    copy_project(src, work)
    db = str(work / ".spikuit" / "circuit.db")
    new = f"{DOMAIN}-notes"
    return {
        "accept": child(RAW, [db, "apply", DOMAIN, new], ""),
        "undo": child(RAW, [db, "undo", DOMAIN, new], ""),
    }


def _med(runs: list[dict[str, object]], phase: str, key: str) -> float:
    return round(statistics.median(float(r[phase][key]) for r in runs), 3)  # type: ignore[index]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="20k,50k,200k")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--cache", type=Path, default=Path("/tmp") / "brainview-bench-apply")
    ap.add_argument("--base", type=Path, default=None, help="a 'before' tree to run too")
    args = ap.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    tree = str(HERE.parent)
    for size in [s for s in args.sizes.split(",") if s]:
        src = prepared(size, args.cache)
        work = args.cache / f"work-{size}"
        sides: dict[str, list[dict[str, object]]] = {"ours": [], "raw": []}
        if args.base is not None:
            sides["before"] = []
        for _ in range(args.runs):
            sides["ours"].append(run_ours(src, work, tree))
            sides["raw"].append(run_raw(src, work))
            if args.base is not None:
                sides["before"].append(run_ours(src, work, str(args.base)))
        shutil.rmtree(work, ignore_errors=True)
        out: dict[str, object] = {"bench": "apply_stream", "size": size, "runs": args.runs}
        for side, runs in sides.items():
            for phase in ("accept", "undo"):
                for key in ("wall", "cpu", "rss_mb"):
                    out[f"{side}_{phase}_{key}"] = _med(runs, phase, key)
        for phase in ("accept", "undo"):
            out[f"ratio_{phase}_wall"] = round(
                float(out[f"ours_{phase}_wall"]) / float(out[f"raw_{phase}_wall"]), 2
            )
            out[f"ratio_{phase}_cpu"] = round(
                float(out[f"ours_{phase}_cpu"]) / max(float(out[f"raw_{phase}_cpu"]), 1e-3), 2
            )
        out["rows"] = sides["ours"][0]["undo"]["rows"]  # type: ignore[index]
        print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    raise SystemExit(main())
