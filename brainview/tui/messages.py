"""Messages posted by workers; handlers on the screens apply them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual.message import Message


@dataclass
class StatsLoaded(Message):
    """Vital signs of the project are ready."""

    data: dict[str, Any]


@dataclass
class RetentionLoaded(Message):
    """A brain's retention distribution is ready."""

    role: str
    summary: Any


@dataclass
class LoadFailed(Message):
    """A background read failed; ``text`` is one line for the user."""

    what: str
    text: str
