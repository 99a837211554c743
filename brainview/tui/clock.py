"""The app's notion of "now" (frozen in tests and snapshots)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

Clock = Callable[[], datetime]


def system_clock() -> datetime:
    """Wall-clock now, UTC."""
    return datetime.now(UTC)


def frozen(at: datetime) -> Clock:
    """A clock stuck at ``at``."""
    return lambda: at
