"""``brainview reflect replay ID``: what past recalls, decisions and held-back drafts a
lesson changed, re-run without it (:mod:`brainview.services.replay`).  Read-only:
nothing is logged, no row of either brain changes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from brainview.commands.common import cell, emit_json, emit_lines, now, open_project
from brainview.errors import UsageError

if TYPE_CHECKING:
    import argparse

    from brainview.services.replay.model import Replay


def replay(args: argparse.Namespace) -> int:
    """Replay a lesson: recalls re-ranked without it, decisions and drafts it swayed."""
    from brainview.services.replay import replay as run

    if not 1 <= args.limit <= 10_000:
        raise UsageError("--limit must be 1..10000")
    clock = now()
    with open_project(args) as project:
        result = run(project, args.id, now=clock, limit=args.limit)
    if args.json:
        emit_json(result.to_json())
        return 0
    emit_lines(lines(result))
    return 0


def lines(result: Replay) -> list[str]:
    """The human report (every brain string made safe)."""
    recalls, decisions, held = result.affected
    out = [
        f"replay of {cell(result.reflection_id, 40)} ({result.state}): "
        f"{len(result.recalls)} of {result.recalls_total} recall(s) replayed, "
        f"{recalls} changed; {decisions} of {len(result.decisions)} decision(s) and "
        f"{held} of {len(result.held_back)} held-back draft(s) would change"
    ]
    for r in result.recalls:
        mark = "≠" if r.matters else "="
        why = ", ".join(r.changes) or "no change that matters"
        top = cell(r.new_top or "(no hit)", 30)
        out.append(
            f"  {mark} {cell(r.recall_id, 24)} {cell(r.at, 25)} rank {r.rank or '-'} "
            f"{cell(r.stance or '-', 12)} → top now {top}: {why}  «{cell(r.query, 50)}»"
        )
    for d in result.decisions:
        mark = "≠" if d.would_change else "="
        verdict = cell(d.verdict or d.status, 12)
        out.append(
            f"  {mark} proposal {cell(d.proposal_id, 28)} {cell(d.kind, 16)} {verdict} "
            f"({cell(d.stance, 12)}): {', '.join(d.changes) or 'unchanged'}  "
            f"{cell(d.summary, 50)}"
        )
    for h in result.held_back:
        mark = "≠" if h.would_change else "="
        out.append(
            f"  {mark} held back {cell(h.held_back_id, 28)} {cell(h.kind, 16)} "
            f"{cell(h.action, 12)} ({cell(h.stance or '-', 12)}): "
            f"{', '.join(h.changes) or 'unchanged'}"
        )
    out += [f"  skipped {cell(s, 100)}" for s in result.skipped]
    return out
