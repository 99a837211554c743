"""The words two ``.learnings`` lessons are compared by (pure).

Stems of the words a lesson says (dates, markers, short and common words dropped),
Jaccard similarity between two such sets, and the fix a correction names (the words
after its arrow).
"""

from __future__ import annotations

import re
import unicodedata

_WORD = re.compile(r"\w+")
_ARROW = re.compile(r"\s+(?:→|->|=>)\s+")
_STOP = frozenset(
    (
        "the", "and", "for", "with", "that", "this", "from", "into", "when", "then", "than",
        "not", "did", "does", "was", "were", "are", "has", "have", "had", "you", "your", "its",
        "always", "never", "every", "before", "after", "use", "used", "instead",
    )
)  # fmt: skip


def _stem(w: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            w = w[: -len(suffix)]
            break
    if len(w) > 3 and w[-1] == w[-2]:
        w = w[:-1]
    return w


def words(text: str) -> frozenset[str]:
    """The word stems a lesson is compared by (dates, markers, short and common words
    dropped)."""
    s = unicodedata.normalize("NFKC", text).casefold()
    s = re.sub(r"\[\d{4}-\d{2}-\d{2}[^\]]*\]", " ", s)
    s = re.sub(r"\((?:used|confirmed|corrected|added|seen)[^)]*\)", " ", s)
    s = re.sub(r"(?:status|priority)\s*[:=]\s*\S+", " ", s)
    return frozenset(_stem(w) for w in _WORD.findall(s) if len(w) > 2 and w not in _STOP)


def similar(a: frozenset[str], b: frozenset[str], threshold: float = 0.5) -> bool:
    """Whether two lessons say the same thing (word-set Jaccard ≥ ``threshold``)."""
    if not a or not b:
        return False
    return len(a & b) / len(a | b) >= threshold


def fix_words(text: str) -> frozenset[str] | None:
    """The stems of what a line correction says to do instead (after its arrow), when
    there are at least two: two corrections with the same fix are the same lesson,
    however differently they tell what went wrong."""
    parts = _ARROW.split(text, maxsplit=1)
    if len(parts) < 2:
        return None
    found = words(parts[1])
    return found if len(found) >= 2 else None
