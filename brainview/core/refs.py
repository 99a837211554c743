"""``[user:<id>]`` cross-brain references inside reflection text."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from brainview.core.vocabulary import mark

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


def name_refs(
    content: str, titles: dict[str, tuple[str, bool]], *, retired: str = "⊘ retired"
) -> str:
    """``content`` with each ``[user:id]`` replaced by ``⟦title⟧`` (``⟦title ⊘ retired⟧``
    when retired, ``⟦id ↛ dangling⟧`` when ``titles`` — id → (title, live) — lacks it).

    ``retired`` is the mark for a retired neuron: ``⊘ retired``, as every legend reads."""

    def named(match: re.Match[str]) -> str:
        found = titles.get(match.group(1))
        if found is None:
            return f"⟦{match.group(1)} {mark('dangling')}⟧"
        title, live = found
        return f"⟦{title}⟧" if live else f"⟦{title} {retired}⟧"

    return USER_REF.sub(named, content or "")


def titled_ids(text: str, titles: dict[str, str]) -> str:
    """``text`` with each known neuron id (a bare ``n-…`` in a summary or a preview line)
    replaced by ``⟦title⟧`` — longest ids first, so an id that prefixes another is never
    cut.  For display only; ids stay in ``--json``."""
    for nid in sorted(titles, key=len, reverse=True):
        if nid in text:
            text = text.replace(nid, f"⟦{titles[nid]}⟧")
    return text
