"""Labelled recall queries from a demo project: what a curator would ask, and which
lessons matter for it.

Every demo lesson is written from one of :data:`brainview.demo.content.THEMES` (a
*mistake family*: merging on shared keywords, pointing a ``requires`` link the wrong way…)
and cites two user neurons.  The generator records which lessons came from which family
(``DemoInfo.themes``); the ranker never sees that, only the lessons' text and links.

A case starts from one lesson of a family (its *anchor*) and asks what a curator about to
repeat that mistake on the anchor's two neurons would ask, in three styles:

- ``draft``: a proposal of the kind the family is about (``merge_neurons``,
  ``add_synapse`` …) on the two neurons, with a short rationale in the curator's own words
  (:data:`DRAFTS`; never the lesson's template text);
- ``text+refs``: the same rationale as free text, plus the two neurons as ``--ref``;
- ``text``: a free-text question about the family (:data:`QUESTIONS`), no neurons.

Grades (for nDCG; recall counts every grade ≥ 1):

- **2** — same family *and* cites one of the query's neurons: the lessons written about
  this mistake on these notes (the anchor and any sibling on the same neurons);
- **1** — same family, *or* cites one of the query's neurons (a lesson about the same
  notes from another family);
- **0** — anything else.  A ``text`` case has no neurons: grade 1 = same family.

Baselines that take a plain string get :meth:`Case.words` — the content words of the
rationale or question, plus, with ``ids=True``, the kind and synapse type as words and
the neuron ids exactly as the draft carries them (substring and token matchers can match
them against ``[user:…]`` in the lesson text).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from brainview.core.recall_text import draft_from_proposal, words
from brainview.core.refs import parse_refs
from brainview.services.recall.result import RecallQuery
from brainview.store.connect import connect

Params = Callable[[str, str, str], dict[str, Any]]
"""``(a, b, a domain other than a's)`` → the draft's params."""


def _merge(a: str, b: str, _d: str) -> dict[str, Any]:
    return {"keep": a, "merge": [b]}


def _merge_into_b(a: str, b: str, _d: str) -> dict[str, Any]:
    return {"keep": b, "merge": [a]}


def _link(typ: str, flip: bool = False) -> Params:
    def params(a: str, b: str, _d: str) -> dict[str, Any]:
        pre, post = (b, a) if flip else (a, b)
        return {"pre": pre, "post": post, "type": typ, "weight": 0.5}

    return params


DRAFTS: dict[str, tuple[str, Params, tuple[str, ...]]] = {
    "keyword overlap": (
        "merge_neurons",
        _merge,
        (
            "These two notes share most of their terms; looks like one idea written twice.",
            "Near-identical vocabulary in both, fold them into a single neuron.",
            "Same words all over both notes, surely the same concept.",
        ),
    ),
    "prerequisite direction": (
        "add_synapse",
        _link("requires"),
        (
            "You need the second note before the first one makes sense.",
            "The first concept depends on the second; record that dependency.",
            "Learners should study the second before the first.",
        ),
    ),
    "domain naming": (
        "set_domain",
        lambda a, b, d: {"neurons": [a], "domain": d},
        (
            "This note sits in the wrong folder; it belongs next to its sibling.",
            "Move it to where the related note lives, the current area misleads.",
            "Better filed under the other subject.",
        ),
    ),
    "examples are not concepts": (
        "merge_neurons",
        _merge_into_b,
        (
            "The first note only illustrates the second one; fold it in.",
            "A specific instance of the general idea, it needs no neuron of its own.",
            "Redundant: it is just one case of the broader note.",
        ),
    ),
    "contrast pairs": (
        "merge_neurons",
        _merge,
        (
            "Learners keep mixing these two up, combine them into one card.",
            "Users answer one when asked about the other; make them a single neuron.",
            "Students cannot tell them apart, so one note would do.",
        ),
    ),
    "stale notes": (
        "retire_neuron",
        lambda a, b, d: {"neuron": a},
        (
            "Outdated now that the newer version covers everything in it.",
            "This note repeats what the other one says since the rewrite; drop it.",
            "Nobody needs the old copy any more.",
        ),
    ),
    "weight inflation": (
        "set_synapse_weight",
        lambda a, b, d: {"pre": a, "post": b, "type": "relates_to", "weight": 0.95},
        (
            "They are obviously tightly related, the link should be much stronger.",
            "Bump this connection up to near the maximum.",
            "Their tie is far too weak for how closely they go together.",
        ),
    ),
    "language false friends": (
        "merge_neurons",
        _merge,
        (
            "Same word in two languages, one neuron is enough.",
            "These say the same thing in English and Spanish; combine them.",
            "Cognates with identical spelling, keep only one.",
        ),
    ),
    "procedure ordering": (
        "add_synapse",
        _link("requires", flip=True),
        (
            "You have to carry out the first routine before the second; record the order.",
            "The second technique only works once the first is done.",
            "Sequence these two: one is done ahead of the other.",
        ),
    ),
    "qa grounding": (
        "note",
        lambda a, b, d: {"neurons": [a, b]},
        (
            "The QA bot answers questions on the first note with text from the second.",
            "Answers about this term pull their wording from the wrong source note.",
            "The bot's replies on one keep citing the other.",
        ),
    ),
    "tutor pacing": (
        "note",
        lambda a, b, d: {"neurons": [a, b]},
        (
            "Schedule these two in the same session so they reinforce each other.",
            "Drill them back to back in one sitting.",
            "Review both together every time one comes due.",
        ),
    ),
    "split before merge": (
        "merge_neurons",
        _merge,
        (
            "The first note already covers the second one's idea; absorb it.",
            "Fold the second into the first, which is the broader note.",
            "One big note is tidier than two overlapping ones.",
        ),
    ),
}
"""Family → (kind, params, rationales): what a curator about to make the mistake drafts."""

QUESTIONS: dict[str, tuple[str, ...]] = {
    "keyword overlap": ("merging notes because their words overlap",),
    "prerequisite direction": ("which way should a prerequisite link point",),
    "domain naming": ("changing the domain a note is filed under",),
    "examples are not concepts": ("merging a worked example into its concept",),
    "contrast pairs": ("notes that users confuse with each other",),
    "stale notes": ("retiring a duplicate note after a rewrite",),
    "weight inflation": ("how strong should the weight of a link be",),
    "language false friends": ("words that look alike across languages",),
    "procedure ordering": ("the order of the steps of a procedure",),
    "qa grounding": ("question answering that cites the wrong note",),
    "tutor pacing": ("spacing quizzes of related notes",),
    "split before merge": ("a note that mixes two ideas",),
}
"""Family → free-text questions a curator would type (no neurons)."""

STYLES = ("draft", "text+refs", "text")


@dataclass(frozen=True)
class Case:
    """One labelled query."""

    name: str
    style: str
    family: str
    prose: str
    refs: tuple[str, ...] = ()
    proposal: Mapping[str, Any] | None = None
    anchor: str | None = None
    grades: Mapping[str, int] = field(default_factory=dict)

    def query(self, limit: int = 10) -> RecallQuery:
        """The recall brainview is asked."""
        if self.proposal is not None:
            return RecallQuery(proposal=self.proposal, limit=limit)
        return RecallQuery(text=self.prose, refs=self.refs, limit=limit)

    def words(self, ids: bool) -> str:
        """The query as one plain string (module docstring)."""
        out = list(dict.fromkeys(words(self.prose)))
        if ids and self.proposal is not None:
            kind = str(self.proposal["kind"]).replace("_", " ")
            typ = self.proposal["params"].get("type")
            out += [kind, *([str(typ).replace("_", " ")] if typ else [])]
        if ids:
            out += list(self.refs)
        return " ".join(out)


@dataclass(frozen=True)
class Corpus:
    """What the labels are computed from: each live lesson's cited neurons, its family."""

    cites: Mapping[str, tuple[str, ...]]
    family: Mapping[str, str]
    domains: Mapping[str, str]

    def citing(self, refs: tuple[str, ...]) -> set[str]:
        want = set(refs)
        return {r for r, us in self.cites.items() if want & set(us)}


def read_corpus(root: Path, themes: Mapping[str, list[str]]) -> Corpus:
    """Read the live lessons' references and the user neurons' domains (read-only)."""
    spikuit = Path(root) / ".spikuit"
    agent = connect(spikuit / "agent" / "circuit.db", write=False, timeout=5)
    try:
        cites = {
            str(rid): tuple(parse_refs(str(content or "")))
            for rid, content in agent.execute(
                "SELECT id, content FROM neuron WHERE type = 'reflection' AND retired_at IS NULL"
            )
        }
    finally:
        agent.close()
    user = connect(spikuit / "circuit.db", write=False, timeout=5)
    try:
        domains = {
            str(n): str(d or "")
            for n, d in user.execute("SELECT id, domain FROM neuron WHERE retired_at IS NULL")
        }
    finally:
        user.close()
    family = {rid: name for name, ids in themes.items() for rid in ids}
    return Corpus(cites, family, domains)


def grades(corpus: Corpus, family: str, refs: tuple[str, ...]) -> dict[str, int]:
    """Grade of every relevant live lesson (absent: 0)."""
    out = {r: 1 for r, f in corpus.family.items() if f == family and r in corpus.cites}
    for r in corpus.citing(refs):
        out[r] = 2 if corpus.family.get(r) == family else 1
    return out


def build_cases(
    root: Path,
    themes: Mapping[str, list[str]],
    *,
    seed: int,
    per_family: int,
    styles: tuple[str, ...] = STYLES,
) -> list[Case]:
    """``per_family`` anchors per family (deterministic by ``seed``), each asked in the
    ``draft`` and ``text+refs`` styles, plus each family's free-text questions."""
    corpus = read_corpus(root, themes)
    rng = random.Random(seed)
    all_domains = sorted({d for d in corpus.domains.values() if d})
    cases: list[Case] = []
    for family in sorted(themes):
        kind, params, rationales = DRAFTS[family]
        pool = sorted(
            r
            for r in themes[family]
            if len(corpus.cites.get(r, ())) == 2 and set(corpus.cites[r]) <= set(corpus.domains)
        )
        for k, anchor in enumerate(rng.sample(pool, min(per_family, len(pool)))):
            a, b = corpus.cites[anchor]
            other = corpus.domains[b] if corpus.domains[b] != corpus.domains[a] else None
            dom = other or next(d for d in all_domains if d != corpus.domains[a])
            rationale = rationales[k % len(rationales)]
            labels = grades(corpus, family, (a, b))
            if "draft" in styles:
                proposal = {"kind": kind, "params": params(a, b, dom), "rationale": rationale}
                refs = tuple(draft_from_proposal(proposal).refs)
                cases.append(
                    Case(f"draft/{family}/{k}", "draft", family, rationale, refs, proposal,
                         anchor, _only(labels, corpus, family, refs))
                )  # fmt: skip
            if "text+refs" in styles:
                cases.append(
                    Case(f"text+refs/{family}/{k}", "text+refs", family, rationale, (a, b),
                         None, anchor, labels)
                )  # fmt: skip
        if "text" in styles:
            for k, question in enumerate(QUESTIONS[family]):
                cases.append(
                    Case(f"text/{family}/{k}", "text", family, question, (), None, None,
                         grades(corpus, family, ()))
                )  # fmt: skip
    return cases


def _only(
    labels: dict[str, int], corpus: Corpus, family: str, refs: tuple[str, ...]
) -> dict[str, int]:
    """Labels for a draft that names fewer neurons than its anchor (``retire_neuron``,
    ``set_domain``): graded against the neurons the draft names."""
    return labels if len(refs) == 2 else grades(corpus, family, refs)
