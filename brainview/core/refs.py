"""``[user:<id>]`` cross-brain references inside reflection text."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

USER_REF = re.compile(r"\[user:([A-Za-z0-9_.:\-]{1,128})\]")

RefStatus = Literal["live", "retired", "dangling"]


@dataclass(frozen=True)
class UserRef:
    """One resolved reference."""

    neuron_id: str
    status: RefStatus
    title: str = ""
    domain: str | None = None


def parse_refs(content: str) -> list[str]:
    """Referenced user neuron ids, in order of first appearance, without repeats."""
    return list(dict.fromkeys(USER_REF.findall(content or "")))


def format_ref(neuron_id: str) -> str:
    """The token that refers to a user neuron."""
    return f"[user:{neuron_id}]"
