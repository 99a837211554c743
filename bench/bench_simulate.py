"""A 12-week run of one simulation arm at demo scale: ≤ 60 s on the 2-core machine.

The target of the efficacy issue (docs/efficacy.md): one arm, twelve simulated weeks,
the demo's 300-neuron user brain, 20 drafts a week — every draft recalled, submitted
through intake and decided through the real decision path, a consolidation a week.
The arm with the most work per week is ``on`` (recall, rewrites, consolidation); the
poisoned arms add one injection and, at most, an investigation.  One JSON line per
run; exit 1 when the slowest run misses the target.

    python bench/bench_simulate.py [--arm on] [--weeks 12] [--runs 2] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from brainview.sim.arms import ARMS, CHECKS, SimConfig  # noqa: E402
from brainview.sim.run import run_arm  # noqa: E402

TARGET_S = 60.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arm", default="on", choices=[*ARMS, *CHECKS])
    ap.add_argument("--weeks", type=int, default=12)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    arm = {**ARMS, **CHECKS}[args.arm]
    cfg = SimConfig(weeks=args.weeks)
    worst = 0.0
    for k in range(args.runs):
        run = run_arm(arm, args.seed + k, cfg)
        drafts = sum(w.drafts for w in run.weeks)
        decided = sum(w.accepted + w.rejected + w.items for w in run.weeks)
        worst = max(worst, run.seconds)
        print(json.dumps({
            "bench": "simulate", "arm": args.arm, "weeks": args.weeks, "seed": args.seed + k,
            "user_neurons": cfg.user_neurons, "drafts": drafts, "decisions": decided,
            "seconds": run.seconds, "target_s": TARGET_S, "ratio": round(run.seconds / TARGET_S, 2),
        }), flush=True)  # fmt: skip
    return 0 if worst <= TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
