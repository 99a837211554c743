"""Recall's ranking: components combined into one score, and a suggested stance per hit.

``relevance = W_LEX·lexical + W_SPREAD·spread`` (each scaled to [0, 1] by the best
candidate), then ``score = relevance·(R_FLOOR + (1 − R_FLOOR)·R)`` with R the lesson's
FSRS retrievability now, so a fading lesson ranks lower but a relevant one is never
silenced by decay alone.  A lesson a later one overturned (``contrasts`` to a newer
lesson) is halved; a challenged one is discounted and marked.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from brainview.core.recall_text import KIND_WORDS, SYNAPSE_WORDS

W_LEX = 0.5
W_SPREAD = 0.5
R_FLOOR = 0.4
R_UNKNOWN = 0.9
"""R used for a lesson with no card yet: the desired retention, neither fresh nor fading."""
OVERTURNED = 0.5
CHALLENGED = 0.85

NEGATIONS = frozenset({"never", "not", "don't", "dont", "no", "avoid", "stop", "without"})
REJECT_CUES = ("rejected", "reversed", "failed", "misled", "confused", "lowered", "refused")
ACCEPT_CUES = ("accepted", "helped", "worked", "succeeded", "improved")
_TOKEN = re.compile(r"[\w']+", re.UNICODE)


@dataclass(frozen=True)
class Parts:
    """The raw components of one candidate."""

    lexical: float
    spread: float
    retrievability: float | None
    overturned: bool = False
    challenged: bool = False


def relevance(lexical: float, spread: float, best_lexical: float, best_spread: float) -> float:
    """``W_LEX·lexical + W_SPREAD·spread``, each scaled by the best candidate's."""
    lex = lexical / best_lexical if best_lexical > 0 else 0.0
    spr = spread / best_spread if best_spread > 0 else 0.0
    return W_LEX * lex + W_SPREAD * spr


def score(p: Parts, best_lexical: float, best_spread: float) -> tuple[float, float, float]:
    """``(score, lexical scaled, spread scaled)`` of one candidate (score ≤ relevance)."""
    lex = p.lexical / best_lexical if best_lexical > 0 else 0.0
    spr = p.spread / best_spread if best_spread > 0 else 0.0
    r = R_UNKNOWN if p.retrievability is None else p.retrievability
    s = (W_LEX * lex + W_SPREAD * spr) * (R_FLOOR + (1 - R_FLOOR) * r)
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


def stance(
    text: str,
    kind: str | None,
    synapse_type: str | None,
    draft_refs: Iterable[str],
    provenance: Provenance | None,
) -> tuple[str, str]:
    """``(stance, why)``: ``oppose`` when the lesson warns against what the draft does."""
    refs = set(draft_refs)
    if provenance is not None and provenance.verdict == "reject":
        same_refs = bool(refs & set(provenance.refs))
        if kind is not None and provenance.kind == kind:
            where = " on the same neurons" if same_refs else ""
            return "oppose", f"written when a {kind} proposal was rejected{where}"
        if same_refs:
            return "oppose", f"written when a {provenance.kind} on these neurons was rejected"
    if kind is None:
        return "annotate", "free text: no action to judge"
    tokens = [t.lower() for t in _TOKEN.findall((text or "")[:600])]
    actions = action_words(kind, synapse_type)
    hits = [i for i, t in enumerate(tokens) if t in actions]
    for i in hits:
        before = tokens[max(0, i - 3) : i]
        negation = next((b for b in before if b in NEGATIONS), None)
        if negation:
            return "oppose", f"says “{negation} … {tokens[i]}”"
    if hits:
        cue = _cue(tokens, REJECT_CUES)
        if cue:
            return "oppose", f"records “{cue}” about “{tokens[hits[0]]}”"
        cue = _cue(tokens, ACCEPT_CUES)
        if cue:
            return "support", f"records “{cue}” about “{tokens[hits[0]]}”"
        return "support", f"about “{tokens[hits[0]]}”, no warning"
    return "annotate", "related, but says nothing about this action"


def _cue(tokens: list[str], cues: tuple[str, ...]) -> str | None:
    return next((t for t in tokens if t in cues), None)


def best(values: Mapping[str, float]) -> float:
    """The largest value (0 when empty)."""
    return max(values.values(), default=0.0)
