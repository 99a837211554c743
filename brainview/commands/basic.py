"""``open``, ``demo``, ``stats``, ``init-agent`` and ``recover``."""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from brainview.commands.common import emit_json, now
from brainview.commands.common import paths_of as _paths
from brainview.errors import ConflictError, UsageError
from brainview.store.discovery import discover

if TYPE_CHECKING:
    from brainview.config import Config
    from brainview.services.project import Project
    from brainview.store.discovery import BrainPaths


def open_app(args: argparse.Namespace) -> int:
    """Validate the brains first (clean errors), then run the app."""
    from brainview.store.light import validate

    paths = _paths(args)
    validate(paths)  # one clear line for bad input, before any terminal takeover
    config = _config(paths)
    from brainview.tui.app import run_app

    return run_app(paths, screen=getattr(args, "screen", None), config=config)


def _config(paths: BrainPaths) -> Config:
    """Load and check the config (bad values and key ids end here, exit 10)."""
    from brainview.config import load
    from brainview.tui.keymap import validate as validate_keys

    config = load(paths.config_path)
    validate_keys(config.keys, config.key_files)
    if config.ui.theme:
        from textual.theme import BUILTIN_THEMES

        if config.ui.theme not in BUILTIN_THEMES:
            from brainview.errors import ConfigError

            raise ConfigError(f"ui.theme: unknown theme {config.ui.theme!r}")
    return config


def demo(args: argparse.Namespace) -> int:
    """Write a demo project (deterministic for a seed), then open it."""
    from brainview.demo.generator import DemoSpec, build_project

    default = "brainview-learnings-demo" if getattr(args, "learnings", False) else "brainview-demo"
    target = Path(args.dir) if args.dir else Path(tempfile.gettempdir()) / default
    spikuit = target / ".spikuit"
    if args.force and getattr(args, "learnings", False):
        shutil.rmtree(target / ".learnings", ignore_errors=True)
    if spikuit.exists() and args.force:
        shutil.rmtree(spikuit)
    if spikuit.exists():
        print(f"brainview: reusing the demo in {target} (--force writes it anew)", file=sys.stderr)
    else:
        if target.exists() and not target.is_dir():
            raise UsageError(f"{target} exists and is not a directory")
        if getattr(args, "learnings", False):
            _learnings_demo(target, args.seed)
        else:
            build_project(target, DemoSpec(seed=args.seed, now=now(), history=True))
        print(f"brainview: demo project written to {target}", file=sys.stderr)
    if args.no_open:
        return 0
    from brainview.tui.app import run_app

    paths = discover(target)
    return run_app(paths, config=_config(paths))


def _learnings_demo(target: Path, seed: int) -> None:
    """``demo --learnings``: the tree, empty brains, the import and the planned moves."""
    from brainview.demo.learnings_gen import build_learnings_project

    if (target / ".learnings").exists():
        raise ConflictError(f"{target / '.learnings'} already exists (--force writes it anew)")
    target.mkdir(parents=True, exist_ok=True)
    build_learnings_project(target, now(), seed)


def stats(args: argparse.Namespace) -> int:
    """``brainview stats [PATH] [--json]``."""
    from brainview.services.metrics.stats import project_stats
    from brainview.services.project import Project

    paths = _paths(args)
    with Project.open(paths) as project:
        data = project_stats(project)
        data["agent_metrics"] = _metrics(project, paths)
        data["reflection_writing"] = _writing(project)
        data["queue_health"] = _queue_health(project, paths)
        data.update(_team(project, paths))
    if args.json:
        emit_json(data, sort_keys=True)
        return 0
    print(_render_stats(data))
    return 0


def _metrics(project: Project, paths: BrainPaths) -> dict[str, Any] | None:
    """Agent-brain metrics (acceptance, MAC, policy emergence, at risk) or ``None``."""
    if project.agent is None:
        return None
    from brainview.commands.common import now as now_utc
    from brainview.config import load
    from brainview.services.metrics import agent_metrics

    cfg = load(paths.config_path).reflections
    return agent_metrics(
        project, now_utc(), threshold=cfg.pruning_threshold, days=cfg.fading_days
    ).to_json()


