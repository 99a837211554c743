"""Arms side by side over seeds: the results every table and figure is made from.

Results are plain JSON (``--results FILE`` stores them, ``--from-results FILE`` redraws
the report without running again)::

    {"config": {...}, "seeds": [1, 2, ...], "arms": {"on": {"label": "...",
     "runs": [ArmRun.to_json(), ...]}, ...}, "seconds": 123.4}
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import fields
from time import perf_counter
from typing import Any

from brainview.sim.arms import Arm, SimConfig
from brainview.sim.run import run_arm

Progress = Callable[[str], None]


def run_all(
    arms: Sequence[Arm], seeds: Sequence[int], cfg: SimConfig, progress: Progress | None = None
) -> dict[str, Any]:
    """Run every arm for every seed (seed-major, so a stopped run still pairs arms)."""
    started = perf_counter()
    out: dict[str, Any] = {
        "config": cfg.to_json(),
        "seeds": list(seeds),
        "arms": {a.name: {"label": a.label, "runs": []} for a in arms},
    }
    for seed in seeds:
        for arm in arms:
            run = run_arm(arm, seed, cfg)
            out["arms"][arm.name]["runs"].append(run.to_json())
            if progress is not None:
                progress(f"seed {seed} · {arm.name}: {run.seconds:.1f} s")
    out["seconds"] = round(perf_counter() - started, 1)
    return out


def config_of(results: dict[str, Any]) -> SimConfig:
    """The :class:`SimConfig` stored with results."""
    known = {f.name for f in fields(SimConfig)}
    return SimConfig(**{k: v for k, v in results["config"].items() if k in known})


def acceptance_over(run: dict[str, Any]) -> float | None:
    """Acceptance of a run's curator proposals over all its weeks."""
    acc = sum(w["accepted"] for w in run["weeks"])
    rej = sum(w["rejected"] for w in run["weeks"])
    return acc / (acc + rej) if acc + rej else None
