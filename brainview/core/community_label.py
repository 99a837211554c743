"""A community's label and number as a person reads them.

The label is the sentence of its most central reflection, with the cited
user neurons folded to ``⟦…⟧`` — what a person reads, not a bag of words.

The members' terms (:func:`brainview.core.clustering.terms`: lower-cased words,
references and stop-words removed) pick the member that shares most with the others
(highest mean Jaccard similarity; ties to the first); its first line, references
folded, is the label.  Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from brainview.core.clustering import terms
from brainview.core.refs import USER_REF
from brainview.core.safe_text import first_line

SINGLETONS = -1
"""The pseudo-community gathering every isolated reflection (alone in its community)."""
FOLDED = "⟦…⟧"
"""What a ``[user:…]`` reference reads as in a label (the neurons differ per member)."""
LABEL_LIMIT = 120
_SPACES = re.compile(r"\s+")


def central(docs: Sequence[frozenset[str]]) -> int:
    """Index of the member sharing most terms with the others (mean Jaccard); 0 if
    there is none or one."""
    if len(docs) < 2:
        return 0
    best, best_score = 0, -1.0
    for i, a in enumerate(docs):
        score = 0.0
        for j, b in enumerate(docs):
            if i != j and (a or b):
                score += len(a & b) / len(a | b)
        if score > best_score:
            best, best_score = i, score
    return best


def skeleton(text: str, limit: int = LABEL_LIMIT) -> str:
    """The first line of ``text`` with references folded to ``⟦…⟧`` and spaces collapsed."""
    line = USER_REF.sub(FOLDED, first_line(text or "", 4 * limit))
    return first_line(_SPACES.sub(" ", line).strip(), limit)


def label(texts: Sequence[str], limit: int = LABEL_LIMIT) -> str:
    """The label of a community whose members (a sample) read ``texts``."""
    if not texts:
        return ""
    return skeleton(texts[central([terms(t) for t in texts])], limit)


def shown_number(number: int) -> int | None:
    """The number a person sees for partition community ``number``: communities of two
    or more members count from 1 (the partition numbers them biggest first, so they
    come before every singleton); ``None`` for the isolated reflections."""
    return number + 1 if number >= 0 else None


UNCLUSTERED = "unclustered"
"""What a person types and reads for the isolated reflections (never ``#-1``)."""


def community_name(number: object) -> str:
    """``community #3`` for partition community 2; ``unclustered reflections`` for the
    isolated ones; ``community ?`` for a value that is not a partition number."""
    if isinstance(number, bool) or not isinstance(number, int):
        return "community ?"
    shown = shown_number(number)
    return "unclustered reflections" if shown is None else f"community #{shown}"


def partition_number(text: str) -> int | None:
    """The partition number for what a person typed: ``3`` → 2, ``unclustered`` → -1;
    ``None`` when it is neither a number from 1 nor ``unclustered``."""
    word = text.strip().lower().lstrip("#")
    if word == UNCLUSTERED:
        return -1
    if word.isdigit() and int(word) >= 1:
        return int(word) - 1
    return None
