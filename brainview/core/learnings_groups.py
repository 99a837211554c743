"""Which earlier lesson a new wording repeats, without comparing it with every lesson.

Pure.  Two wordings are the same lesson when their word sets overlap with Jaccard
≥ 0.5 (:func:`~.learnings_words.similar`); a new wording joins the *first* group
(in import order) whose first wording it is similar to.  Comparing each new wording
with every group is quadratic: a tree of 10,000 lines did not import in two minutes.

Prefix filtering (Chaudhuri et al., "A primitive operator for similarity joins", 2006)
finds the same answer from a few candidates.  Fix one total order of all words (rarest
first, so prefixes hold rare words).  If ``J(x, y) ≥ t`` then ``|x ∩ y| ≥ t·|x|`` and
``≥ t·|y|``; the first shared word (in that order) then sits among the first
``|x| − ⌈t·|x|⌉ + 1`` words of ``x`` and among the first ``|y| − ⌈t·|y|⌉ + 1`` of ``y``.
So only groups whose prefix shares a word with the new wording's prefix can match.
The positional filter (Xiao et al., "Efficient similarity joins for near duplicate
detection", 2008) drops more: ``J ≥ t`` needs an overlap of ``t/(1+t)·(|x|+|y|)``, and
when the words shared so far are counted and a shared word sits at position ``i`` of
``x`` and ``j`` of ``y``, at most ``1 + min(|x|−i−1, |y|−j−1)`` more can follow.  Each
candidate left is still checked with :func:`similar` itself, so the answer is exactly
the one the exhaustive scan gives (``tests/unit/test_learnings_groups.py``).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable

from brainview.core.learnings_words import similar

THRESHOLD = 0.5
RATIO = THRESHOLD / (1 + THRESHOLD)
"""``J(x, y) ≥ t`` ⇔ ``|x ∩ y| ≥ t/(1+t)·(|x| + |y|)``."""


def prefix_length(size: int, threshold: float = THRESHOLD) -> int:
    """How many of a set's first words (in the global order) must be indexed/probed.
    Rounded so that float error can only make it longer (more candidates, never a
    missed one)."""
    need = max(1, math.ceil(threshold * size - 1e-9))
    return min(size, size - need + 1)


class Groups:
    """Lessons seen so far (each group's first wording indexed by its prefix): which
    group a new wording joins.  ``vocabularies`` are every word set that will be added
    or looked up (they fix the word order; an unseen word sorts as the rarest)."""

    def __init__(self, vocabularies: Iterable[frozenset[str]]) -> None:
        self.df: Counter[str] = Counter()
        for vocab in vocabularies:
            self.df.update(vocab)
        self.order: dict[str, int] = {}
        self.canon: dict[str, str] = {}
        self.vocab: dict[str, frozenset[str]] = {}
        self.index: dict[str, list[tuple[str, int, int]]] = {}
        """word → ``(group, its position in the group's prefix, the group's size)``."""

    def _prefix(self, vocab: frozenset[str]) -> list[str]:
        ranked = sorted(vocab, key=lambda w: (self.df.get(w, 0), w))
        return ranked[: prefix_length(len(ranked))]

    def add(self, nid: str, canonical: str, vocab: frozenset[str]) -> None:
        self.order[nid] = len(self.order)
        self.canon[nid] = canonical
        self.vocab[nid] = vocab
        if canonical == nid and vocab:  # new wordings are compared with first wordings
            for j, w in enumerate(self._prefix(vocab)):
                self.index.setdefault(w, []).append((nid, j, len(vocab)))

    def find(self, vocab: frozenset[str]) -> str | None:
        """The canonical entry of the first group whose first wording ``vocab``
        repeats (``None``: a new lesson)."""
        if not vocab:
            return None
        size = len(vocab)
        shared: dict[str, int] = {}  # candidate → words shared so far (in the order)
        dropped: set[str] = set()
        need: dict[int, int] = {}  # a candidate's size → the overlap J ≥ t needs
        for i, w in enumerate(self._prefix(vocab)):
            left = size - i - 1
            for nid, j, other in self.index.get(w, ()):
                if nid in dropped:
                    continue
                least = need.get(other)
                if least is None:
                    least = need[other] = math.ceil(RATIO * (size + other) - 1e-9)
                have = shared.get(nid, 0)
                if have + 1 + min(left, other - j - 1) < least:
                    dropped.add(nid)
                    shared.pop(nid, None)
                else:
                    shared[nid] = have + 1
        for nid in sorted(shared, key=self.order.__getitem__):
            if similar(self.vocab[nid], vocab):
                return self.canon[nid]
        return None
