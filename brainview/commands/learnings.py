"""``brainview learnings import|plan``: a ``.learnings/`` tree as an agent brain."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from brainview.commands.common import emit_json, note
from brainview.core.safe_text import one_line
from brainview.errors import NotFoundError


def _project_dir(args: argparse.Namespace, learnings: Path) -> Path:
    """``--into PROJECT``, else the directory holding the ``.learnings`` tree (as named:
    a tree reached through a link is not taken for part of the link's target)."""
    if args.into:
        return Path(args.into)
    return Path(os.path.abspath(learnings)).parent


def import_(args: argparse.Namespace) -> int:
    """``brainview learnings import DIR [--into PROJECT] [--init] [--dry-run] [--json]``."""
    from brainview.services.learnings.importing import learnings_root, scan
    from brainview.services.learnings.tree import standalone
    from brainview.store.discovery import discover

    root = learnings_root(Path(args.dir))
    if args.dry_run:
        found, result = scan(standalone(root))
        data = {"entries": len(found), **result.to_json()}
        if args.json:
            emit_json(data, sort_keys=True)
        else:
            print(f"{len(found)} entries in {one_line(str(root), 200)} (dry run: nothing written)")
        return 0
    project_dir = _project_dir(args, root)
    if args.init:
        from brainview.services.brains_init import init_missing

        init_missing(project_dir, note)
    elif not (project_dir / ".spikuit").exists():
        raise NotFoundError(
            f"{project_dir} holds no .spikuit/ brain: pass --init to create empty brains "
            "there, or --into PROJECT"
        )
    paths = discover(project_dir)
    if not paths.agent_present():
        raise NotFoundError(
            f"no agent brain at {paths.agent_db}: pass --init to create one (empty)"
        )
    from brainview.commands.common import session_in

    with session_in(args, paths) as session:
        result = session.import_learnings(root)
    if args.json:
        emit_json(result.to_json(), sort_keys=True)
        return 0
    print(
        f"imported {len(result.added)} new entries ({result.linked} repeats linked as uses), "
        f"{len(result.moved)} moved, {result.unchanged} unchanged, "
        f"{result.free_lines} free-form lines kept"
    )
    for file, line, why in result.blocked:
        print(f"  not imported {one_line(file, 80)}:{line}: {one_line(why, 120)}")
    for file, line, why in result.flagged:
        print(f"  ⚑ flagged {one_line(file, 80)}:{line}: {one_line(why, 160)}")
    for file, why in result.skipped:
        print(f"  skipped {one_line(file, 80)}: {one_line(why, 80)}", file=sys.stderr)
    return 0


def plan(args: argparse.Namespace) -> int:
    """``brainview learnings plan [PATH] [--dry-run] [--json]``: queue the tier moves."""
    from brainview.commands.common import session_of

    with session_of(args) as session:
        result = session.queue_tier_moves(dry_run=args.dry_run)
    if args.json:
        emit_json(result.to_json(), sort_keys=True)
        return 0
    verb = "would queue" if args.dry_run else "queued"
    print(f"{verb} {len(result.queued)} tier move(s); {result.already_pending} already pending")
    for p in result.queued:
        params = p["params"]
        assert isinstance(params, dict)
        print(f"  {p['id']}  {params['action']:<8} {one_line(str(p['rationale']), 100)}")
    if not result.queued and result.why_empty:
        print("nothing to move now:")
        for why in result.why_empty:
            print(f"  {one_line(why, 160)}")
    return 0
