"""Queue health for every face: the overview, the triage title, ``stats --json``,
``brainview proposals health`` and MCP ``queue_health``; and telling a team about it.

One read transaction, four aggregates (:mod:`brainview.store.queue_health_reads`), then
:func:`brainview.core.queue_health.assess` with the project's ``[queue]`` settings.
Read-only: nothing is written, whatever the answer.

:func:`notify` runs ``[queue] notify_command`` — an argv list from the config, run
directly (never through a shell), in the project's directory — with the summary JSON on
stdin, bounded by ``notify_timeout`` seconds and its stderr by :data:`MAX_OUTPUT` bytes;
any failure (not found, not executable, non-zero exit, timeout) raises
:class:`~brainview.errors.NotifyError` with one line.  Only ``brainview proposals health
--notify`` runs it: no decision ever waits on it.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from brainview.config import QueueConfig
from brainview.core.queue_health import QueueCounts, QueueHealth, assess, stale_cutoff, window_start
from brainview.core.safe_text import one_line
from brainview.core.timestamps import ensure_utc, format_ts, parse_ts
from brainview.errors import ConfigError, NotifyError
from brainview.store import queue_health_reads as reads

if TYPE_CHECKING:
    from brainview.services.project import Project
    from brainview.store.discovery import BrainPaths

STALE_IDS = 20
"""Stale proposals named in a notification's summary (oldest first)."""
MAX_OUTPUT = 4096
"""Bytes of the command's stderr kept for the failure line."""


def _stamp(when: datetime) -> str:
    return format_ts(ensure_utc(when).replace(microsecond=0))


def queue_health(project: Project, now: datetime, cfg: QueueConfig | None = None) -> QueueHealth:
    """The queue's health at ``now`` (no agent brain: an empty, healthy queue)."""
    cfg = cfg or QueueConfig()
    now = ensure_utc(now)
    counts = QueueCounts(0, 0, None, 0, 0)
    if project.agent is not None:
        cutoff = _stamp(stale_cutoff(now, cfg.stale_after_days))
        since = _stamp(window_start(now, cfg.window_days))
        with project.agent.read() as conn:
            pending, oldest = reads.pending_oldest(conn)
            counts = QueueCounts(
                pending=pending,
                stale=reads.pending_before(conn, cutoff) if pending else 0,
                oldest_created_at=_parsed(oldest),
                arrivals=reads.arrivals_since(conn, since),
                decisions=reads.decisions_since(conn, since),
            )
    return assess(
        counts,
        now,
        stale_after_days=cfg.stale_after_days,
        window_days=cfg.window_days,
        growth_min=cfg.growth_min,
    )


def stale_ids(
    project: Project, now: datetime, cfg: QueueConfig, limit: int = STALE_IDS
) -> list[str]:
    """The oldest stale proposals' ids (at most ``limit``), oldest first."""
    if project.agent is None:
        return []
    cutoff = _stamp(stale_cutoff(ensure_utc(now), cfg.stale_after_days))
    with project.agent.read() as conn:
        return reads.stale_pending_ids(conn, cutoff, limit)


def _parsed(value: str | None) -> datetime | None:
    if value is None:
        return None
    try:
        return parse_ts(value)
    except (ValueError, IndexError, OverflowError):
        return None


def health_at(paths: BrainPaths, now: datetime) -> dict[str, Any]:
    """``queue_health`` of the project at ``paths`` with its own ``[queue]`` settings,
    as JSON (for faces that hold paths, not a session: MCP)."""
    from brainview.config import load
    from brainview.services.project import Project

    cfg = load(paths.config_path).queue
    with Project.open(paths) as project:
        return queue_health(project, now, cfg).to_json()


@dataclass(frozen=True)
class Notified:
    """What the notify command did."""

    argv: list[str]
    exit_code: int


def notify(argv: list[str], summary: dict[str, Any], *, timeout: int, cwd: Path) -> Notified:
    """Run ``argv`` with ``summary`` as JSON on stdin; raise NotifyError on any failure."""
    if not argv:
        raise ConfigError("queue.notify_command is not set: nothing to run for --notify")
    payload = json.dumps(summary, ensure_ascii=False, sort_keys=True).encode("utf-8")
    name = one_line(argv[0], 80)
    try:
        done = subprocess.run(  # noqa: S603 - an argv from the config, no shell
            argv,
            input=payload,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            timeout=timeout,
            cwd=cwd,
            check=False,
            shell=False,
        )
    except subprocess.TimeoutExpired:
        raise NotifyError(f"notify command {name} did not finish within {timeout} s") from None
    except OSError as err:
        raise NotifyError(f"notify command {name} could not run: {err.strerror or err}") from None
    if done.returncode != 0:
        tail = one_line(done.stderr[-MAX_OUTPUT:].decode("utf-8", "replace"), 120)
        said = f": {tail}" if tail else ""
        raise NotifyError(f"notify command {name} exited with {done.returncode}{said}")
    return Notified(list(argv), done.returncode)
