"""The issue's targets, checked against results (each a row of the report's table).

* acceptance, loop on − loop off, at week 8 (the last week when shorter): ≥ +20 points;
* repeated-mistake rate at week 8, loop on vs loop off: down ≥ 60 %;
* MAC (median seconds per curator decision) as the agent brain ages: down ≥ 40 % from
  week 1 to week 8 of loop on (and loop on vs loop off at week 8 beside it);
* poisoning: acceptance of the poisoned arm minus loop on (same seed) in the poison
  week, with a 95 % interval that must exclude zero ("measurably");
* invalidation: the vigilant arm's mean difference is back within 5 points of loop on
  one week after the poison week and stays there (reported with when the maintainer
  found the poison, per seed, and the difference the week after it did).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from brainview.sim.stats import Spread, aggregate, paired, recovery_weeks, series_of

T975 = {
    1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31, 9: 2.26,
    10: 2.23, 11: 2.20, 12: 2.18, 13: 2.16, 14: 2.14, 15: 2.13, 19: 2.09, 24: 2.06, 29: 2.05,
}  # fmt: skip
TOLERANCE = 0.05


def t975(df: int) -> float:
    """Student's t, two-sided 95 %, for ``df`` degrees of freedom (conservative steps)."""
    if df <= 0:
        return math.inf
    return next((v for k, v in sorted(T975.items()) if k >= df), 1.96)


def ci95(s: Spread) -> tuple[float, float] | None:
    """The 95 % interval of a mean over seeds."""
    if s.mean is None or s.sd is None or s.n < 2:
        return None
    half = t975(s.n - 1) * s.sd / math.sqrt(s.n)
    return s.mean - half, s.mean + half


@dataclass(frozen=True)
class Target:
    """One target: what was asked, what was measured, whether it was met."""

    name: str
    asked: str
    measured: str
    met: bool | None


def found_week(run: dict[str, Any]) -> int | None:
    """The (0-based) week the maintainer first invalidated a poisoned lesson."""
    return next((i for i, w in enumerate(run["weeks"]) if w["invalidated"]), None)


def _recovery(name: str, arms: dict[str, Any], weeks: int, poison_week: int) -> Target:
    """How soon the arm is back on loop on's curve, when it found the poison, and how it
    did the week after finding it (paired with loop on, same seed)."""
    runs, base = arms[name]["runs"], arms["on"]["runs"]
    d = paired(runs, base, "acceptance", weeks)
    k = recovery_weeks(d, poison_week, TOLERANCE)
    said = "never fell" if k == 0 else ("not within the run" if k is None else f"{k} week(s)")
    on = {r["seed"]: series_of(r, weeks)["acceptance"] for r in base}
    found, after = [], []
    for r in runs:
        w = found_week(r)
        if w is None:
            continue
        found.append(w + 1)
        if w + 1 < weeks and r["seed"] in on:
            a, b = series_of(r, weeks)["acceptance"][w + 1], on[r["seed"]][w + 1]
            if a is not None and b is not None:
                after.append(a - b)
    when = ", ".join(map(str, sorted(found)))
    seen = f"poison found in {len(found)}/{len(runs)} seeds (week {when})"
    then = Spread.of(list(after))
    return Target(
        "recovery" + ("" if name == "poisoned-vigilant" else " (watchful)"),
        "invalidation restores loop on within one week",
        f"mean curve back within {TOLERANCE * 100:.0f} points after {said}; {seen}; "
        f"the week after finding it: {then.fmt(100)} points vs loop on",
        k is not None and k <= 1,
    )


def check(results: dict[str, Any], weeks: int, poison_week: int) -> list[Target]:
    """Every target that the arms in ``results`` can answer."""
    arms = results["arms"]
    at = min(8, weeks) - 1
    out: list[Target] = []
    agg = {name: aggregate(a["runs"], weeks) for name, a in arms.items()}
    if "on" in agg and "off" in agg:
        on, off = agg["on"]["acceptance"][at], agg["off"]["acceptance"][at]
        d = paired(arms["on"]["runs"], arms["off"]["runs"], "acceptance", weeks)[at]
        if d.mean is not None:
            lo_hi = ci95(d)
            ci = f" (95 % CI {lo_hi[0] * 100:+.1f} … {lo_hi[1] * 100:+.1f})" if lo_hi else ""
            out.append(Target(
                "acceptance", f"week {at + 1}: loop on − off ≥ +20 points",
                f"{on.fmt(100)} % vs {off.fmt(100)} %: {d.mean * 100:+.1f} points{ci}",
                d.mean >= 0.20,
            ))  # fmt: skip
        r_on, r_off = agg["on"]["repeated"][at], agg["off"]["repeated"][at]
        if r_on.mean is not None and r_off.mean:
            cut = 1 - r_on.mean / r_off.mean
            out.append(Target(
                "repeated mistakes", f"week {at + 1}: down ≥ 60 %",
                f"{r_on.fmt(100)} % vs {r_off.fmt(100)} %: down {cut * 100:.0f} %", cut >= 0.60,
            ))  # fmt: skip
        m_first, m_last = agg["on"]["mac"][0], agg["on"]["mac"][at]
        m_off = agg["off"]["mac"][at]
        if m_first.mean and m_last.mean is not None and m_off.mean:
            cut = 1 - m_last.mean / m_first.mean
            vs_off = 1 - m_last.mean / m_off.mean
            out.append(Target(
                "MAC", f"loop on, week 1 → {at + 1}: down ≥ 40 %",
                f"{m_first.fmt()} s → {m_last.fmt()} s: down {cut * 100:.0f} % "
                f"(vs loop off at week {at + 1}: {vs_off * 100:+.0f} %)",
                cut >= 0.40,
            ))  # fmt: skip
    if "poisoned" in arms and "on" in arms and poison_week < weeks:
        by_week = paired(arms["poisoned"]["runs"], arms["on"]["runs"], "acceptance", weeks)
        s = by_week[poison_week]
        lo_hi = ci95(s)
        if s.mean is not None and lo_hi is not None:
            out.append(Target(
                "poisoning", f"week {poison_week + 1}: acceptance drops measurably",
                f"{s.mean * 100:+.1f} points vs loop on (95 % CI {lo_hi[0] * 100:+.1f} … "
                f"{lo_hi[1] * 100:+.1f})",
                lo_hi[1] < 0,
            ))  # fmt: skip
    for name in ("poisoned-vigilant", "poisoned-watchful"):
        if name in arms and "on" in arms and poison_week + 1 < weeks:
            out.append(_recovery(name, arms, weeks, poison_week))
    from brainview.sim.report_attacks import checks  # round two (imports this module)

    return out + checks(results, weeks, poison_week)
