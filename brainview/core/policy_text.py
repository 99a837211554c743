"""Drafting a policy from a community's reflections, and diffing two policies.

brainview has no language model: the draft is *extractive* and says so.  It names the
terms most members share (document frequency, ties by total count then alphabet),
quotes the most stable members' first lines, and counts the lessons behind it.  The
maintainer edits it before accepting.  Text from the brain is cleaned of control and
bidi characters before it is quoted (:func:`brainview.core.safe_text.clean`).
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from brainview.core.safe_text import clean

_WORD = re.compile(r"[^\W\d_][\w'-]{3,}", re.UNICODE)
_REF = re.compile(r"\[user:[^\]]*\]")
_STOP = """
    about above after again against also always because been before being below between
    both cannot could does doing down during each even ever from further have having here
    into just more most much must never only other ought over same should since some such
    than that their them then there these they this those through under until very were
    what when where which while with would your yours rather without within whether
    proposal proposals neuron neurons reflection reflections curator lesson lessons
"""
STOPWORDS = frozenset(_STOP.split())
QUOTES = 3
TERM_SAMPLE = 200
"""Shared terms are counted over the most stable members (a bound on big communities)."""
QUOTE_CHARS = 160


@dataclass(frozen=True)
class Member:
    """A reflection a policy would summarise."""

    id: str
    content: str
    stability: float | None
    skill: str


def first_line(text: str, limit: int = QUOTE_CHARS) -> str:
    """The first non-empty line, cleaned and shortened (``[user:…]`` references are
    kept: the reflection view resolves them)."""
    for line in text.splitlines():
        line = " ".join(clean(line, multiline=False).split())
        if line:
            return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"
    return ""


def shared_terms(contents: Sequence[str], k: int = 3) -> list[str]:
    """The ``k`` terms found in the most members (at least two, when there are two)."""
    df: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for text in contents:
        words = [w.lower() for w in _WORD.findall(_REF.sub("", text))]
        words = [w for w in words if w not in STOPWORDS]
        total.update(words)
        df.update(set(words))
    need = 2 if len(contents) >= 2 else 1
    ranked = sorted(df, key=lambda w: (-df[w], -total[w], w))
    return [w for w in ranked if df[w] >= need][:k]


def draft(members: Sequence[Member]) -> str:
    """The draft policy text for ``members`` (module docstring)."""
    ordered = sorted(members, key=lambda m: (-(m.stability or 0.0), m.id))
    terms = shared_terms([m.content for m in ordered[:TERM_SAMPLE]])
    skills = sorted({clean(m.skill, multiline=False)[:40] for m in members if m.skill})
    quotes: list[str] = []
    for m in ordered:  # the most stable first, until three different lines
        q = first_line(m.content)
        if q and q not in quotes:
            quotes.append(q)
            if len(quotes) == QUOTES:
                break
    about = ", ".join(terms) if terms else "one recurring situation"
    who = f" ({', '.join(skills)})" if skills else ""
    lines = [f"Policy{who} distilled from {len(members)} lessons about {about}:"]
    lines += [f"- {q}" for q in quotes]
    if len(members) > len(quotes):
        lines.append(f"(and {len(members) - len(quotes)} more lessons of this community)")
    return "\n".join(lines)


@dataclass(frozen=True)
class PolicyDiff:
    """A new policy against the community's previous one."""

    text_lines: list[str]
    """Unified diff of the texts (``-`` old, ``+`` new, `` `` unchanged)."""
    added: list[str]
    """Members the new policy summarises that the old one did not."""
    removed: list[str]
    """Members of the old policy the new one leaves out."""
    kept: int


def diff(old_text: str, old_members: set[str], new_text: str, new_members: set[str]) -> PolicyDiff:
    """Text and member differences (texts compared line by line)."""
    lines = [
        line
        for line in difflib.ndiff(old_text.splitlines(), new_text.splitlines())
        if not line.startswith("? ")
    ]
    return PolicyDiff(
        text_lines=lines,
        added=sorted(new_members - old_members),
        removed=sorted(old_members - new_members),
        kept=len(old_members & new_members),
    )
