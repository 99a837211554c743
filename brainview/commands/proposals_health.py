"""``brainview proposals health [--notify] [--json]``: is the queue being looked after?

Prints the queue's health (:mod:`brainview.services.metrics.queue_health`): pending,
stale (older than ``queue.stale_after_days``), the oldest's age, arrivals and decisions
over ``queue.window_days``, and one line per alert.  Read-only.  With ``--notify`` and
an alert, runs ``queue.notify_command`` with the summary JSON on stdin
(:func:`brainview.services.metrics.queue_health.notify`); the health is printed first, so a failing
command costs one line on stderr and exit code 15, never the report.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from brainview.commands.common import (
    emit_json,
    emit_lines,
    load_config,
    now,
    open_project,
    paths_of,
)

if TYPE_CHECKING:
    import argparse

    from brainview.core.queue_health import QueueHealth


def health(args: argparse.Namespace) -> int:
    """The queue's health; with ``--notify`` and an alert, tell the team."""
    from brainview.services.metrics.queue_health import queue_health, stale_ids

    cfg = load_config(args).queue
    root = paths_of(args).project_root
    clock = now()
    with open_project(args) as project:
        found = queue_health(project, clock, cfg)
        ids = stale_ids(project, clock, cfg) if found.stale_alert else []
    summary: dict[str, Any] = {"queue_health": found.to_json(), "stale_ids": ids}
    summary["at"] = clock.isoformat()
    notified: dict[str, Any] | None = None
    failure = None
    if args.notify and found.alert:
        from brainview.errors import NotifyError
        from brainview.services.metrics.queue_health import notify

        argv = list(cfg.notify_command)
        try:
            done = notify(argv, summary, timeout=cfg.notify_timeout, cwd=_cwd(root))
            notified = {"command": done.argv[0], "exit_code": done.exit_code}
        except NotifyError as err:
            failure = err
    if args.json:
        emit_json(summary | {"notified": notified} if args.notify else summary)
    else:
        emit_lines(_render(found, ids, notified))
    if failure is not None:
        raise failure
    return 0


def _cwd(root: object) -> Any:
    from pathlib import Path

    return root if isinstance(root, Path) and root.is_dir() else Path.cwd()


def _render(found: QueueHealth, ids: list[str], notified: dict[str, Any] | None) -> list[str]:
    from brainview.commands.common import cell

    oldest = "—" if found.oldest_age_days is None else f"{found.oldest_age_days:g} d"
    out = [
        f"{found.pending} pending · {found.stale} older than {found.stale_after_days} d "
        f"(oldest {oldest}) · last {found.window_days} d: {found.arrivals} arrived, "
        f"{found.decisions} decided"
    ]
    out += [f"ALERT: {reason}" for reason in found.reasons] or ["healthy"]
    if ids:
        out.append(
            "stale: " + ", ".join(cell(i, 40) for i in ids[:5]) + (" …" if len(ids) > 5 else "")
        )
    if notified is not None:
        out.append(f"notified: {cell(notified['command'], 80)} exited 0")
    return out
