"""Cutting the bytes on stdin into lines, never holding more than one bounded line.

MCP over stdio sends one JSON-RPC message per line.  A line may be at most
:data:`MAX_LINE_BYTES` (4 MiB) long, newline excluded; ``BRAINVIEW_MCP_MAX_LINE`` (bytes)
may lower that limit, never raise it.  The reader is fed chunks as they arrive
(:meth:`Lines.feed`) and gives back whole lines; a line that grows past the limit is
dropped as it arrives — its bytes are counted, not kept — and comes back as an
:class:`Oversized` once its newline is seen, so the server answers it and serves the
next line.  Memory stays at one limit's worth of buffer, whatever the client sends.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from brainview.errors import UsageError

MAX_LINE_BYTES = 4 * 1024 * 1024
"""The longest request line served (newline excluded); lower it with the variable below."""
MIN_LINE_BYTES = 1024
LIMIT_VARIABLE = "BRAINVIEW_MCP_MAX_LINE"
CHUNK_BYTES = 256 * 1024
"""How much is read from stdin at a time."""


def line_limit(environ: dict[str, str] | None = None) -> int:
    """The line limit: :data:`MAX_LINE_BYTES`, or ``BRAINVIEW_MCP_MAX_LINE`` when it is a
    whole number of bytes between :data:`MIN_LINE_BYTES` and the maximum (a usage error
    otherwise: the limit can be lowered, never raised)."""
    raw = (os.environ if environ is None else environ).get(LIMIT_VARIABLE)
    if raw is None or not raw.strip():
        return MAX_LINE_BYTES
    try:
        value = int(raw.strip())
    except ValueError:
        value = -1
    if not MIN_LINE_BYTES <= value <= MAX_LINE_BYTES:
        raise UsageError(
            f"{LIMIT_VARIABLE}: expected a number of bytes from {MIN_LINE_BYTES} to "
            f"{MAX_LINE_BYTES} (the limit can be lowered, not raised)"
        )
    return value


@dataclass(frozen=True)
class Oversized:
    """A line longer than the limit, dropped unread: how long it was (at least)."""

    size: int


class Lines:
    """Bytes in, whole lines out (without their ``\\n``), each at most ``limit`` bytes."""

    def __init__(self, limit: int = MAX_LINE_BYTES) -> None:
        self.limit = limit
        self._buffer = bytearray()
        self._dropped = 0
        """Bytes of the over-long line being skipped (0: not skipping)."""

    def feed(self, chunk: bytes) -> list[bytes | Oversized]:
        """The lines ``chunk`` completes, in order."""
        out: list[bytes | Oversized] = []
        start = 0
        while start < len(chunk):
            end = chunk.find(b"\n", start)
            piece = chunk[start:] if end < 0 else chunk[start:end]
            self._take(piece)
            if end < 0:
                break
            out.append(self._finish())
            start = end + 1
        return out

    def end(self) -> list[bytes | Oversized]:
        """At end of input: the last line, if it had no newline."""
        if self._dropped or self._buffer:
            return [self._finish()]
        return []

    def _take(self, piece: bytes) -> None:
        if self._dropped:
            self._dropped += len(piece)
        elif len(self._buffer) + len(piece) > self.limit:
            self._dropped = len(self._buffer) + len(piece)
            self._buffer = bytearray()  # release the memory, not just empty it
        else:
            self._buffer += piece

    def _finish(self) -> bytes | Oversized:
        if self._dropped:
            size, self._dropped = self._dropped, 0
            return Oversized(size)
        line = bytes(self._buffer)
        self._buffer = bytearray()
        return line
