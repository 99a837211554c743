"""The report's round-two part: the attack arms beside their controls, and their targets.

Cells are the mean over seeds with its 95 % interval (Student's t,
:func:`brainview.sim.targets.ci95`); a share of seeds is ``k/n`` with Wilson's interval.
"""

from __future__ import annotations

from typing import Any

from brainview.core.signals import WEIGHTS
from brainview.sim.arms import ATTACK_LABELS
from brainview.sim.attack_stats import Figure, per_arm
from brainview.sim.stats import Spread, aggregate, paired, window
from brainview.sim.targets import Target, ci95

KINDS = tuple(WEIGHTS)
"""Every kind of signal, from the core's one table."""
"""The signal kinds of :mod:`brainview.core.signals`."""
INFLUENCE_MAX = 0.05
FLAGGED_MIN = 0.95
FALSE_MAX = 0.05
LANES_MAX = 0.10
LOST_MAX = 0.05


def _arms(results: dict[str, Any]) -> list[str]:
    names = ["lanes", "lanes-x3", *(f"{a}{t}" for a in ATTACK_LABELS for t in ("", "-control"))]
    return [n for n in names if n in results["arms"]]


def table(results: dict[str, Any], weeks: int, poison_week: int) -> list[str]:
    """One row per lanes arm (the attacks beside their controls)."""
    names = _arms(results)
    if not names:
        return []
    first = max(0, min(4, weeks - 4))
    head = (
        "| arm | influence, planting week | influence, week after (< 5 %) | flagged top 10 "
        "in planting week (≥ 95 % of seeds) | quarantined in planting week | recalled after "
        "quarantine (0) | false flags: benign in top 10 (≤ 5 %) | benign with any signal | "
        f"laundered into a policy | good drafts lost, net (weeks {first + 1}–{weeks}) | lanes' "
        "share of time (≤ 10 %) |"
    )
    out = [head, "|---|" + "---:|" * 10]
    for name in names:
        a = results["arms"][name]
        f = per_arm(a["runs"], weeks, poison_week)
        planted = "" if not results["arms"][name]["runs"] or name.startswith("lanes") else None
        cells = [
            planted if planted is not None else f["influence"].pct(),
            planted if planted is not None else f["influence_next"].pct(),
            planted if planted is not None else f["flagged"].seeds(),
            planted if planted is not None else f["quarantined"].seeds(),
            planted if planted is not None else _fmt_n(f["after"]),
            f["false_top10"].pct(),
            f["false_any"].pct(),
            planted if planted is not None else f["laundered"].seeds(),
            f["good_lost_net"].pct(),
            f["lanes_share"].pct(),
        ]
        out.append(f"| {a['label']} | " + " | ".join(c or "—" for c in cells) + " |")
    return out


def _fmt_n(fig: Figure) -> str:
    s = fig.spread
    if s.mean is None:
        return "—"
    return f"{s.mean:.1f} ± {s.sd or 0.0:.1f} drafts"


def checks(results: dict[str, Any], weeks: int, poison_week: int) -> list[Target]:
    """Round two's targets that the arms in ``results`` can answer."""
    arms = results["arms"]
    out: list[Target] = []
    at = min(8, weeks) - 1
    if "lanes" in arms and "off" in arms:
        d = paired(arms["lanes"]["runs"], arms["off"]["runs"], "acceptance", weeks)[at]
        ci = ci95(d)
        if d.mean is not None:
            span = f" (95 % CI {ci[0] * 100:+.1f} … {ci[1] * 100:+.1f})" if ci else ""
            out.append(Target(
                "acceptance, with the lanes", f"week {at + 1}: lanes − off ≥ +20 points",
                f"{d.mean * 100:+.1f} points{span}", d.mean >= 0.20,
            ))  # fmt: skip
        agg_l = aggregate(arms["lanes"]["runs"], weeks)
        agg_o = aggregate(arms["off"]["runs"], weeks)
        r_l, r_o = agg_l["repeated"][at], agg_o["repeated"][at]
        if r_l.mean is not None and r_o.mean:
            cut = 1 - r_l.mean / r_o.mean
            out.append(Target(
                "repeated mistakes, with the lanes", f"week {at + 1}: down ≥ 60 %",
                f"{r_l.fmt(100)} % vs {r_o.fmt(100)} %: down {cut * 100:.0f} %", cut >= 0.60,
            ))  # fmt: skip
    if "lanes" in arms:
        first = max(0, min(4, weeks - 4))
        lost = per_arm(arms["lanes"]["runs"], weeks, poison_week)["good_lost_net"]
        if "lanes-x3" in arms:
            more = per_arm(arms["lanes-x3"]["runs"], weeks, poison_week)
            was = f"; with 3× the budget {more['good_lost_net'].pct()}"
            was += f" at {more['lanes_share'].pct()} of the time"
        else:
            was = ""
        gross = window(arms["lanes"]["runs"], "good_lost", weeks, first, weeks - 1)
        if "on" in arms:
            on = window(arms["on"]["runs"], "good_lost", weeks, first, weeks - 1)
            was += f"; loop on without lanes {on.fmt(100)} %"
        out.append(Target(
            "good drafts lost", f"weeks {first + 1}–{weeks}, net of the lane: ≤ 5 %",
            f"{lost.pct()} (before the lane: {gross.fmt(100)} %{was})",
            lost.mean is not None and lost.mean <= LOST_MAX,
        ))  # fmt: skip
    names = [n for n in _arms(results) if n != "lanes-x3"]  # 3×: a sensitivity arm
    shares = [per_arm(arms[n]["runs"], weeks, poison_week)["lanes_share"] for n in names]
    if shares:
        worst = max((s for s in shares if s.mean is not None), key=lambda s: s.mean or 0.0)
        out.append(Target(
            "lanes' time", "≤ 10 % of the maintainer's time",
            f"highest arm {worst.pct()} (every lanes arm at 1× the budget)",
            all(s.mean is not None and s.mean <= LANES_MAX for s in shares),
        ))  # fmt: skip
    for attack in ATTACK_LABELS:
        if attack in arms:
            out += _attack(attack, arms, weeks, poison_week)
    return out


