"""The import's repeat index (prefix filtering) gives exactly the exhaustive scan's
answer: the first group, in import order, whose first wording is ``similar()``."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from brainview.core.learnings_groups import Groups, prefix_length
from brainview.core.learnings_words import similar

WORDS = st.sampled_from([f"w{i}" for i in range(14)])
VOCABS = st.lists(st.frozensets(WORDS, max_size=7), min_size=1, max_size=40)


def exhaustive(vocabs: list[frozenset[str]]) -> list[int | None]:
    """Each wording's group (index of its canonical), comparing with every group."""
    canon: list[int] = []
    out: list[int | None] = []
    for i, v in enumerate(vocabs):
        found = next((c for c in canon if similar(vocabs[c], v)), None)
        out.append(found)
        if found is None:
            canon.append(i)
    return out


def indexed(vocabs: list[frozenset[str]], seen: int) -> list[int | None]:
    """The same through :class:`Groups`; only the first ``seen`` fix the word order
    (later words are unknown to it, as a word can be)."""
    groups = Groups(vocabs[:seen])
    out: list[int | None] = []
    for i, v in enumerate(vocabs):
        found = groups.find(v)
        out.append(None if found is None else int(found))
        groups.add(str(i), found or str(i), v)
    return out


@settings(max_examples=400, deadline=None)
@given(VOCABS, st.integers(0, 40))
def test_prefix_index_matches_the_exhaustive_scan(vocabs: list[frozenset[str]], seen: int) -> None:
    assert indexed(vocabs, seen) == exhaustive(vocabs)


def test_prefix_lengths() -> None:
    assert [prefix_length(n) for n in range(1, 7)] == [1, 2, 2, 3, 3, 4]
    assert prefix_length(4, 0.75) == 2 and prefix_length(3, 0.3) == 3
