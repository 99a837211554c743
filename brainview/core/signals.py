"""Suspicion signals over one lesson, each with a one-line reason; never blocking.

* ``rejected-support``: proposals it supported were rejected, as a pattern (counts);
* ``accepted-opposed``: an unconfirmed lesson (:func:`unconfirmed`) whose warnings the
  person keeps overriding — proposals it opposed were accepted, as a pattern;
* ``low-corroboration``: high influence on the word of few identities;
* ``unconfirmed-hold``: it made the curator hold drafts back, and no person ever
  confirmed it — nothing recorded wrote it, no decision graded it right, no held-back
  verdict upheld it (a lesson that only *suppresses* is never decided otherwise);
* ``unconfirmed-reach``: recall keeps returning an unconfirmed lesson (a trigger's
  shape, before anyone leans on it);
* ``overruled``: drafts it held back were judged "should have been proposed" more
  often than anything confirmed it;
* ``gaming``: one claim repeated, near-identically, by several identities in a short
  window (see :func:`gaming`);
* ``risky``: a risky imperative in its text (:mod:`brainview.core.risky`);
* ``hidden``: zero-width, tag or bidi characters in its text
  (:mod:`brainview.core.hidden_text`).

Ranking is ``(1 + influence) × suspicion``: a risky rule nobody used yet still shows,
and among suspects the one that steers most comes first.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from brainview.core.hidden_text import hidden_reason
from brainview.core.influence import Influence
from brainview.core.risky import risks

WEIGHTS = {
    "rejected-support": 1.0,
    "accepted-opposed": 1.0,
    "low-corroboration": 1.0,
    "gaming": 1.5,
    "unconfirmed-hold": 1.0,
    "unconfirmed-reach": 0.5,
    "overruled": 1.5,
    "risky": 1.0,
    "hidden": 1.5,
}
"""Suspicion each kind of signal adds (risky: per kind of risk, at most two)."""


@dataclass(frozen=True)
class Signal:
    """One reason to look at a lesson twice."""

    kind: str
    reason: str

    def to_json(self) -> dict[str, str]:
        return {"kind": self.kind, "reason": self.reason}


@dataclass(frozen=True)
class Settings:
    """Thresholds (``[signals]`` in the config)."""

    rejected_min: int = 2
    """Rejections of supported proposals before it is a pattern."""
    high_influence: int = 5
    """Influence (drafts shaped + decisions swayed) that counts as high."""
    low_corroboration: int = 1
    """Confirming identities at or below which corroboration is low."""
    window_days: float = 3.0
    """Window in which repeated claims count as one campaign."""
    min_identities: int = 3
    """Distinct identities repeating a claim before it looks like gaming."""
    held_min: int = 2
    """Drafts held back on its word before an unconfirmed lesson is worth a look."""
    reach_min: int = 5
    """Logged recalls that returned an unconfirmed lesson before it is worth a look."""
    similarity: float = 0.8
    """Jaccard of word 2-shingles at which two lesson texts are one claim."""
    project_deciders: int | None = None
    """Distinct people deciding in this project (``None``: not counted).  With fewer than
    two, corroboration cannot be low or high — every lesson has one confirming identity
    at most — so ``low-corroboration`` stays silent (the simulation measured it firing on
    44 % of benign lessons in a one-maintainer project)."""


@dataclass(frozen=True)
class Lesson:
    """What the gaming signal needs of a lesson: who wrote it, when, its shingles."""

    id: str
    identity: str
    at: float
    """Creation time, seconds since the epoch."""
    shingles: frozenset[str]


def rejected_support(inf: Influence, s: Settings) -> Signal | None:
    """Proposals it supported were rejected at least ``rejected_min`` times (once, for
    an :func:`unconfirmed` lesson), and at least as often as they were accepted."""
    n, ok = inf.rejected_support, inf.accepted_support
    if n < (1 if unconfirmed(inf) else s.rejected_min) or n < ok:
        return None
    return Signal(
        "rejected-support",
        f"rejected despite its support: {n} of {n + ok} decided proposals it supported "
        "were rejected",
    )


def unconfirmed(inf: Influence) -> bool:
    """Nothing brainview recorded wrote it and no decision or verdict ever confirmed it:
    the lesson stands on its own word."""
    return not (inf.attested or inf.confirmations or inf.upheld)


def accepted_opposed(inf: Influence, s: Settings) -> Signal | None:
    """An unconfirmed lesson whose opposition was overridden: proposals it opposed were
    accepted more often than rejected.  (A lesson a
    decision wrote is often overridden when it is about another case of its kind: the
    simulation measured it on 13–16 % of such lessons, so they are left out.)"""
    n, ok = inf.accepted_oppose, inf.rejected_oppose
    if n < 1 or n <= ok or not unconfirmed(inf):
        return None
    return Signal(
        "accepted-opposed",
        f"decided against: {n} of {n + ok} decided proposals it opposed were accepted",
    )


def low_corroboration(inf: Influence, s: Settings) -> Signal | None:
    """High influence confirmed by at most ``low_corroboration`` identities."""
    if s.project_deciders is not None and s.project_deciders < 2:
        return None
    if inf.score < s.high_influence or inf.identities > s.low_corroboration:
        return None
    return Signal(
        "low-corroboration",
        f"high influence, low corroboration: shaped {inf.drafts} draft(s) "
        f"({inf.suppressed} suppressed), swayed {inf.swayed} decision(s); confirmed "
        f"{inf.confirmations} time(s) by {inf.identities} identity(ies)",
    )


def unconfirmed_hold(inf: Influence, s: Settings) -> Signal | None:
    """Held back at least ``held_min`` drafts with no confirmation of any kind: not
    written by a recorded decision or outcome, never graded right, never upheld."""
    if inf.suppressed < s.held_min or not unconfirmed(inf):
        return None
    return Signal(
        "unconfirmed-hold",
        f"held back {inf.suppressed} draft(s) on its word alone: nothing recorded wrote it "
        "and no decision or verdict ever confirmed it",
    )


def unconfirmed_reach(inf: Influence, s: Settings) -> Signal | None:
    """An unconfirmed lesson recall returned for at least ``reach_min`` drafts: what an
    AgentPoison-style trigger looks like before anyone leans on it."""
    if inf.recalled < s.reach_min or not unconfirmed(inf):
        return None
    return Signal(
        "unconfirmed-reach",
        f"recalled for {inf.recalled} draft(s) on its word alone: nothing recorded wrote it "
        "and nothing confirmed it",
    )


def overruled(inf: Influence, s: Settings) -> Signal | None:
    """Drafts it held back were judged "should have been proposed" more often than
    anything confirmed it (verdicts upholding it, decisions grading it right, the
    decision that wrote it)."""
    if not inf.overruled or inf.overruled <= inf.upheld + inf.confirmations + inf.attested:
        return None
    return Signal(
        "overruled",
        f"overruled: {inf.overruled} of {inf.overruled + inf.upheld} judged draft(s) it held "
        "back should have been proposed",
    )


def text_signals(text: str | None) -> list[Signal]:
    """Risky imperatives and hidden characters in a lesson's text."""
    out = [Signal("risky", r.reason) for r in risks(text)]
    hidden = hidden_reason(text)
    return out + ([Signal("hidden", hidden)] if hidden else [])