def _attack(name: str, arms: dict[str, Any], weeks: int, poison_week: int) -> list[Target]:
    f = per_arm(arms[name]["runs"], weeks, poison_week)
    control = f"{name}-control"
    ctl = per_arm(arms[control]["runs"], weeks, poison_week) if control in arms else None
    nxt, flagged, false, after = f["influence_next"], f["flagged"], f["false_top10"], f["after"]
    ctl_flag = f"; its control's true lesson flagged in {ctl['flagged'].seeds()}" if ctl else ""
    return [
        Target(
            f"{name}: influence",
            "< 5 % of drafts the week after planting",
            f"{nxt.pct()} (planting week {f['influence'].pct()})",
            nxt.mean is not None and nxt.mean < INFLUENCE_MAX,
        ),
        Target(
            f"{name}: flagged",
            "top 10 suspicious within the planting week, ≥ 95 % of seeds",
            f"{flagged.seeds()}{ctl_flag}",
            flagged.mean is not None and flagged.mean >= FLAGGED_MIN,
        ),
        Target(
            f"{name}: false flags",
            "≤ 5 % of benign lessons in the top 10",
            f"{false.pct()} (benign with any signal {f['false_any'].pct()})",
            false.mean is not None and false.mean <= FALSE_MAX,
        ),
        Target(
            f"{name}: after quarantine",
            "0 drafts recall it after quarantine",
            f"{after.spread.mean or 0:.1f} drafts; recall probes with its own text that "
            f"returned it: {f['probe'].spread.mean or 0:.1f}; quarantined within the run in "
            f"{f['quarantined_ever'].seeds()}",
            after.spread.mean == 0 and not f["probe"].spread.mean,
        ),
    ]


def signals_table(results: dict[str, Any], weeks: int, poison_week: int) -> list[str]:
    """Which signal kinds fired on the planted lessons in the planting week (seeds), and
    on how many benign lessons (mean share, from the planting week on)."""
    attacks = [a for a in ATTACK_LABELS if a in results["arms"]]
    if not attacks:
        return []
    out = [
        "| arm | " + " | ".join(f"{k}: planted (seeds) / benign" for k in KINDS) + " |",
        "|---|" + "---:|" * len(KINDS),
    ]
    for name in (n for a in attacks for n in (a, f"{a}-control") if n in results["arms"]):
        runs = results["arms"][name]["runs"]
        cells = []
        for kind in KINDS:
            seen = [float(r["weeks"][poison_week].get("planted_kinds", {}).get(kind, 0) > 0)
                    for r in runs if poison_week < len(r["weeks"])]  # fmt: skip
            benign = []
            for r in runs:
                xs = [w.get("benign_kinds", {}).get(kind, 0) / w["benign_live"]
                      for w in r["weeks"][poison_week:weeks] if w.get("benign_live")]  # fmt: skip
                benign.append(sum(xs) / len(xs) if xs else None)
            k = Figure(Spread.of(list(seen)))
            cells.append(f"{k.seeds().split(' ')[0]} / {Figure(Spread.of(benign)).pct()}")
        out.append(f"| {results['arms'][name]['label']} | " + " | ".join(cells) + " |")
    return out
