"""What a recall returns: ranked hits, each with the components that ranked it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from brainview.core.recall_text import Draft, draft_from_proposal
from brainview.errors import InvalidInputError

MAX_LIMIT = 100
MAX_REFS = 200
MAX_TEXT = 20_000


@dataclass(frozen=True)
class RecallQuery:
    """A recall: free text and/or user neurons, or a draft proposal (kind, params,
    rationale), restricted to one skill's lessons if asked, at most ``limit`` hits."""

    text: str = ""
    refs: tuple[str, ...] = ()
    proposal: Mapping[str, Any] | None = None
    skill: str | None = None
    limit: int = 10

    def draft(self) -> Draft:
        if self.proposal is not None:
            d = draft_from_proposal(self.proposal, self.refs)
            return Draft(f"{d.text} {self.text}".strip(), d.refs, d.kind, d.params)
        return Draft(self.text, tuple(dict.fromkeys(self.refs)))

    def check(self) -> None:
        """Refuse what cannot be a recall (one line naming the field)."""
        if not 1 <= self.limit <= MAX_LIMIT:
            raise InvalidInputError(f"limit: must be between 1 and {MAX_LIMIT}")
        if len(self.text) > MAX_TEXT:
            raise InvalidInputError(f"text: longer than {MAX_TEXT} characters")
        if len(self.refs) > MAX_REFS or not all(isinstance(r, str) and r for r in self.refs):
            raise InvalidInputError(f"refs: at most {MAX_REFS} non-empty neuron ids")
        if self.skill is not None and not (self.skill.isidentifier() and len(self.skill) < 64):
            raise InvalidInputError("skill: must be a plain name like 'curator'")
        if self.proposal is not None and not isinstance(self.proposal.get("kind"), str):
            raise InvalidInputError("proposal.kind: required string")
        if not (self.text.strip() or self.refs or self.proposal is not None):
            raise InvalidInputError("nothing to recall: give text, --ref neurons or a draft")

    @classmethod
    def from_json(cls, raw: object) -> RecallQuery:
        """From ``{"text", "refs", "skill", "limit"}`` or a draft proposal (has ``kind``)."""
        if not isinstance(raw, Mapping):
            raise InvalidInputError("recall: must be a JSON object")
        refs = raw.get("refs", [])
        if not isinstance(refs, list):
            raise InvalidInputError("refs: must be a list of neuron ids")
        limit = raw.get("limit", 10)
        if not isinstance(limit, int) or isinstance(limit, bool):
            raise InvalidInputError("limit: must be an integer")
        text = raw.get("text", "")
        skill = raw.get("skill")
        if not isinstance(text, str) or not (skill is None or isinstance(skill, str)):
            raise InvalidInputError("text, skill: must be strings")
        proposal = raw if "kind" in raw else raw.get("draft")
        if proposal is not None and not isinstance(proposal, Mapping):
            raise InvalidInputError("draft: must be a proposal object")
        text = "" if "kind" in raw else text
        return cls(text, tuple(str(r) for r in refs), proposal, skill, limit)


@dataclass
class Hit:
    """One recalled lesson and why it ranked."""

    reflection: str
    rank: int
    score: float
    skill: str
    state: str
    text: str
    lexical: float
    bm25: float
    spread: float
    retrievability: float | None
    matched_words: list[str] = field(default_factory=list)
    refs_direct: list[str] = field(default_factory=list)
    refs_neighbour: list[str] = field(default_factory=list)
    overturned_by: list[str] = field(default_factory=list)
    stance: str = "annotate"
    stance_reason: str = ""
    semantic: float = 0.0
    cosine: float | None = None
    cited: float = 0.0
    found_by: list[str] = field(default_factory=list)
    """Which parts found it: ``cited``, ``lexical``, ``semantic``, ``spreading``."""

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        components = {
            k: d.pop(k)
            for k in ("lexical", "bm25", "matched_words", "spread", "retrievability")
            + ("refs_direct", "refs_neighbour", "overturned_by", "semantic", "cosine", "cited")
        }
        d["components"] = components
        return d


@dataclass
class PolicyHit:
    """A policy over some of the hits (its community's rule), with the hits it covers."""

    policy: str
    text: str
    members: list[str]


@dataclass
class RecallResult:
    """A ranked recall; ``recall_id`` is ``None`` when it was not logged."""

    recall_id: str | None
    query: dict[str, Any]
    hits: list[Hit]
    policies: list[PolicyHit]
    index: dict[str, Any]
    excluded: dict[str, int] = field(default_factory=dict)
    """Lessons left out although they matched, by why: ``{"quarantined": n}``."""
    semantic: dict[str, Any] = field(default_factory=dict)
    """Semantic recall's status: ``on``, ``reason`` (why it is off), ``model``, counts."""

    def to_json(self) -> dict[str, Any]:
        return {
            "recall_id": self.recall_id,
            "query": self.query,
            "hits": [h.to_json() for h in self.hits],
            "policies": [asdict(p) for p in self.policies],
            "excluded": dict(self.excluded),
            "semantic": dict(self.semantic),
            "index": self.index,
        }