def _queue_health(project: Project, paths: BrainPaths) -> dict[str, Any]:
    """Stale proposals and a growing queue (``[queue]`` settings; docs/metrics.md)."""
    from brainview.commands.common import now as now_utc
    from brainview.config import load
    from brainview.services.metrics.queue_health import queue_health

    return queue_health(project, now_utc(), load(paths.config_path).queue).to_json()


def _team(project: Project, paths: BrainPaths) -> dict[str, Any]:
    """``two_person`` (approvals waiting for a second person) and ``agreement``."""
    from brainview.config import load
    from brainview.services.metrics.team import team_figures

    return team_figures(project, load(paths.config_path).two_person)


def _writing(project: Project) -> dict[str, object] | None:
    """The project's reflection-writing switch (``None`` without an agent brain)."""
    if project.agent is None:
        return None
    from brainview.services.lifecycle.writing import state

    return state(project).to_json()


def _render_stats(data: dict) -> str:
    from brainview.core.safe_text import one_line

    lines = []
    for role in ("user", "agent"):
        brain = data[role]
        if brain is None:
            lines.append(f"{role:>5}: no agent brain yet (brainview init-agent creates one)")
            continue
        lines.append(
            f"{role:>5}: {brain['neurons']} live, {brain['neurons_retired']} retired, "
            f"{brain['synapses']} synapse rows, {brain['spikes']} spikes — {brain['era_label']}"
        )
        if role == "agent":  # the overview's split: reflections by skill, then policies
            per = brain.get("reflections_per_skill", {})
            doms = ", ".join(f"{one_line(d, 30) or '∅'} {n}" for d, n in per.items())
            lines.append(f"       reflections by skill: {doms}; policies {brain['policies']}")
            continue
        doms = ", ".join(f"{one_line(d, 30) or '∅'} {n}" for d, n in brain["domains"].items())
        lines.append(f"       domains: {doms}")
    p = data["proposals"]
    lines.append(
        f"proposals: {p['pending']} pending ({p.get('stale', 0)} stale), "
        f"{p['accepted']} accepted, {p['rejected']} rejected"
    )
    for reason in (data.get("queue_health") or {}).get("reasons", []):
        lines.append(f"queue alert: {reason}")
    from brainview.services.metrics.team import headline

    lines += [one_line(line, 160) for line in headline(data)]
    writing = data.get("reflection_writing")
    if writing and not writing["enabled"]:
        why = f": {one_line(writing['reason'], 60)}" if writing.get("reason") else ""
        lines.append(f"reflection writing paused by {one_line(writing['by'], 30)}{why}")
    return "\n".join(lines)


def init_agent(args: argparse.Namespace) -> int:
    """Create ``.spikuit/agent/circuit.db`` with the Spikuit schema, empty
    (:func:`brainview.services.brains_init.init_agent` says what is refused)."""
    from brainview.services.brains_init import init_agent as create

    made = create(_paths(args))
    print(f"brainview: created empty agent brain {made}", file=sys.stderr)
    return 0


def recover(args: argparse.Namespace) -> int:
    """``brainview recover [PATH] [--roll-back] [--json]``: one line per half-done
    decision, saying what became of it; exit 5 when one could only be marked failed."""
    from brainview.commands.common import session_of
    from brainview.core.safe_text import one_line

    with session_of(args) as session:
        done = session.recover_all(roll_back=args.roll_back)
    rows = [
        {"decision": o.decision_id, "proposal": o.proposal_id, "action": o.action,
         "state": o.state, "note": o.note}
        for o in done
    ]  # fmt: skip
    if args.json:
        emit_json({"count": len(rows), "intents": rows})
    elif not rows:
        print("brainview: nothing to recover", file=sys.stderr)
    for r in [] if args.json else rows:
        why = f" ({one_line(str(r['note']), 200)})" if r["note"] else ""
        print(f"{r['action']} of {one_line(str(r['proposal']), 80)}: {r['state']}{why}")
    return 5 if any(r["state"] == "failed" for r in rows) else 0
