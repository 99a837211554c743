"""What ``brainview serve`` bounds and how it answers what it refuses.

* **Consoles**: at most ``--max-sessions`` app processes at once (each is a whole
  ``brainview open``, ~75 MB).  When full, the page is a short HTML notice (503) and
  a websocket is closed at once with code 1013 ("try again later") and a reason.
* **Idle consoles**: a session with no input from its tab (keys, mouse, resize, focus)
  for ``--idle-timeout`` seconds is ended and its websocket closed (1001, reason).
* **Messages from the tab**: parsed defensively — anything that is not a well-formed
  ``[type, data]`` envelope of a known type with data of the right shape is ignored;
  frames are at most :data:`MAX_MESSAGE` bytes.
* **Logs**: malformed HTTP (no ``Host``, garbage request lines, bad handshakes) gets
  aiohttp's 400 and no log line; any other error is one line, never a traceback.
"""

from __future__ import annotations

import html
import json
import logging
import math
from dataclasses import dataclass
from typing import Any

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError

from brainview.errors import UsageError

MAX_SESSIONS = 8
"""Default cap on concurrent consoles."""
MAX_SESSIONS_LIMIT = 256
IDLE_TIMEOUT_S = 1800.0
"""Default: a console untouched for 30 minutes is ended."""
IDLE_TIMEOUT_LIMIT_S = 7 * 24 * 3600.0
MAX_MESSAGE = 1 << 16
"""Largest websocket frame a tab may send (keystrokes and pastes; 64 KiB)."""
MAX_CELLS = 1000
"""Largest terminal width or height a tab may ask for."""
TRY_AGAIN_LATER = 1013
"""Websocket close code: the server is at capacity."""
KNOWN = ("stdin", "resize", "ping", "blur", "focus")
ACTIVITY = ("stdin", "resize", "blur", "focus")
"""Envelope types that count as someone using the tab (``ping`` is the page's timer)."""


@dataclass(frozen=True)
class Limits:
    """The bounds one server runs with."""

    max_sessions: int = MAX_SESSIONS
    idle_timeout: float = IDLE_TIMEOUT_S
    """Seconds; ``0`` never ends an idle console."""


def limits_of(max_sessions: int, idle_timeout: float) -> Limits:
    """Validated flags (one-line usage errors)."""
    if not 1 <= max_sessions <= MAX_SESSIONS_LIMIT:
        raise UsageError(f"--max-sessions: expected 1-{MAX_SESSIONS_LIMIT}, got {max_sessions}")
    if not (math.isfinite(idle_timeout) and 0 <= idle_timeout <= IDLE_TIMEOUT_LIMIT_S):
        raise UsageError(
            f"--idle-timeout: expected 0-{IDLE_TIMEOUT_LIMIT_S:g} seconds, got {idle_timeout}"
        )
    return Limits(max_sessions, idle_timeout)


def full_message(limits: Limits) -> str:
    """The one line shown (page and websocket close reason) when every console is in use."""
    idle = (
        f" or wait until one has been idle for {limits.idle_timeout:g} s"
        if limits.idle_timeout
        else ""
    )
    return (
        f"all {limits.max_sessions} consoles of this brainview serve are in use: "
        f"close another tab{idle}, then reload"
    )


def full_page(limits: Limits, role: str | None = None) -> web.Response:
    """A short HTML notice, status 503, for the page request while full (for ``role``:
    the slots it may take, :mod:`brainview.web.slots`)."""
    message = full_message(limits)
    if role in ("viewer", "reviewer"):
        message = (
            f"every console a {role} may open on this brainview serve is in use (some are "
            "kept for reviewers and maintainers): close another tab, then reload"
        )
    text = html.escape(message)
    body = (
        "<!doctype html><html><head><meta charset='utf-8'><title>brainview: busy</title>"
        f"</head><body><h1>brainview is busy</h1><p>{text}</p></body></html>"
    )
    return web.Response(status=503, text=body, content_type="text/html", charset="utf-8")


def envelope(data: Any) -> tuple[str, Any] | None:
    """A tab's message as ``(type, data)``, or ``None`` when it is malformed."""
    if not isinstance(data, str):
        return None
    try:
        value = json.loads(data)
    except ValueError:
        return None
    if not isinstance(value, list) or not value or value[0] not in KNOWN:
        return None
    kind, arg = value[0], value[1] if len(value) > 1 else None
    if kind == "stdin" and not isinstance(arg, str):
        return None
    if kind == "resize":
        size = _size(arg)
        if size is None:
            return None
        arg = size
    if kind == "ping" and not isinstance(arg, str | int | float):
        return None
    return kind, arg


def _size(arg: Any) -> tuple[int, int] | None:
    if not isinstance(arg, dict):
        return None
    width, height = arg.get("width"), arg.get("height")
    if not (isinstance(width, int) and isinstance(height, int)):
        return None
    if isinstance(width, bool) or isinstance(height, bool):
        return None
    return max(1, min(width, MAX_CELLS)), max(1, min(height, MAX_CELLS))


class OneLine(logging.Filter):
    """Malformed HTTP requests are not logged; everything else loses its traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, HttpProcessingError):
            return False  # answered with a 400 already: a client's mistake, not ours
        if exc is not None:
            from brainview.core.safe_text import one_line

            detail = one_line(f"{type(exc).__name__}: {exc}", 300)
            record.msg = f"{record.getMessage()}: {detail}"
            record.args = ()
            record.exc_info = None
            record.exc_text = None
        return True
