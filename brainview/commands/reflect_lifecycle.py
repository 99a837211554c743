"""``brainview reflect challenge|quarantine|release|invalidate|reinstate|undo|fading``.

Lifecycle actions go through :mod:`brainview.services.lifecycle` exactly as the
console's do: one call is one transaction and one *batch* (all ids or none), recorded
with actor, time and reason, and ``reflect undo`` reverts a whole batch exactly.
``fading`` lists live reflections whose retrievability falls below the pruning
threshold within the horizon (:func:`brainview.services.communities.curves.fading`).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from brainview.commands.common import (
    cell,
    emit_json,
    emit_lines,
    fmt_float,
    load_config,
    now,
    open_project,
    session_of,
)
from brainview.errors import UsageError

if TYPE_CHECKING:
    import argparse


def _ids(args: argparse.Namespace) -> list[str]:
    """IDs from the command line; ``-`` reads more, one per line, from stdin."""
    out: list[str] = []
    for ident in args.ids:
        if ident == "-":
            out += [line.strip() for line in sys.stdin.read(16 * 1024 * 1024).splitlines()]
        else:
            out.append(ident)
    out = [i for i in out if i]
    if not out:
        raise UsageError("no reflection ids given")
    return out


def _batch(args: argparse.Namespace, verb: str) -> int:
    if verb not in ("reinstate", "release") and not (args.reason or "").strip():
        raise UsageError(f"reflect {verb}: --reason is required")
    with session_of(args) as session:
        actor = session.decider
        result = session.lifecycle(verb, _ids(args), reason=args.reason or "")
        radius = _radius(session, [r for r, _a, _b in result.changed], verb)
    data: dict[str, Any] = {
        "batch_id": result.batch_id,
        "action": result.verb,
        "actor": actor,
        "at": result.at,
        "changed": [{"reflection": r, "from": a, "to": b} for r, a, b in result.changed],
        "unchanged": [{"reflection": r, "why": why} for r, why in result.unchanged],
        "flagged_proposals": list(result.flagged),
        "synapses": result.synapses,
        "held_vote": result.held_vote,
    }
    if radius is not None:
        data["blast_radius"] = radius
    if args.json:
        emit_json(data)
        return 0
    batch, vote = result.batch_id, result.held_vote
    if vote is not None:
        head = (
            f"{result.verb}: held, nothing changed — your approval is recorded (vote {vote}); a "
            f"second, different person applies it (withdraw: brainview proposals withdraw {vote})"
        )
    else:
        head = (
            f"{result.verb}: {len(result.changed)} changed, {len(result.unchanged)} unchanged "
            f"(batch {batch}; undo: brainview reflect undo {batch})"
        )
    out = [head]
    out += [f"  {cell(r, 40)}: {a} → {b}" for r, a, b in result.changed]
    out += [f"  {cell(r, 40)}: {cell(why)}" for r, why in result.unchanged]
    if result.flagged:
        out.append(f"  {len(result.flagged)} pending proposal(s) flagged as suspect")
    if radius is not None:
        out.append(
            f"  blast radius: {radius['pending']} pending, {radius['decided']} decided "
            f"proposal(s), {radius['neighbours']} neighbour(s); what it changed: "
            "brainview reflect replay ID"
        )
    emit_lines(out)
    return 0


def _radius(session: Any, ids: list[str], verb: str) -> dict[str, Any] | None:
    """A quarantine's blast radius (what the lesson influenced), read after the batch."""
    if verb != "quarantine" or not ids:
        return None
    from brainview.services.lifecycle.blast import radius

    with session.project() as project:
        found = radius(project, ids)
    return {
        "pending": len({p.proposal_id for p in found.pending}),
        "decided": len({p.proposal_id for p in found.decided}),
        "neighbours": len(found.neighbours) + found.more_neighbours,
        "proposals": [
            {"proposal": p.proposal_id, "reflection": p.reflection_id, "role": p.role,
             "stance": p.stance, "status": p.status, "verdict": p.verdict}
            for p in found.proposals
        ],
    }  # fmt: skip


def challenge(args: argparse.Namespace) -> int:
    """Flag reflections for review (still consulted, shown with a warning)."""
    return _batch(args, "challenge")


def invalidate(args: argparse.Namespace) -> int:
    """Soft-retire reflections (never consulted again; history and text kept)."""
    return _batch(args, "invalidate")


def reinstate(args: argparse.Namespace) -> int:
    """Back to live: undo a challenge, a quarantine or an invalidation."""
    return _batch(args, "reinstate")


def quarantine(args: argparse.Namespace) -> int:
    """Never recall reflections again until released (nothing else changes)."""
    return _batch(args, "quarantine")


def release(args: argparse.Namespace) -> int:
    """Quarantined reflections back into recall."""
    return _batch(args, "release")


def undo(args: argparse.Namespace) -> int:
    """Revert a lifecycle batch exactly (``--last``: the most recent one)."""
    with session_of(args) as session:
        result = session.undo_lifecycle(None if args.last else args.batch)
    data = {
        "batch_id": result.batch_id,
        "undo_batch_id": result.undo_batch_id,
        "action": result.action,
        "reflections": list(result.reflections),
        "rows_restored": result.rows_restored,
        "at": result.at,
    }
    if args.json:
        emit_json(data)
        return 0
    emit_lines(
        [
            f"undone {result.batch_id} ({result.action} of {len(result.reflections)} "
            f"reflection(s)): {result.rows_restored} row change(s) reverted"
        ]
    )
    return 0


def fading(args: argparse.Namespace) -> int:
    """Live reflections about to fall below the pruning threshold, soonest first."""
    from brainview.services.communities.curves import fading as fading_list

    config = load_config(args)
    threshold = (
        args.threshold if args.threshold is not None else config.reflections.pruning_threshold
    )
    days = args.days if args.days is not None else config.reflections.fading_days
    if not 0.0 < threshold < 1.0:
        raise UsageError("--threshold must be between 0 and 1")
    if not 1 <= days <= 3650 or not 1 <= args.limit <= 10_000:
        raise UsageError("--days must be 1..3650 and --limit 1..10000")
    clock = now()
    with open_project(args) as project:
        result = fading_list(project, clock, threshold=threshold, days=days, limit=args.limit)
    rows = [
        {
            "id": r.id,
            "title": r.title,
            "skill": r.skill,
            "retrievability": r.r_now,
            "stability": r.stability,
            "crossing_days": r.crossing_days,
            "decision": r.decision,
        }
        for r in result.rows
    ]
    if args.json:
        emit_json(
            {
                "threshold": result.threshold,
                "days": result.days,
                "total": result.total,
                "below_now": result.below_now,
                "count": len(rows),
                "reflections": rows,
                "now": clock.isoformat(),
            }
        )
        return 0
    out = [
        f"{cell(r.id, 24):<24} {cell(r.skill, 10):<10} R={fmt_float(r.r_now)} "
        f"S={fmt_float(r.stability):>7} crosses in {r.crossing_days:.1f} d  "
        f"{cell(r.title, 50)}" + (f" [{r.decision}]" if r.decision else "")
        for r in result.rows
    ]
    out.append(
        f"{result.total} reflection(s) fall below R={threshold:.2f} within {days} days "
        f"({result.below_now} already below)"
    )
    emit_lines(out)
    return 0
