"""Tell a team the queue needs them: run ``[queue] notify_command`` with the summary.

The command is an argv list from the config, run directly (never through a shell), in
the project's directory, with the summary JSON on stdin and nothing else inherited but
the environment.  It is bounded by ``notify_timeout`` seconds and its output by
:data:`MAX_OUTPUT` bytes; any failure (not found, not executable, non-zero exit,
timeout) raises :class:`~brainview.errors.NotifyError` with one line.  Only
``brainview proposals health --notify`` runs it: no decision ever waits on it.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from brainview.core.safe_text import one_line
from brainview.errors import ConfigError, NotifyError

MAX_OUTPUT = 4096
"""Bytes of the command's stderr kept for the failure line."""


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
