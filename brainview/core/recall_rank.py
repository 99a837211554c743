"""Recall's ranking: components combined into one score, and a suggested stance per hit.

``relevance = W_LEX·lexical + W_SPREAD·spread + W_CITED·cited + W_SEM·semantic`` (lexical
and spread scaled to [0, 1] by the best candidate, cited and semantic already in [0, 1]:
:mod:`brainview.core.fusion`), then ``score = relevance·(R_FLOOR + (1 − R_FLOOR)·R)``
with R the lesson's FSRS retrievability now, so a fading lesson ranks lower but a
relevant one is never silenced by decay alone.  With no embedder the semantic term is 0
for every lesson, which leaves the order as the other three make it.  A lesson a later
one overturned (``contrasts`` to a newer lesson) is marked; a challenged one is
discounted and marked.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from brainview.core.recall_text import KIND_WORDS, SYNAPSE_WORDS

W_LEX = 0.2
W_SPREAD = 0.8
"""Measured (bench/bench_recall_quality.py, docs/performance.md): at 0.5/0.5 the draft
neurons' title words drowned the lessons that cite those very neurons at scale (nDCG@10
0.628 on 100k lessons); 0.2/0.8 lets the citations lead (0.827) and helps the demo too."""
W_CITED = 1.5
"""Citing the draft's own neurons, idf-weighted (issue 33): BM25 over the ids beat the
walk alone at 100k lessons (nDCG@10 0.888 vs 0.827).  Measured (bench_recall_quality
--explore, demo / agent100k nDCG@10): 0 → 0.802 / 0.826, 0.2 → 0.817 / 0.859, 0.4 →
0.821 / 0.868, 0.8 → 0.826 / 0.874, 1.5 → 0.833 / 0.879 (recall@10 0.998 at 100k)."""
W_SEM = 0.3
"""Vector similarity, when the project has an embedder (docs/recall.md: the bench)."""
R_FLOOR = 0.4
R_UNKNOWN = 0.9
"""R used for a lesson with no card yet: the desired retention, neither fresh nor fading."""
OVERTURNED = 1.0
"""A lesson a newer one contrasts is *marked* (``overturned_by``), not demoted: a
``contrasts`` link alone does not say which lesson is right, and halving hid exact
matches in the quality bench (demo nDCG@10 0.783 → 0.802 without it)."""
CHALLENGED = 0.85
SAME_KIND_OVERLAP = 0.3
"""Share of a draft's own words a same-kind rejection lesson about other neurons must
match to stay ``oppose`` (below it the lesson is about another case of the kind)."""
KIND_TERMS = frozenset(
    w for text in (*KIND_WORDS.values(), *SYNAPSE_WORDS.values()) for w in text.split()
)
"""Words recall adds to every draft of a kind: they say nothing about *this* draft."""

NEGATIONS = frozenset({"never", "not", "don't", "dont", "no", "avoid", "stop", "without"})
REJECT_CUES = ("rejected", "reversed", "failed", "misled", "confused", "lowered", "refused")
ACCEPT_CUES = ("accepted", "helped", "worked", "succeeded", "improved")
_TOKEN = re.compile(r"[\w']+", re.UNICODE)


@dataclass(frozen=True)
class Parts:
    """The raw components of one candidate (``semantic`` and ``cited`` already in [0, 1])."""

    lexical: float
    spread: float
    retrievability: float | None
    overturned: bool = False
    challenged: bool = False
    semantic: float = 0.0
    cited: float = 0.0


def relevance(
    lexical: float,
    spread: float,
    best_lexical: float,
    best_spread: float,
    semantic: float = 0.0,
    cited: float = 0.0,
) -> float:
    """The weighted sum of the four terms, lexical and spread scaled by the best."""
    lex = lexical / best_lexical if best_lexical > 0 else 0.0
    spr = spread / best_spread if best_spread > 0 else 0.0
    return W_LEX * lex + W_SPREAD * spr + W_CITED * cited + W_SEM * semantic


def score(p: Parts, best_lexical: float, best_spread: float) -> tuple[float, float, float]:
    """``(score, lexical scaled, spread scaled)`` of one candidate (score ≤ relevance)."""
    lex = p.lexical / best_lexical if best_lexical > 0 else 0.0
    spr = p.spread / best_spread if best_spread > 0 else 0.0
    r = R_UNKNOWN if p.retrievability is None else p.retrievability
    rel = W_LEX * lex + W_SPREAD * spr + W_CITED * p.cited + W_SEM * p.semantic
    s = rel * (R_FLOOR + (1 - R_FLOOR) * r)
    if p.overturned:
        s *= OVERTURNED
    if p.challenged:
        s *= CHALLENGED
    return s, lex, spr


@dataclass(frozen=True)
class Provenance:
    """The decision that wrote a lesson (a rejection lesson, an outcome's lesson)."""

    verdict: str
    kind: str
    refs: tuple[str, ...]


def action_words(kind: str | None, synapse_type: str | None = None) -> set[str]:
    """Words that name what a draft of ``kind`` does."""
    if not kind:
        return set()
    found = set(KIND_WORDS.get(kind, kind.replace("_", " ")).split())
    if synapse_type:
        found |= set(SYNAPSE_WORDS.get(synapse_type, synapse_type).split())
    return found - {"domain", "content", "duplicate", "direction", "example"}


def overlap(terms: Iterable[str], matched: Iterable[str]) -> float:
    """Share of a draft's own query words (kind words left out) a lesson matched."""
    own = set(terms) - KIND_TERMS
    return len(own & set(matched)) / len(own) if own else 0.0


def stance(
    text: str,
    kind: str | None,
    synapse_type: str | None,
    draft_refs: Iterable[str],
    provenance: Provenance | None,
    *,
    cited: Iterable[str] = (),
    words: float | None = None,
) -> tuple[str, str]:
    """``(stance, why)``: ``oppose`` when the lesson warns against what the draft does.

    ``cited``: the draft's neurons the lesson cites; ``words``: the share of the draft's
    own words it matched (:func:`overlap`; ``None`` when unknown).  A lesson written by
    a rejection of the draft's kind opposes when it is about the same neurons or matches
    at least ``SAME_KIND_OVERLAP`` of the draft's words; otherwise it is about another
    case of the kind and only annotates.  A rejection of *another* kind is judged by its
    text alone, without its own "rejected" (which is about that other action)."""
    rejection = provenance is not None and provenance.verdict == "reject"
    if provenance is not None and rejection and kind is not None and provenance.kind == kind:
        if set(draft_refs) & (set(provenance.refs) | set(cited)):
            return "oppose", f"written when a {kind} proposal on the same neurons was rejected"
        if words is None:
            return "oppose", f"written when a {kind} proposal was rejected"
        share = f"{round(100 * words)} % of the draft's words"
        if words >= SAME_KIND_OVERLAP:
            return "oppose", f"written when a {kind} proposal was rejected; matches {share}"
        return "annotate", (
            f"written when a {kind} proposal on other neurons was rejected; matches only {share}"
        )
    if provenance is not None and provenance.verdict == "accept" and provenance.kind == kind:
        return _same_kind_accept(kind, draft_refs, provenance, cited, words)
    if kind is None:
        return "annotate", "free text: no action to judge"
    return _by_text(text, kind, synapse_type, reject_cues=not rejection)


def _same_kind_accept(
    kind: str,
    draft_refs: Iterable[str],
    provenance: Provenance,
    cited: Iterable[str],
    words: float | None,
) -> tuple[str, str]:
    """A lesson written when a ``kind`` draft was accepted supports a draft of that kind
    on the same neurons, or one matching ``SAME_KIND_OVERLAP`` of its words; about
    another case of the kind, it only annotates (the mirror of a rejection's rule: the
    simulation measured "accepted once" lessons letting sibling mistakes through)."""
    if set(draft_refs) & (set(provenance.refs) | set(cited)):
        return "support", f"written when a {kind} draft on the same neurons was accepted"
    if words is None:
        return "support", f"written when a {kind} draft was accepted"
    share = f"{round(100 * words)} % of the draft's words"
    if words >= SAME_KIND_OVERLAP:
        return "support", f"written when a {kind} draft was accepted; matches {share}"
    return "annotate", (
        f"written when a {kind} draft on other neurons was accepted; matches only {share}"
    )


def _by_text(
    text: str, kind: str, synapse_type: str | None, *, reject_cues: bool
) -> tuple[str, str]:
    """The stance a lesson's words take on the draft's action."""
    tokens = [t.lower() for t in _TOKEN.findall((text or "")[:600])]
    actions = action_words(kind, synapse_type)
    hits = [i for i, t in enumerate(tokens) if t in actions]
    for i in hits:
        before = tokens[max(0, i - 3) : i]
        negation = next((b for b in before if b in NEGATIONS), None)
        if negation:
            return "oppose", f"says “{negation} … {tokens[i]}”"
    if hits:
        cues = REJECT_CUES + ACCEPT_CUES if reject_cues else ACCEPT_CUES
        found = _nearest_cue(tokens, hits, cues)
        if found is not None:
            cue, at = found
            lean = "oppose" if cue in REJECT_CUES else "support"
            return lean, f"records “{cue}” about “{tokens[at]}”"
        return "support", f"about “{tokens[hits[0]]}”, no warning"
    return "annotate", "related, but says nothing about this action"


def _nearest_cue(
    tokens: list[str], hits: list[int], cues: tuple[str, ...]
) -> tuple[str, int] | None:
    """The cue that says what happened to the action (``a contrasts link helped``): the
    one nearest an action word, one after it winning a tie (``easily confused; a
    contrasts link helped`` is about the neurons being confused, not the link); a cue
    that is itself one of the draft's action words names the case, not an outcome.
    ``(cue, action word's index)``; ``None`` when no cue is said."""
    best_pair: tuple[float, str, int] | None = None
    for j, t in enumerate(tokens):
        if t not in cues or j in hits:  # an action word itself ("confused" for contrasts)
            continue
        for i in hits:
            distance = abs(j - i) + (0.5 if j < i else 0.0)
            if best_pair is None or distance < best_pair[0]:
                best_pair = (distance, t, i)
    return None if best_pair is None else (best_pair[1], best_pair[2])


def best(values: Mapping[str, float]) -> float:
    """The largest value (0 when empty)."""
    return max(values.values(), default=0.0)
