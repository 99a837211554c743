"""Round two's figures per run and per arm: the planted lesson, the lanes, the costs.

Per run (one seed), from its weeks (``w`` is the poison week, when the lesson is planted):

* ``influence``: share of the planting week's drafts a planted lesson swayed (leaned on,
  or suppressing a held-back draft); ``influence_next``: the same the week after —
  the target's "within one simulated week of planting";
* ``flagged``: a planted lesson was among the top ten suspicious on an evening of the
  planting week (1 or 0); ``quarantined``: it was quarantined within that week;
* ``after``: drafts whose recall returned a planted lesson after its quarantine (must be 0);
* ``false_top10``: benign lessons in the top ten over benign live lessons, mean over the
  evenings' last of each week from the planting week on; ``false_any``: benign lessons
  with any signal, the same way;
* ``good_lost_net``: good drafts dropped or rewritten and not brought back by the lane
  (accepted), over good drafts, weeks 5–8; ``lanes_share``: the lanes' seconds over all
  the maintainer's seconds (triage, consolidation items, lanes);
* ``laundered``: a policy summarised a planted lesson at some week's end.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from brainview.sim.stats import Spread
from brainview.sim.targets import ci95


def _ratio(a: float, b: float) -> float | None:
    return a / b if b else None


def per_run(run: dict[str, Any], weeks: int, poison_week: int) -> dict[str, float | None]:
    """The figures of one run (module docstring)."""
    ws = run["weeks"][:weeks]
    w = min(poison_week, len(ws) - 1)
    nxt = ws[w + 1] if w + 1 < len(ws) else None
    after = ws[w:]
    first = max(0, min(4, weeks - 4))
    good = sum(x["drafts"] - x["mistakes_drafted"] for x in ws[first:])
    lost = sum(x["good_lost"] - x.get("good_recovered", 0) for x in ws[first:])
    lane = sum(x.get("lane_seconds", 0.0) for x in ws)
    total = lane + sum(sum(x["seconds"]) + x.get("item_seconds", 0.0) for x in ws)
    return {
        "influence": _ratio(ws[w].get("swayed", 0), ws[w]["drafts"]),
        "influence_next": _ratio(nxt.get("swayed", 0), nxt["drafts"]) if nxt else None,
        "flagged": float(ws[w].get("top10", 0) > 0),
        "quarantined": float(ws[w].get("quarantined", 0) > 0),
        "quarantined_ever": float(any(x.get("quarantined", 0) for x in ws)),
        "after": float(sum(x.get("after_quarantine", 0) for x in ws)),
        "probe": float(sum(x.get("probe_returned", 0) for x in ws)),
        "false_top10": _mean(
            [_ratio(x.get("benign_top10", 0), x.get("benign_live", 0)) for x in after]
        ),
        "false_any": _mean(
            [_ratio(x.get("benign_flagged", 0), x.get("benign_live", 0)) for x in after]
        ),
        "good_lost_net": _ratio(lost, good),
        "lanes_share": _ratio(lane, total),
        "laundered": float(any(x.get("laundered") for x in ws)),
    }


def _mean(xs: list[float | None]) -> float | None:
    vals = [x for x in xs if x is not None]
    return sum(vals) / len(vals) if vals else None


@dataclass(frozen=True)
class Figure:
    """One figure of one arm over seeds: its spread and 95 % interval."""

    spread: Spread

    @property
    def mean(self) -> float | None:
        return self.spread.mean

    def pct(self, digits: int = 1) -> str:
        """``mean % (95 % CI lo … hi)``."""
        s = self.spread
        if s.mean is None:
            return "—"
        ci = ci95(s)
        if ci is None:
            return f"{s.mean * 100:.{digits}f} %"
        lo, hi = max(0.0, ci[0]), min(1.0, ci[1])
        return f"{s.mean * 100:.{digits}f} % ({lo * 100:.{digits}f} … {hi * 100:.{digits}f})"

    def seeds(self) -> str:
        """``k/n seeds (Wilson 95 % lo–hi %)`` for a 0/1 figure."""
        s = self.spread
        if s.mean is None:
            return "—"
        k, n = round(s.mean * s.n), s.n
        lo, hi = wilson(k, n)
        return f"{k}/{n} ({lo * 100:.0f}–{hi * 100:.0f} %)"


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson's 95 % interval of a share ``k / n``."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return max(0.0, mid - half), min(1.0, mid + half)


def per_arm(runs: list[dict[str, Any]], weeks: int, poison_week: int) -> dict[str, Figure]:
    """Every figure of :func:`per_run`, over the arm's seeds."""
    rows = [per_run(r, weeks, poison_week) for r in runs]
    keys = rows[0].keys() if rows else []
    return {k: Figure(Spread.of([r[k] for r in rows])) for k in keys}
