"""The report's headline figures in words, generated from the results (issue 32: the
hand-written analysis quoted older figures than its own tables; now the sentences that
carry numbers are written by the generator and the analysis refers to them).
"""

from __future__ import annotations

from typing import Any

from brainview.sim.stats import Spread, aggregate, window
from brainview.sim.targets import ci95


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.1f} %"


def _total(runs: list[dict[str, Any]], key: str) -> float:
    return float(sum(sum(w[key] for w in r["weeks"]) for r in runs))


def _seconds(runs: list[dict[str, Any]]) -> float:
    return float(sum(sum(sum(w["seconds"]) for w in r["weeks"]) for r in runs))


def _change(new: float | None, old: float | None) -> str:
    if new is None or not old:
        return "—"
    return f"{100 * (new - old) / old:+.0f} %"


def headline(results: dict[str, Any], weeks: int) -> list[str]:
    """A few sentences, every number from ``results`` (empty without loop on and off)."""
    arms = results["arms"]
    if "on" not in arms or "off" not in arms:
        return []
    on, off = arms["on"]["runs"], arms["off"]["runs"]
    last = weeks - 1
    acc_on, acc_off = (
        aggregate(on, weeks)["acceptance"][last],
        aggregate(off, weeks)["acceptance"][last],
    )
    rep_on, rep_off = (
        aggregate(on, weeks)["repeated"][last],
        aggregate(off, weeks)["repeated"][last],
    )
    by_seed = {r["seed"]: r for r in off}
    diffs = []
    for r in on:
        a = aggregate([r], weeks)["acceptance"][last].mean
        b = (
            aggregate([by_seed[r["seed"]]], weeks)["acceptance"][last].mean
            if r["seed"] in by_seed
            else None
        )
        diffs.append(None if a is None or b is None else a - b)
    diff = Spread.of(diffs)
    ci = ci95(diff)
    first = max(0, min(4, weeks - 4))
    cost_on, cost_off = (window(x, "cost", weeks, first, last).mean for x in (on, off))
    mac_on = aggregate(on, weeks)["mac"]
    lost_on = window(on, "good_lost", weeks, first, last).mean
    mac_change = _change(mac_on[last].mean, mac_on[0].mean)
    down = None
    if rep_on.mean is not None and rep_off.mean:
        down = 1 - rep_on.mean / rep_off.mean
    out = [
        f"By week {weeks} loop on accepts {_pct(acc_on.mean)} of what it submits against "
        f"{_pct(acc_off.mean)} without recall"
        + (
            f" ({100 * diff.mean:+.1f} points, 95 % CI {100 * ci[0]:+.1f} … {100 * ci[1]:+.1f})"
            if diff.mean is not None and ci
            else ""
        )
        + f", and its repeated-mistake rate is {_pct(rep_on.mean)} against {_pct(rep_off.mean)}"
        + (f" (down {100 * down:.0f} %)." if down is not None else "."),
        f"Over the {weeks} weeks of {len(on)} seeds loop on got {_total(on, 'accepted'):.0f} "
        f"changes accepted against {_total(off, 'accepted'):.0f}, sent "
        f"{_total(off, 'rejected') - _total(on, 'rejected'):.0f} fewer proposals that were "
        f"then rejected, and the maintainer spent {_seconds(on):,.0f} s instead of "
        f"{_seconds(off):,.0f} s ({_change(_seconds(on), _seconds(off))}).",
        f"MAC (median seconds per curator decision) went from {mac_on[0].fmt()} s in week 1 "
        f"to {mac_on[last].fmt()} s in week {weeks} ({mac_change}); "
        f"seconds per accepted change in weeks {first + 1}–{weeks}: "
        f"{cost_on:.1f} s against {cost_off:.1f} s ({_change(cost_on, cost_off)})."
        if cost_on is not None and cost_off is not None
        else "",
        f"Loop on drops or rewrites {_pct(lost_on)} of its good drafts in weeks "
        f"{first + 1}–{weeks}.",
    ]
    return [x for x in out if x]
