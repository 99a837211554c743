"""``brainview reflect consolidate|disable|enable``.

``consolidate`` plans a consolidation of the agent brain (triage, SHY, SWS, REM; see
:mod:`brainview.services.consolidate`) and queues every item as a proposal to decide
one by one (``--dry-run`` only shows the plan).  ``disable``/``enable`` pause and
resume reflection writing for the project (:mod:`brainview.services.lifecycle.writing`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from brainview.commands.common import (
    cell,
    emit_json,
    emit_lines,
    load_config,
    note,
    now,
    session_of,
)
from brainview.errors import UsageError

if TYPE_CHECKING:
    import argparse

PHASE_ORDER = ("sws", "shy", "rem")


def _lines(plan: Any, queued: list[str] | None) -> list[str]:
    from brainview.services.consolidate import PHASE_NAMES

    t = plan.triage
    out = [
        f"consolidation {plan.id} of agent brain {plan.fingerprint} at {plan.planned_at}",
        f"triage: {t['hot']} hot · {t['warm']} warm · {t['stale']} stale · {t['new']} new "
        f"· {t['contested']} contested",
    ]
    ids = plan.proposal_ids()
    for phase in PHASE_ORDER:
        items = [(pid, i) for pid, i in zip(ids, plan.items, strict=True) if i.phase == phase]
        out.append(f"{PHASE_NAMES[phase]}: {len(items)} item(s)")
        out += [f"  {cell(pid, 24):<24} {cell(i.summary, 90)}" for pid, i in items]
    if plan.skipped:
        left = ", ".join(f"{n} {cell(why, 40)}" for why, n in sorted(plan.skipped.items()))
        out.append(f"left out: {left}")
    if queued is None:
        out.append("dry run: nothing queued (run without --dry-run to queue these proposals)")
    elif queued:
        out.append(f"queued {len(queued)} proposal(s): decide them in the console (2) or with")
        out.append("  brainview proposals list --kind prune_reflection|decay_synapses|…")
    else:
        out.append("nothing to consolidate")
    return out


def consolidate(args: argparse.Namespace) -> int:
    """Plan (and unless ``--dry-run``, queue) a consolidation of the agent brain."""
    from brainview.services import consolidate as service

    config = load_config(args)
    threshold = (
        args.threshold if args.threshold is not None else config.reflections.pruning_threshold
    )
    if not 0.0 < threshold < 1.0:
        raise UsageError("--threshold must be between 0 and 1")
    settings = service.settings_from(config.consolidate, threshold)
    clock = now()
    with session_of(args) as session:
        if not args.dry_run:
            session.require("consolidate")  # refused before the plan's work, not after
        progress = None if args.json else (lambda stage, _f: note(stage))
        with session.project() as project:
            plan = service.plan(project, now=clock, settings=settings, progress=progress)
        queued = None if args.dry_run else session.queue_consolidation(plan)
    if args.json:
        emit_json({**plan.to_json(), "dry_run": args.dry_run, "queued": queued or []})
    else:
        emit_lines(_lines(plan, queued))
    return 0


def _switch(args: argparse.Namespace, enabled: bool) -> int:
    with session_of(args) as session:
        state, changed = session.set_writing(enabled, getattr(args, "reason", None))
    if args.json:
        emit_json({**state.to_json(), "changed": changed})
        return 0
    if state.paused:
        head = "reflection writing paused" if changed else "reflection writing was already paused"
        why = f": {cell(state.reason, 80)}" if state.reason else ""
        emit_lines(
            [
                f"{head} (by {cell(state.by, 40)} at {state.at}){why}",
                "decisions still grade reflections; rejections write no new reflection",
            ]
        )
    else:
        emit_lines(
            ["reflection writing resumed" if changed else "reflection writing was not paused"]
        )
    return 0


def disable(args: argparse.Namespace) -> int:
    """Pause reflection writing for the project."""
    return _switch(args, False)


def enable(args: argparse.Namespace) -> int:
    """Resume reflection writing for the project."""
    return _switch(args, True)
