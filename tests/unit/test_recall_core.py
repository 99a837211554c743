"""Recall's pure parts: APPNP spreading, the stance suggestion, the score, the postings."""

from __future__ import annotations

import sqlite3
from collections import Counter

import numpy as np
import pytest

from brainview.core import recall_rank
from brainview.core.recall_rank import Parts, Provenance
from brainview.core.recall_text import draft_from_proposal, draft_text, query_terms, words
from brainview.core.spread import Edge, appnp
from brainview.store import recall_postings


def _graph(edges: list[tuple[str, str, str, float]]):  # type: ignore[no-untyped-def]
    asked: list[list[str]] = []

    def neighbours(ids: list[str]) -> list[Edge]:
        asked.append(list(ids))
        return [Edge(*e) for e in edges if e[0] in ids]

    return neighbours, asked


def test_appnp_matches_personalised_pagerank_on_a_small_graph() -> None:
    """Many rounds with eps 0 equal the closed form (1−α)ᵏ sums, i.e. PPR."""
    edges = [("a", "b", "relates_to", 1.0), ("b", "a", "relates_to", 1.0),
             ("b", "c", "relates_to", 1.0), ("c", "b", "relates_to", 1.0)]  # fmt: skip
    neighbours, _ = _graph(edges)
    got = appnp({"a": 1.0}, neighbours, alpha=0.2, rounds=200, eps=0.0).activation
    names = ["a", "b", "c"]
    m = np.zeros((3, 3))
    for s, d, _t, w in edges:
        m[names.index(s), names.index(d)] = w
    m = m / m.sum(axis=1, keepdims=True)
    h = np.array([1.0, 0, 0])
    ppr = 0.2 * np.linalg.solve(np.eye(3) - 0.8 * m.T, h)
    assert [got[n] for n in names] == pytest.approx(list(ppr), abs=1e-9)


def test_contrasts_do_not_spread_and_are_kept_for_overturned() -> None:
    neighbours, _ = _graph([("a", "b", "contrasts", 1.0), ("a", "c", "relates_to", 0.5)])
    s = appnp({"a": 1.0}, neighbours, rounds=3)
    assert "b" not in s.activation and s.activation["c"] > 0
    assert [e.post for e in s.seen["a"]] == ["b"]


def test_spreading_is_bounded() -> None:
    """A hub of 10,000 lessons: only nodes holding ≥ eps of the mass are expanded."""
    edges = [("hub", f"n{i}", "relates_to", 1.0) for i in range(10_000)]
    edges += [(f"n{i}", "hub", "relates_to", 1.0) for i in range(10_000)]
    neighbours, asked = _graph(edges)
    s = appnp({"hub": 1.0}, neighbours, rounds=5, eps=1e-3, max_nodes=50)
    assert s.expanded <= 51 and sum(len(a) for a in asked) <= 51
    assert s.activation["hub"] > s.activation["n1"]


@pytest.mark.parametrize(
    ("text", "kind", "typ", "prov", "want"),
    [
        ("Proposed merging A and B. User rejected: keywords overlap", "merge_neurons", None,
         None, "oppose"),
        ("A is an example of B; link with extends, never merge it", "merge_neurons", None,
         None, "oppose"),
        ("A is a worked example of B; link with extends, never merge", "add_synapse",
         "extends", None, "support"),
        ("Retiring A was accepted: it duplicated B", "retire_neuron", None, None, "support"),
        ("Quizzing A right after B lowered recall", "merge_neurons", None, None, "annotate"),
        ("anything at all", "set_domain", None, Provenance("reject", "set_domain", ()),
         "oppose"),
        ("anything at all", "add_synapse", None, Provenance("reject", "merge_neurons", ("n-1",)),
         "annotate"),
        ("anything at all", "add_synapse", None, Provenance("accept", "add_synapse", ("n-1",)),
         "support"),
        ("anything at all", "add_synapse", None, Provenance("accept", "merge_neurons", ("n-1",)),
         "annotate"),
    ],
)  # fmt: skip
def test_stance(text: str, kind: str, typ: str | None, prov: Provenance | None, want: str) -> None:
    stance, why = recall_rank.stance(text, kind, typ, ["n-1"], prov)
    assert stance == want and why


REJECTED_MERGE = (
    "Rejected proposal p-1 (merge_neurons): merge [user:n-7] into [user:n-8]\n"
    "Curator rationale: the worked example restates its concept\n"
    "Maintainer rejected: No: an example is not a second copy of the idea"
)
"""A rejection lesson as the decide path writes it (``decision_rows.rejection_text``)."""


@pytest.mark.parametrize(
    ("refs", "cited", "words", "want", "why"),
    [
        (("n-1",), (), 0.0, "annotate", "on other neurons was rejected; matches only 0 %"),
        (("n-1",), (), 0.29, "annotate", "matches only 29 %"),
        (("n-1",), (), 0.3, "oppose", "was rejected; matches 30 %"),
        (("n-7",), (), 0.0, "oppose", "on the same neurons was rejected"),
        (("n-1",), ("n-1",), 0.0, "oppose", "on the same neurons was rejected"),
        (("n-1",), (), None, "oppose", "merge_neurons proposal was rejected"),
    ],
)  # fmt: skip
def test_same_kind_rejection_opposes_only_on_its_neurons_or_words(
    refs: tuple[str, ...], cited: tuple[str, ...], words: float | None, want: str, why: str
) -> None:
    """The lesson's own "rejected … merge" text does not bring back a blanket oppose."""
    prov = Provenance("reject", "merge_neurons", ("n-7", "n-8"))
    got = recall_rank.stance(
        REJECTED_MERGE, "merge_neurons", None, refs, prov, cited=cited, words=words
    )
    assert got[0] == want and why in got[1]


