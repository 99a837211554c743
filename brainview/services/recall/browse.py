"""Recall for a maintainer browsing: typed words and ``n-…`` neurons, or the proposal
under review, ranked by :func:`brainview.services.recall.recall` and never logged.

A curator's recall is logged (``brainview_recall``) so a proposal can name what it was
shown; a maintainer looking around in the console is not a curator recall, so
:func:`browse` always passes ``log=False`` and writes no row to either brain.  It also
does what a screen needs and the ranking does not: it tells typed neuron ids from words
(an ``n-…`` token that names no user neuron stays a word: *n-gram* is a word), and it
names the ``[user:…]`` references of the hits and policies (``⟦title⟧``) the way the
triage pane and the reflection view do.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from brainview.core.refs import USER_REF, name_refs, parse_refs
from brainview.core.safe_text import first_line
from brainview.services.recall import recall
from brainview.services.recall.result import RecallQuery, RecallResult
from brainview.store.readmodel import neurons_by_ids

if TYPE_CHECKING:
    from brainview.services.project import Project
    from brainview.services.review.detail import ProposalDetail

NEURON_TOKEN = re.compile(r"^n-[A-Za-z0-9_.:\-]{1,126}$")
"""A typed token that may be a user neuron id (Spikuit's ``n-<hex>``)."""
TOKENS = re.compile(USER_REF.pattern + r"|\S+")
"""``[user:…]`` references (group 1 is the id) and whitespace-separated tokens."""
TITLE_CHARS = 40
TRAILING = ",;.)"
"""Punctuation a typed id may carry (``n-ab12, n-cd34.``)."""


@dataclass(frozen=True)
class ProposalDraft:
    """The proposal under review, as a recall draft (kind, params, rationale)."""

    proposal_id: str
    kind: str
    params: Mapping[str, Any]
    rationale: str
    summary: str = ""

    def as_draft(self) -> dict[str, Any]:
        """The draft object :class:`RecallQuery` takes."""
        return {"kind": self.kind, "params": dict(self.params), "rationale": self.rationale}


def draft_of(detail: ProposalDetail) -> ProposalDraft:
    """The recall draft of a proposal shown in triage; its summary names the user neurons
    it touches by title (``⟦title⟧``), as the queue row does."""
    summary = detail.summary
    titles = {nid: first_line(n.content, 32) for nid, n in detail.neurons.items()}
    titles |= {k: v for k, v in detail.far_titles.items() if k not in titles}
    for nid in sorted(titles, key=len, reverse=True):
        if titles[nid]:
            summary = summary.replace(nid, f"⟦{titles[nid]}⟧")
    return ProposalDraft(detail.id, detail.kind, detail.params, detail.rationale, summary)


@dataclass(frozen=True)
class NamedRef:
    """A user neuron the recall asked about: its title, or that it is retired."""

    neuron_id: str
    title: str
    live: bool


@dataclass
class Browsed:
    """One browsing recall: the ranked result and what the screen shows with it."""

    result: RecallResult
    typed: str
    """The text as typed."""
    draft: ProposalDraft | None
    shown: dict[str, str] = field(default_factory=dict)
    """Hit or policy id → its text with ``[user:…]`` named (``⟦title⟧``)."""
    refs: list[NamedRef] = field(default_factory=list)
    """Every user neuron the recall asked about (typed and the draft's), in order."""
    words: list[str] = field(default_factory=list)
    """Typed ``n-…`` tokens that name no user neuron (searched as words)."""


def split_typed(text: str) -> tuple[str, list[str]]:
    """Typed text → (the words, candidate neuron ids): ``n-…`` and ``[user:…]`` tokens."""
    ids: list[str] = []
    words: list[str] = []
    for match in TOKENS.finditer(text):
        bare = match.group(0).rstrip(TRAILING)
        if match.group(1):
            ids.append(match.group(1))
        elif NEURON_TOKEN.match(bare):
            ids.append(bare)
        else:
            words.append(match.group(0))
    return " ".join(words), list(dict.fromkeys(ids))


def browse(
    project: Project,
    *,
    text: str,
    draft: ProposalDraft | None = None,
    skill: str | None = None,
    limit: int = 10,
    now: datetime,
) -> Browsed:
    """Recall for ``text`` (and ``draft``), unlogged; hits and policies with refs named.

    Raises what :func:`~brainview.services.recall.recall` raises: InvalidInputError (an
    empty or oversized query), NotFoundError (no agent brain)."""
    project.require_agent()
    words, candidates = split_typed(text)
    known = _users(project, candidates)
    refs = tuple(c for c in candidates if c in known)
    unknown = [c for c in candidates if c not in known]
    query = RecallQuery(
        text=" ".join([words, *unknown]).strip(),
        refs=refs,
        proposal=draft.as_draft() if draft is not None else None,
        skill=skill,
        limit=limit,
    )
    result = recall(project, query, now=now, log=False)
    texts = {h.reflection: h.text for h in result.hits}
    texts.update({p.policy: p.text for p in result.policies})
    asked = [str(r) for r in result.query.get("refs", [])]
    wanted = [*asked, *(r for t in texts.values() for r in parse_refs(t))]
    named = {**known, **_users(project, [w for w in wanted if w not in known])}
    return Browsed(
        result,
        text,
        draft,
        shown={k: name_refs(v, named) for k, v in texts.items()},
        refs=[NamedRef(r, named[r][0], named[r][1]) for r in asked if r in named],
        words=unknown,
    )


def _users(project: Project, ids: list[str]) -> dict[str, tuple[str, bool]]:
    """User neuron id → (title, live) for those of ``ids`` that exist."""
    if not ids:
        return {}
    with project.user.read() as conn:
        rows = neurons_by_ids(conn, project.user.era, list(dict.fromkeys(ids)))
    return {n.id: (first_line(n.content, TITLE_CHARS) or n.id, n.live) for n in rows.values()}
