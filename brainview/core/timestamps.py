"""Brain timestamps: every spelling Spikuit and brainview write, read as aware UTC, and
the one spelling written.  Pure and light (no numpy, no fsrs): the console's queue
formats ages with it before any brain module loads."""

from __future__ import annotations

from datetime import UTC, datetime


def ensure_utc(dt: datetime) -> datetime:
    """Return ``dt`` as an aware datetime whose tzinfo is ``UTC`` (naive = UTC)."""
    if dt.tzinfo is None:
        return dt.replace(tzinfo=UTC)
    return dt.astimezone(UTC)


def parse_ts(s: str) -> datetime:
    """Parse a brain timestamp (``+00:00``, ``Z``, space separator, or naive) to aware UTC."""
    text = s.strip()
    if text[-1:] in ("Z", "z"):
        text = text[:-1] + "+00:00"
    return ensure_utc(datetime.fromisoformat(text))


def format_ts(dt: datetime) -> str:
    """Format ``dt`` as ISO 8601 in UTC with a ``+00:00`` offset (naive = UTC)."""
    return ensure_utc(dt).isoformat()


def to_epoch_s(dt: datetime) -> float:
    """Seconds since the Unix epoch for ``dt`` (naive = UTC)."""
    return ensure_utc(dt).timestamp()
