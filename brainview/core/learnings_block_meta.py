"""The metadata lines of a ``.learnings/`` block entry, as the skill writes them.

A block (``## [LRN-YYYYMMDD-XXX] category``) carries ``**Logged**:``, ``**Status**:``,
``**Priority**:``, ``Pattern-Key:``, ``See Also:``, ``Recurrence-Count:`` and
``Last-Seen:`` lines and a ``### Summary`` (``### Requested Capability``) section.
Pure: decoded lines in, fields out (:mod:`~.learnings_parse` builds the entry).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

STATUS = re.compile(r"\*{0,2}status\*{0,2}\s*[:=]\s*\*{0,2}\s*([A-Za-z_-]+)", re.IGNORECASE)
PRIORITY = re.compile(r"\*{0,2}priority\*{0,2}\s*[:=]\s*\*{0,2}\s*([A-Za-z0-9_-]+)", re.I)
_LOGGED = re.compile(r"^\*\*Logged\*\*\s*:\s*(\d{4}-\d{2}-\d{2})")
_PATTERN_KEY = re.compile(r"^\s*(?:[-*]\s+)?\*{0,2}Pattern-Key\*{0,2}\s*:\*{0,2}\s*(\S+)", re.I)
_SEE_ALSO = re.compile(r"^\s*(?:[-*]\s+)?\*{0,2}See Also\*{0,2}\s*:\*{0,2}(.*)$", re.I)
_RECURRENCE = re.compile(
    r"^\s*(?:[-*]\s+)?\*{0,2}Recurrence-Count\*{0,2}\s*:\*{0,2}\s*(\d{1,6})", re.I
)
_LAST_SEEN = re.compile(
    r"^\s*(?:[-*]\s+)?\*{0,2}Last-Seen\*{0,2}\s*:\*{0,2}\s*(\d{4}-\d{2}-\d{2})", re.I
)
_BLOCK_ID = re.compile(r"\b[A-Z]{2,8}-\d{8}-[A-Za-z0-9]+\b")
_SUMMARY_HEADS = ("### summary", "### requested capability")


@dataclass(frozen=True)
class BlockMeta:
    """What a block's body says about it (``None``/empty: the line is not there)."""

    logged: str | None
    status: str | None
    priority: str | None
    pattern_key: str | None
    see_also: tuple[str, ...]
    used: int
    last_seen: str | None
    summary: str


def _key(m: re.Match[str]) -> str | None:
    return m.group(1).strip("*`").casefold() or None


def read_meta(body: list[str], own_id: str) -> BlockMeta:
    """The fields of a block whose lines after the header are ``body``; ``See Also``
    ids other than ``own_id``, first mention first; the last ``Logged`` line wins."""
    logged = status = priority = key = last_seen = None
    summary = ""
    see: list[str] = []
    used = 0
    for j, text in enumerate(body):
        if rc := _RECURRENCE.match(text):
            used = int(rc.group(1))
        if seen := _LAST_SEEN.match(text):
            last_seen = seen.group(1)
        if stamp := _LOGGED.match(text):
            logged = stamp.group(1)
        if status is None and (s := STATUS.match(text)):
            status = s.group(1).lower()
        if priority is None and (p := PRIORITY.match(text)):
            priority = p.group(1).lower()
        if key is None and (k := _PATTERN_KEY.match(text)):
            key = _key(k)
        if also := _SEE_ALSO.match(text):
            see += [i for i in _BLOCK_ID.findall(also.group(1)) if i != own_id]
        if text.strip().lower() in _SUMMARY_HEADS and not summary:
            summary = next((t.strip() for t in body[j + 1 :] if t.strip()), "")
    return BlockMeta(
        logged, status, priority, key, tuple(dict.fromkeys(see)), used, last_seen, summary
    )


def block_marks(text: str) -> tuple[str | None, tuple[str, ...]]:
    """``(Pattern-Key, See Also ids)`` named in a block's text (an imported entry's)."""
    key = None
    see: list[str] = []
    for line in text.split("\n"):
        if key is None and (k := _PATTERN_KEY.match(line)):
            key = _key(k)
        if also := _SEE_ALSO.match(line):
            see += _BLOCK_ID.findall(also.group(1))
    return key, tuple(dict.fromkeys(see))
