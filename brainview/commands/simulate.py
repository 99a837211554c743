"""``brainview simulate``: does the reflection loop teach? Arms side by side over seeds.

Runs the simulation of :mod:`brainview.sim` (each run in a temporary project that is
deleted afterwards: no brain of the user's is opened), then prints the targets and a
summary per arm, renders figures with plotext (``--plot``), and writes what was asked:
the raw results (``--results``), SVG figures (``--svg-dir``), the report
(``--report``, hand-written text outside its markers is kept).  ``--from-results``
redraws from stored results without running.
"""

from __future__ import annotations

import json
import os
import shlex
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from brainview.commands.common import cell, emit_json, emit_lines, note
from brainview.commands.tree import SIM_ARMS as DEFAULT_ARMS
from brainview.errors import InvalidInputError, NotFoundError, UsageError

if TYPE_CHECKING:
    import argparse

LIMITS = {
    "seeds": (1, 100),
    "first_seed": (0, 10**6),
    "weeks": (2, 52),
    "drafts_per_day": (1, 40),
    "user_neurons": (60, 5_000),
}
SHARES = {"noise": (0.0, 0.5), "threshold": (0.0, 10.0), "poison": (0.0, 1.0)}


def _check(args: argparse.Namespace) -> None:
    for key, (lo, hi) in {**LIMITS, **SHARES}.items():
        value = getattr(args, key)
        if value is not None and not lo <= value <= hi:
            raise UsageError(f"--{key.replace('_', '-')} must be between {lo:g} and {hi:g}")
    if args.svg_dir and not Path(args.svg_dir).is_dir():
        raise NotFoundError(f"--svg-dir: no such directory: {args.svg_dir}")
    for flag, value in (("--report", args.report), ("--results", args.results)):
        if value and not (Path(value).parent if str(Path(value).parent) else Path(".")).is_dir():
            raise NotFoundError(f"{flag}: no such directory: {Path(value).parent}")


def _arms(names: str, poison: float | None) -> list[Any]:
    from brainview.sim.arms import ARMS, CHECKS

    known = {**ARMS, **CHECKS}
    chosen = [n.strip() for n in names.split(",") if n.strip()]
    unknown = [n for n in chosen if n not in known]
    if unknown or not chosen:
        raise UsageError(f"--arms: unknown arm {unknown[0] if unknown else '(none)'!r}; "
                         f"choose from {', '.join(known)}")  # fmt: skip
    out = []
    for n in dict.fromkeys(chosen):
        arm = known[n]
        if poison is not None and arm.poison:
            arm = replace(arm, poison=poison, label=arm.label.replace("5 %", f"{poison * 100:g} %"))
        out.append(arm)
    return out


def command_of(args: argparse.Namespace) -> str:
    """The canonical command line that reproduces this run."""
    parts = ["brainview", "simulate"]
    if args.arms != DEFAULT_ARMS:
        parts += ["--arms", args.arms]
    for key in (*LIMITS, *SHARES):
        value = getattr(args, key)
        if value is not None:
            parts += [f"--{key.replace('_', '-')}", f"{value:g}"]
    for flag, value in (("--results", args.results), ("--svg-dir", args.svg_dir),
                        ("--report", args.report)):  # fmt: skip
        if value:
            parts += [flag, value]
    return shlex.join(parts)


def _run(args: argparse.Namespace) -> dict[str, Any]:
    from brainview.sim.arms import SimConfig
    from brainview.sim.experiment import run_all

    keys = ("weeks", "drafts_per_day", "user_neurons", "noise", "threshold")
    given = {k: getattr(args, k) for k in keys if getattr(args, k) is not None}
    cfg = SimConfig(**given)
    first = args.first_seed if args.first_seed is not None else 1
    seeds = list(range(first, first + (args.seeds or 10)))
    results = run_all(_arms(args.arms, args.poison), seeds, cfg, progress=note)
    results["command"] = command_of(args)
    return results