def text_flags(text: str | None) -> list[str]:
    """The reasons of :func:`text_signals` (what an import or an outcome reports)."""
    return [x.reason for x in text_signals(text)]


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def similar(a: Lesson, b: Lesson, s: Settings) -> bool:
    """Near-duplicates, cheap checks first: sizes that cannot reach the threshold."""
    la, lb = len(a.shingles), len(b.shingles)
    if not la or not lb or min(la, lb) < s.similarity * max(la, lb):
        return False
    return _jaccard(a.shingles, b.shingles) >= s.similarity


def _components(
    lessons: dict[str, Lesson], groups: Iterable[Iterable[str]], s: Settings
) -> list[list[Lesson]]:
    """Near-duplicate components (union-find over the pairs of each candidate group
    written by different identities within the window of each other)."""
    parent: dict[str, str] = {}
    span = s.window_days * 86_400.0

    def root(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for group in groups:
        members = sorted({lessons[i] for i in group if i in lessons}, key=lambda x: (x.at, x.id))
        for x in members:
            parent.setdefault(x.id, x.id)
        for k, a in enumerate(members):
            for b in members[k + 1 :]:
                if b.at - a.at > span:
                    break  # sorted by time: nothing later is in the window either
                if a.identity != b.identity and root(a.id) != root(b.id) and similar(a, b, s):
                    parent[root(b.id)] = root(a.id)
    comps: dict[str, list[Lesson]] = {}
    for rid in parent:
        comps.setdefault(root(rid), []).append(lessons[rid])
    return [c for c in comps.values() if len(c) >= s.min_identities]


def gaming(
    lessons: Sequence[Lesson],
    s: Settings,
    groups: Iterable[Iterable[str]] | None = None,
) -> dict[str, Signal]:
    """Lesson id → ``gaming`` signal, for near-duplicates written by at least
    ``min_identities`` distinct identities within ``window_days`` of each other.

    ``groups``: candidate id sets worth comparing pairwise (the MinHash buckets the
    service builds); ``None`` compares every pair (small inputs, tests)."""
    by_id = {x.id: x for x in lessons}
    comps = _components(by_id, [list(by_id)] if groups is None else groups, s)
    span = s.window_days * 86_400.0
    out: dict[str, Signal] = {}
    for comp in comps:
        comp.sort(key=lambda x: (x.at, x.id))
        start = 0
        for end in range(len(comp)):
            while comp[end].at - comp[start].at > span:
                start += 1
            window = comp[start : end + 1]
            who = sorted({x.identity for x in window})
            if len(who) < s.min_identities:
                continue
            days = (window[-1].at - window[0].at) / 86_400.0
            names = ", ".join(w[:24] for w in who[:4]) + (", …" if len(who) > 4 else "")
            reason = (
                f"corroboration gaming: {len(window)} near-identical lessons from "
                f"{len(who)} identities ({names}) within {days:.1f} day(s)"
            )
            for x in window:
                out[x.id] = Signal("gaming", reason)
    return out


def lesson_signals(
    inf: Influence, text: str | None, s: Settings, extra: Iterable[Signal] = ()
) -> list[Signal]:
    """Every signal on one lesson (``extra``: the gaming signal, computed over many)."""
    found = [
        rejected_support(inf, s),
        accepted_opposed(inf, s),
        low_corroboration(inf, s),
        unconfirmed_hold(inf, s),
        unconfirmed_reach(inf, s),
        overruled(inf, s),
    ]
    return [x for x in found if x is not None] + list(extra) + text_signals(text)


def suspicion(signals: Iterable[Signal]) -> float:
    """How suspicious: the weights of the signals (risky counted at most twice)."""
    total, risky = 0.0, 0
    for sig in signals:
        if sig.kind == "risky":
            risky += 1
            if risky > 2:
                continue
        total += WEIGHTS.get(sig.kind, 1.0)
    return total


def rank(inf: Influence, signals: Sequence[Signal]) -> float:
    """``(1 + influence) × suspicion``: the suspicious view's order (0: not suspect)."""
    return (1 + inf.score) * suspicion(signals)
