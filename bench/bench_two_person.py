"""Benchmark: what the two-person rule costs one decision at the session's door.

Builds a demo project and queues ``2 × (warmup + runs)`` note proposals (each
consulting three live reflections).  Half are decided by a session with the rule off;
the other half by a session with the rule on for ``note`` after ``first`` accepted them
all (held votes), so every such decide is the second person's accept: the plan read
(the users-file check, the proposals' kinds and standing votes) before the write and
the vote re-read inside the decision's transaction.  The two sides run interleaved,
alternating which goes first, so a busy machine slows both alike.

Prints one JSON line: wall-clock and CPU (``time.thread_time``) medians in ms, their
ratios (on / off), and the median of per-pair ratios; the target is a ratio ≤ 1.25.

    python bench/bench_two_person.py [--runs 60] [--warmup 5]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from brainview.config import Config, TwoPersonConfig
from brainview.core import fsrs_math
from brainview.demo.generator import DEMO_NOW, DemoSpec, build_project
from brainview.services import intake
from brainview.services.project import Project
from brainview.services.session import Session
from brainview.store.discovery import discover

TARGET = 1.25


def queue(root: Path, n: int) -> list[str]:
    info = build_project(root, DemoSpec())
    users = [u for u in info.user_ids if u not in set(info.retired_user_ids)]
    bad = set(info.adversarial_ids) | set(info.superseded_ids)
    theme = [r for r in max(info.themes.values(), key=len) if r not in bad]
    proposals = [
        {
            "id": f"tp-{k:04d}",
            "kind": "note",
            "params": {"neurons": [users[k % len(users)]]},
            "rationale": "bench: a second pair of eyes",
            "consulted": [{"reflection": r, "stance": "support"} for r in theme[k % 4 : k % 4 + 3]],
            "created_at": fsrs_math.format_ts(DEMO_NOW),
        }
        for k in range(n)
    ]
    with Project.locate(root, write_agent=True) as project:
        intake.submit(project, proposals, source="bench", now=DEMO_NOW)
    return [p["id"] for p in proposals]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=60)
    ap.add_argument("--warmup", type=int, default=5)
    args = ap.parse_args()
    total = args.runs + args.warmup
    base = Path(tempfile.mkdtemp(prefix="bench-two-person-"))
    try:
        root = base / "proj"
        ids = queue(root, 2 * total)
        off_ids, on_ids = ids[0::2], ids[1::2]
        paths = discover(root)
        rule = TwoPersonConfig(enabled=True, rules=["note"])
        clock = lambda: DEMO_NOW  # noqa: E731
        with Session(
            paths=paths, config=Config(two_person=rule), clock=clock, decider="first"
        ) as s:
            held = s.decide(on_ids, "accept")
        assert all(r.apply_state == "held" for r in held)
        off_cfg = Config(two_person=TwoPersonConfig(enabled=False))
        off = Session(paths=paths, config=off_cfg, clock=clock, decider="second")
        on = Session(paths=paths, config=Config(two_person=rule), clock=clock, decider="second")
        wall: dict[str, list[float]] = {"off": [], "on": []}
        cpu: dict[str, list[float]] = {"off": [], "on": []}
        pairs: list[float] = []
        for k in range(total):
            order = [("off", off, off_ids[k]), ("on", on, on_ids[k])]
            if k % 2:
                order.reverse()
            took: dict[str, float] = {}
            for side, session, pid in order:
                w0, c0 = time.perf_counter(), time.thread_time()
                result = session.decide([pid], "accept")
                w1, c1 = time.perf_counter(), time.thread_time()
                assert result[0].apply_state != "held", (side, pid)
                if k >= args.warmup:
                    wall[side].append(w1 - w0)
                    cpu[side].append(c1 - c0)
                    took[side] = w1 - w0
            if took:
                pairs.append(took["on"] / took["off"])
        off.close()
        on.close()
    finally:
        shutil.rmtree(base, ignore_errors=True)
    med = {k: statistics.median(v) * 1e3 for k, v in wall.items()}
    cmed = {k: statistics.median(v) * 1e3 for k, v in cpu.items()}
    ratio = med["on"] / med["off"]
    out = {
        "bench": "two_person",
        "runs": args.runs,
        "wall_ms": {k: round(v, 2) for k, v in med.items()},
        "cpu_ms": {k: round(v, 2) for k, v in cmed.items()},
        "ratio": round(ratio, 3),
        "cpu_ratio": round(cmed["on"] / cmed["off"], 3),
        "pair_ratio_median": round(statistics.median(pairs), 3),
        "target": TARGET,
        "met": statistics.median(pairs) <= TARGET,
    }
    print(json.dumps(out))
    return 0 if out["met"] else 1


if __name__ == "__main__":
    sys.exit(main())
