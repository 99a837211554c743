"""Whose intent is it: recovery finishes only what nobody alive is carrying out.

An intent is written (agent brain) before its user-brain change is made, by the
process that then makes it.  Recovery (:func:`brainview.services.apply.runner.recover`,
run before every decision) must not take over an intent another live process is in the
middle of — it would report "recovered apply of X: already" about someone else's
decision.  So each intent records its **owner** — ``host:pid:start`` (the process's
start time in clock ticks from ``/proc``, so a reused pid is not mistaken for the
owner) — and recovery skips an intent when:

* it is in flight in this very process (:func:`claim` … :func:`release`), or
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
from collections.abc import Iterable
from datetime import datetime
from functools import cache

from brainview.core import fsrs_math

OTHER_HOST_GRACE_S = 600.0
"""How long an intent owned by a process on another host is left to it."""

_lock = threading.Lock()
_in_flight: set[str] = set()


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


def claim(intent_ids: Iterable[str]) -> None:
    """Mark intents as being carried out by this process (recovery leaves them)."""
    with _lock:
        _in_flight.update(intent_ids)


def release(intent_ids: Iterable[str]) -> None:
    """This process is no longer carrying these intents out (done, or left pending)."""
    with _lock:
        _in_flight.difference_update(intent_ids)


def in_flight_elsewhere(intent_id: str, owner: str | None, created_at: str, now: datetime) -> bool:
    """Whether someone alive is carrying this intent out (so recovery must leave it)."""
    with _lock:
        if intent_id in _in_flight:
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