def test_other_kind_rejection_is_judged_by_its_words_not_its_verdict() -> None:
    prov = Provenance("reject", "merge_neurons", ("n-7", "n-8"))
    link = "Rejected proposal p-2 (merge_neurons): …\nMaintainer rejected: link them instead"
    assert recall_rank.stance(link, "add_synapse", None, ["n-7"], prov)[0] == "support"
    assert recall_rank.stance(REJECTED_MERGE, "retire_neuron", None, ["n-7"], prov) == (
        "annotate", "related, but says nothing about this action"
    )  # fmt: skip
    never = "Rejected proposal p-3 (merge_neurons): …\nMaintainer rejected: never link these"
    assert recall_rank.stance(never, "add_synapse", None, ["n-7"], prov)[0] == "oppose"
    # without a decision behind it, a lesson that records a rejection still opposes
    assert recall_rank.stance(link, "add_synapse", None, ["n-7"], None)[0] == "oppose"


def test_overlap_leaves_out_the_kind_words() -> None:
    terms = ["merge", "duplicate", "copy", "definition", "functor", "example"]
    # own words: copy, definition, functor ("example" is a word of extends links)
    assert recall_rank.overlap(terms, ["merge", "copy"]) == pytest.approx(1 / 3)
    assert recall_rank.overlap(["merge", "link"], ["merge"]) == 0.0


def test_score_never_exceeds_relevance_and_fading_ranks_lower() -> None:
    fresh = recall_rank.score(Parts(2.0, 0.5, 0.95), 2.0, 1.0)[0]
    fading = recall_rank.score(Parts(2.0, 0.5, 0.2), 2.0, 1.0)[0]
    assert fading < fresh <= recall_rank.relevance(2.0, 0.5, 2.0, 1.0)
    turned = recall_rank.score(Parts(2.0, 0.5, 0.95, overturned=True), 2.0, 1.0)[0]
    assert turned == pytest.approx(fresh)  # marked (overturned_by), not demoted


def test_draft_words_and_titles() -> None:
    d = draft_from_proposal(
        {"kind": "rename_domain", "params": {"old": "music", "new": "harmony"},
         "rationale": "The [user:n-1] naming was confusing"}, ["n-2"]
    )  # fmt: skip
    assert d.refs == ("n-1", "n-2")
    text = draft_text(d, {"n-1": "Cadence — usage", "n-2": "Chord"})
    terms = query_terms(text)
    assert {"music", "harmony", "rename", "naming", "cadence", "chord"} <= set(terms)
    assert "the" not in terms and words("n-7f3a abc123") == []


def test_postings_update_and_bm25() -> None:
    idx = sqlite3.connect(":memory:", isolation_level=None)
    for ddl in recall_postings.DDL:
        idx.execute(ddl)
    docs = {1: "merging keywords overlap", 2: "keywords keywords again", 3: "unrelated text"}
    counts = recall_postings.tokenize(idx, docs)
    assert counts[2]["keyword"] == 2
    recall_postings.update(idx, {}, counts)
    recall_postings.save_arrays(idx, [(r, sum(c.values()), "curator") for r, c in counts.items()])
    arrays = recall_postings.load_arrays(idx)
    stems = recall_postings.stems(idx, ["keywords", "merging"])
    ranked = recall_postings.bm25(idx, list(stems.values()), arrays, None, 10)
    assert [r for r, _s, _m in ranked] == [1, 2]
    assert ranked[0][2] == ["keyword", "merg"]
    # doc 1 edited: its old terms leave, its new ones enter
    recall_postings.update(idx, {1: list(counts[1])}, {1: Counter({"zebra": 1})})
    ranked = recall_postings.bm25(idx, list(stems.values()), arrays, None, 10)
    assert [r for r, _s, _m in ranked] == [2]
    assert recall_postings.bm25(idx, [], arrays, "tutor", 10) == []


@pytest.mark.parametrize(
    ("refs", "words", "want", "why"),
    [
        (("n-1",), 0.1, "annotate", "on other neurons was accepted; matches only 10 %"),
        (("n-1",), 0.3, "support", "was accepted; matches 30 %"),
        (("n-7",), 0.0, "support", "on the same neurons was accepted"),
        (("n-1",), None, "support", "merge_neurons draft was accepted"),
    ],
)  # fmt: skip
def test_same_kind_accept_supports_only_on_its_neurons_or_words(
    refs: tuple[str, ...], words: float | None, want: str, why: str
) -> None:
    """A lesson a "should have been proposed" verdict wrote (an accept of its kind) is the
    mirror of a rejection's: about another case of the kind, it only annotates, so it
    does not wave a sibling mistake through."""
    text = (
        "Accepted on review after the curator held it back (hb-1, merge_neurons): merge "
        "[user:n-7] into [user:n-8]\nMaintainer: should have been proposed — copies"
    )
    prov = Provenance("accept", "merge_neurons", ("n-7", "n-8"))
    got = recall_rank.stance(text, "merge_neurons", None, refs, prov, words=words)
    assert got[0] == want and why in got[1]
