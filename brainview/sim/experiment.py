"""Arms side by side over seeds: the results every table and figure is made from.

Results are plain JSON (``--results FILE`` stores them, ``--from-results FILE`` redraws
the report without running again)::

    {"config": {...}, "seeds": [1, 2, ...], "arms": {"on": {"label": "...",
     "runs": [ArmRun.to_json(), ...]}, ...}, "seconds": 123.4}
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import fields
from time import perf_counter
from typing import Any

from brainview.sim.arms import Arm, SimConfig
from brainview.sim.run import run_arm
from brainview.sim.week import ArmRun

Progress = Callable[[str], None]


def jobs_default() -> int:
    """Worker processes: ``BRAINVIEW_SIM_JOBS``, else one per core up to two."""
    given = os.environ.get("BRAINVIEW_SIM_JOBS", "")
    if given.isdigit() and int(given) > 0:
        return int(given)
    return max(1, min(2, os.cpu_count() or 1))


def run_all(
    arms: Sequence[Arm],
    seeds: Sequence[int],
    cfg: SimConfig,
    progress: Progress | None = None,
    jobs: int | None = None,
) -> dict[str, Any]:
    """Run every arm for every seed (seed-major, so a stopped run still pairs arms).

    Runs are independent (each in its own project, with its own seeded ids), so they
    go to ``jobs`` worker processes; the results are gathered in the same order and
    are the same as one process's."""
    started = perf_counter()
    out: dict[str, Any] = {
        "config": cfg.to_json(),
        "seeds": list(seeds),
        "arms": {a.name: {"label": a.label, "runs": []} for a in arms},
    }
    tasks = [(seed, arm) for seed in seeds for arm in arms]
    workers = jobs if jobs is not None else jobs_default()
    if workers <= 1 or len(tasks) < 4:
        runs: Iterator[ArmRun] = (run_arm(arm, seed, cfg) for seed, arm in tasks)
        _gather(out, tasks, runs, progress)
    else:
        ctx = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
            futures = [pool.submit(run_arm, arm, seed, cfg) for seed, arm in tasks]
            _gather(out, tasks, (f.result() for f in futures), progress)
    out["seconds"] = round(perf_counter() - started, 1)
    return out


def _gather(
    out: dict[str, Any],
    tasks: list[tuple[int, Arm]],
    runs: Iterator[ArmRun],
    progress: Progress | None,
) -> None:
    for (seed, arm), run in zip(tasks, runs, strict=True):
        out["arms"][arm.name]["runs"].append(run.to_json())
        if progress is not None:
            progress(f"seed {seed} · {arm.name}: {run.seconds:.1f} s")


def config_of(results: dict[str, Any]) -> SimConfig:
    """The :class:`SimConfig` stored with results."""
    known = {f.name for f in fields(SimConfig)}
    return SimConfig(**{k: v for k, v in results["config"].items() if k in known})


def acceptance_over(run: dict[str, Any]) -> float | None:
    """Acceptance of a run's curator proposals over all its weeks."""
    acc = sum(w["accepted"] for w in run["weeks"])
    rej = sum(w["rejected"] for w in run["weeks"])
    return acc / (acc + rej) if acc + rej else None
