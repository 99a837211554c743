"""From runs to figures: weekly series per run, mean and spread over seeds, the targets.

Acceptance, MAC and policy emergence are read from brainview's own metrics
(:func:`brainview.services.metrics.agent_metrics`, as ``stats --json`` reports them):
acceptance of the ``curator`` skill per week, MAC as the median seconds of the curator
runtime's decisions per week (``by_runtime_week``; consolidation items are timed too but
are another runtime), policies accepted per week.  What needs the hidden ground truth
comes from the simulation's own counts: the repeated-mistake rate (rejections in a
mistake family already rejected earlier in the run, over the week's decided curator
proposals), seconds per accepted change, drafts dropped, good drafts lost.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from datetime import date
from typing import Any

from brainview.sim.curator import RUNTIME
from brainview.sim.run import START

SERIES: dict[str, str] = {
    "acceptance": "acceptance rate (curator proposals)",
    "repeated": "repeated-mistake rate",
    "mac": "MAC: median seconds per curator decision",
    "cost": "maintainer seconds per accepted change",
    "policies": "policies accepted",
    "accepted": "accepted changes",
    "good_lost": "good drafts dropped or rewritten (share)",
    "caught": "mistake drafts dropped or rewritten (share)",
}


def _index(week: str) -> int:
    return (date.fromisoformat(week) - START.date()).days // 7


def _ratio(a: float, b: float) -> float | None:
    return a / b if b else None


def series_of(run: dict[str, Any], weeks: int) -> dict[str, list[float | None]]:
    """The weekly series of one run (``ArmRun.to_json()``)."""
    out: dict[str, list[float | None]] = {k: [None] * weeks for k in SERIES}
    m = run["metrics"]
    for row in m["acceptance"]:
        if row["skill"] == "curator" and 0 <= _index(row["week"]) < weeks:
            out["acceptance"][_index(row["week"])] = row["rate"]
    for row in m["by_runtime_week"]:
        if row["runtime"] == RUNTIME and 0 <= _index(row["week"]) < weeks:
            out["mac"][_index(row["week"])] = row["median_seconds"]
    for i in range(weeks):
        out["policies"][i] = 0.0
    for week, n in m["policies_accepted_per_week"].items():
        if 0 <= _index(week) < weeks:
            out["policies"][_index(week)] = float(n)
    for i, w in enumerate(run["weeks"][:weeks]):
        decided = w["accepted"] + w["rejected"]
        good = w["drafts"] - w["mistakes_drafted"]
        out["repeated"][i] = _ratio(w["repeated"], decided)
        out["cost"][i] = _ratio(sum(w["seconds"]), w["accepted"])
        out["accepted"][i] = float(w["accepted"])
        out["good_lost"][i] = _ratio(w["good_lost"], good)
        out["caught"][i] = _ratio(w["mistakes_caught"], w["mistakes_drafted"])
    return out


@dataclass(frozen=True)
class Spread:
    """Mean, standard deviation and number of seeds of one value."""

    mean: float | None
    sd: float | None
    n: int

    @classmethod
    def of(cls, values: list[float | None]) -> Spread:
        xs = [v for v in values if v is not None and math.isfinite(v)]
        if not xs:
            return cls(None, None, 0)
        sd = statistics.stdev(xs) if len(xs) > 1 else 0.0
        return cls(statistics.fmean(xs), sd, len(xs))

    def fmt(self, scale: float = 1.0, digits: int = 1) -> str:
        if self.mean is None or self.sd is None:
            return "—"
        return f"{self.mean * scale:.{digits}f} ± {self.sd * scale:.{digits}f}"


def aggregate(runs: list[dict[str, Any]], weeks: int) -> dict[str, list[Spread]]:
    """Per series, per week: the spread over the runs (one per seed)."""
    per = [series_of(r, weeks) for r in runs]
    return {k: [Spread.of([p[k][i] for p in per]) for i in range(weeks)] for k in SERIES}


def window(runs: list[dict[str, Any]], key: str, weeks: int, first: int, last: int) -> Spread:
    """The spread over seeds of each run's mean over weeks ``first..last`` (0-based)."""
    vals = []
    for r in runs:
        xs = [v for v in series_of(r, weeks)[key][first : last + 1] if v is not None]
        vals.append(statistics.fmean(xs) if xs else None)
    return Spread.of(vals)


def paired(
    runs: list[dict[str, Any]], base: list[dict[str, Any]], key: str, weeks: int
) -> list[Spread]:
    """Per week: the spread of (run − base) over the seeds both have."""
    by_seed = {b["seed"]: series_of(b, weeks)[key] for b in base}
    diffs: list[list[float | None]] = [[] for _ in range(weeks)]
    for r in runs:
        other = by_seed.get(r["seed"])
        if other is None:
            continue
        mine = series_of(r, weeks)[key]
        for i in range(weeks):
            a, b = mine[i], other[i]
            diffs[i].append(None if a is None or b is None else a - b)
    return [Spread.of(d) for d in diffs]


def recovery_weeks(diff: list[Spread], start: int, tolerance: float) -> int | None:
    """Weeks after ``start`` (the poison week) until the mean difference stays above
    ``-tolerance`` to the end; ``0`` when it never fell below; ``None`` when it never
    recovers within the run."""
    tail = diff[start:]
    if all(d.mean is None or d.mean >= -tolerance for d in tail):
        return 0
    for k in range(1, len(tail)):
        if all(d.mean is None or d.mean >= -tolerance for d in tail[k:]):
            return k
    return None