def _load(path: str) -> dict[str, Any]:
    try:
        from brainview.core.json_strict import unique_keys

        data = json.loads(Path(path).read_text(encoding="utf-8"), object_pairs_hook=unique_keys)
    except FileNotFoundError:
        raise NotFoundError(f"--from-results: no such file: {path}") from None
    except (OSError, ValueError) as err:
        raise InvalidInputError(f"--from-results: not readable JSON results ({err})") from None
    if not isinstance(data, dict) or not isinstance(data.get("arms"), dict) or "config" not in data:
        raise InvalidInputError("--from-results: not the results of brainview simulate")
    return data


def simulate(args: argparse.Namespace) -> int:
    """Run (or load), then print and write what was asked."""
    from brainview.sim import report
    from brainview.sim.experiment import config_of
    from brainview.sim.plots import BY_NAME, terminal
    from brainview.store.safe_files import atomic_write

    _check(args)
    for name in args.plot:
        if name not in BY_NAME and name != "all":
            raise UsageError(
                f"--plot: unknown figure {name!r}; choose from all, {', '.join(BY_NAME)}"
            )
    results = _load(args.from_results) if args.from_results else _run(args)
    command = str(results.get("command") or command_of(args))
    if args.results and not args.from_results:
        with atomic_write(Path(args.results), "--results", force=True) as fh:
            json.dump(results, fh)
        note(f"results written to {args.results}")
    if args.svg_dir:
        written = report.write_svgs(results, Path(args.svg_dir), command)
        note(f"{len(written)} figures written to {args.svg_dir}")
    if args.report:
        target = Path(args.report)
        svg_rel = os.path.relpath(args.svg_dir or target.parent, target.parent)
        text = report.section(results, command, svg_rel, args.results or args.from_results)
        old = target.read_text(encoding="utf-8") if target.exists() else None
        with atomic_write(target, "--report", force=True) as fh:
            fh.write(report.merge(old, text))
        note(f"report written to {args.report}")
    weeks = config_of(results).weeks
    if args.json:
        emit_json(summary(results))
        return 0
    lines = human(results)
    names = list(BY_NAME) if "all" in args.plot else list(dict.fromkeys(args.plot))
    for name in names:
        lines += ["", terminal(BY_NAME[name], report.lines_for(BY_NAME[name], results, weeks))]
    emit_lines(lines)
    return 0


def summary(results: dict[str, Any]) -> dict[str, Any]:
    """Targets and per-week means and spreads per arm (``--json``)."""
    from brainview.sim.experiment import config_of
    from brainview.sim.stats import aggregate
    from brainview.sim.targets import check

    cfg = config_of(results)
    arms = {
        name: {
            "label": a["label"],
            "series": {k: [vars(s) for s in v] for k, v in aggregate(a["runs"], cfg.weeks).items()},
        }
        for name, a in results["arms"].items()
    }
    targets = [vars(t) for t in check(results, cfg.weeks, cfg.poison_week)]
    return {"command": results.get("command"), "config": results["config"],
            "seeds": results["seeds"], "targets": targets, "arms": arms}  # fmt: skip


def human(results: dict[str, Any]) -> list[str]:
    """The targets and, per arm, acceptance week by week."""
    from brainview.sim.experiment import config_of
    from brainview.sim.report import ordered
    from brainview.sim.stats import aggregate
    from brainview.sim.targets import check

    cfg = config_of(results)
    out = [f"{len(results['seeds'])} seed(s), {cfg.weeks} weeks — acceptance by week (%):"]
    for a in (results["arms"][n] for n in ordered(results)):
        acc = aggregate(a["runs"], cfg.weeks)["acceptance"]
        cells = " ".join("  —" if s.mean is None else f"{s.mean * 100:3.0f}" for s in acc)
        out.append(f"  {cell(a['label'], 34):<34} {cells}")
    for t in check(results, cfg.weeks, cfg.poison_week):
        met = "?" if t.met is None else ("met" if t.met else "NOT met")
        out.append(f"{t.name}: {cell(t.measured, 240)} — {t.asked}: {met}")
    return out
