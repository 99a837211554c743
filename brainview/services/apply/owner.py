"""Whose intent is it: recovery finishes only what nobody alive is carrying out.

An intent is written (agent brain) before its user-brain change is made, by the
process that then makes it.  Recovery (:func:`brainview.services.apply.runner.recover`,
run before every decision) must not take over an intent another live process is in the
middle of — it would report "recovered apply of X: already" about someone else's
decision.  So each intent records its **owner** — ``host:pid:start`` (the process's
start time in clock ticks from ``/proc``, so a reused pid is not mistaken for the
owner) — and recovery skips an intent when:

* it is in flight in this very process (inside :func:`holding`), or
* its owner is another process on this host that is still running, or
* its owner is on another host and it is younger than :data:`OTHER_HOST_GRACE_S`
  (liveness cannot be checked across hosts).

Intents without an owner (written before schema 5) and intents whose owner has ended
are recovered as before.
"""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from functools import cache

from brainview.core import fsrs_math

OTHER_HOST_GRACE_S = 600.0
"""How long an intent owned by a process on another host is left to it."""

_lock = threading.Lock()
_in_flight: dict[str, int] = {}
"""Batches this process is carrying out now, with how many callers hold each."""


def _proc_stat(pid: int) -> tuple[str, str] | None:
    """(state, start time) from ``/proc/PID/stat``; ``None`` where it cannot be read."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:  # not a brain file
            stat = fh.read().decode("ascii", "replace")
    except OSError:
        return None
    fields = stat[stat.rfind(")") + 2 :].split()
    return (fields[0], fields[19]) if len(fields) > 19 else None


def _start_ticks(pid: int) -> str:
    """The process's start time in clock ticks (``""`` without ``/proc``)."""
    found = _proc_stat(pid)
    return found[1] if found else ""


@cache
def process_owner() -> str:
    """``host:pid:start`` of this process."""
    pid = os.getpid()
    return f"{socket.gethostname()}:{pid}:{_start_ticks(pid)}"


@contextmanager
def holding(batch_id: str | None) -> Iterator[None]:
    """While the block runs, this process is carrying out the intents of ``batch_id``
    (written in it, then applied): recovery in this process leaves them alone.  Released
    however the block ends — a batch left pending by an error is recoverable at once."""
    if batch_id is None:
        yield
        return
    with _lock:
        _in_flight[batch_id] = _in_flight.get(batch_id, 0) + 1
    try:
        yield
    finally:
        with _lock:
            left = _in_flight.pop(batch_id) - 1
            if left:
                _in_flight[batch_id] = left


def in_flight_elsewhere(batch_id: str, owner: str | None, created_at: str, now: datetime) -> bool:
    """Whether someone alive is carrying this batch out (so recovery must leave it)."""
    with _lock:
        if batch_id in _in_flight:
            return True
    if not owner:
        return False
    parts = owner.rsplit(":", 2)
    if len(parts) != 3 or owner == process_owner():
        return False  # ours and not in flight: left behind (a busy brain); finish it now
    host, pid_text, start = parts
    if host != socket.gethostname():
        try:
            at = fsrs_math.parse_ts(created_at)
        except (ValueError, IndexError):
            return False
        return (fsrs_math.ensure_utc(now) - at).total_seconds() < OTHER_HOST_GRACE_S
    if not pid_text.isdigit() or int(pid_text) <= 0:
        return False
    pid = int(pid_text)
    try:
        os.kill(pid, 0)  # signal 0: only asks whether the process exists
    except (ProcessLookupError, OverflowError):
        return False
    except PermissionError:
        pass  # alive, another user's
    found = _proc_stat(pid)
    if found is None:
        return True  # the pid exists and /proc cannot tell more: leave it alone
    state, ticks = found
    return state not in ("Z", "X") and (not start or ticks == start)
