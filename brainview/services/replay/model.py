"""What a replay reports, and the rules that say when a lesson mattered (pure).

A lesson **mattered** to a logged recall when, re-ranked now from the logged query:

* ``top`` — it was the first hit, so without it the curator sees another lesson first;
* ``sole_oppose`` / ``sole_support`` — its suggested stance was ``oppose`` (or
  ``support``) and no hit left without it has that stance: the draft loses its only
  lesson warning against it (or pushing for it).

A decision would have changed when the proposal consulted the lesson with stance
``support`` or ``oppose`` and either no other consulted lesson takes that stance, or
the recall the proposal came from (the latest logged recall, received no later than
the proposal, whose every hit the proposal consulted or retrieved) mattered.  A
held-back draft likewise: the lesson was its only ``oppose`` lesson, or the draft's
recall mattered.  ``annotate`` never changes anything.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

STANCES = ("support", "oppose")


@dataclass(frozen=True)
class RecallReplay:
    """One logged recall re-ranked now with and without the lesson."""

    recall_id: str
    at: str
    skill: str | None
    query: str
    """The logged query's text (first 200 characters; untrusted)."""
    baseline: str
    """``rerun`` (re-ranked now with the lesson) or ``logged`` (the lesson cannot be
    ranked now — invalidated, retired, gone — so the logged hits stand for "with")."""
    logged: list[str]
    """The hits as logged then (what the curator was shown)."""
    rank: int | None
    """The lesson's rank with it."""
    stance: str | None
    """Its suggested stance in this recall."""
    before: list[str]
    after: list[str]
    changes: list[str] = field(default_factory=list)

    @property
    def matters(self) -> bool:
        """Whether the hit list differs in a way that matters (module docstring)."""
        return bool(self.changes)

    @property
    def new_top(self) -> str | None:
        """The first hit without the lesson."""
        return self.after[0] if self.after else None


@dataclass(frozen=True)
class DecisionReplay:
    """A proposal that consulted the lesson, its verdict, and whether it would change."""

    proposal_id: str
    kind: str
    summary: str
    status: str
    verdict: str | None
    decider: str | None
    stance: str
    recall_id: str | None
    changes: list[str]

    @property
    def would_change(self) -> bool:
        return bool(self.changes)


@dataclass(frozen=True)
class HeldBackReplay:
    """A draft the curator held back that names the lesson or came from its recall."""

    held_back_id: str
    kind: str
    action: str
    recall_id: str | None
    reported_at: str
    stance: str | None
    verdict: str | None
    changes: list[str]

    @property
    def would_change(self) -> bool:
        return bool(self.changes)


@dataclass
class Replay:
    """Everything a lesson changed, replayed without it."""

    reflection_id: str
    state: str
    recalls: list[RecallReplay] = field(default_factory=list)
    recalls_total: int = 0
    decisions: list[DecisionReplay] = field(default_factory=list)
    held_back: list[HeldBackReplay] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    """Recalls whose logged query could not be read back (id: why)."""

    @property
    def affected(self) -> tuple[int, int, int]:
        """``(recalls that mattered, decisions, held-back drafts that would change)``."""
        return (
            sum(r.matters for r in self.recalls),
            sum(d.would_change for d in self.decisions),
            sum(h.would_change for h in self.held_back),
        )

    def to_json(self) -> dict[str, Any]:
        recalls, decisions, held = self.affected
        return {
            "reflection": self.reflection_id,
            "state": self.state,
            "recalls_total": self.recalls_total,
            "recalls_replayed": len(self.recalls),
            "affected": {"recalls": recalls, "decisions": decisions, "held_back": held},
            "recalls": [
                asdict(r) | {"matters": r.matters, "new_top": r.new_top} for r in self.recalls
            ],
            "decisions": [asdict(d) | {"would_change": d.would_change} for d in self.decisions],
            "held_back": [asdict(h) | {"would_change": h.would_change} for h in self.held_back],
            "skipped": list(self.skipped),
        }


def recall_changes(rank: int | None, stance: str | None, after_stances: Sequence[str]) -> list[str]:
    """Why removing the lesson matters to one recall (empty: it does not)."""
    out = ["top"] if rank == 1 else []
    if stance in STANCES and stance not in after_stances:
        out.append(f"sole_{stance}")
    return out


def sole(stance: str | None, others: Sequence[str | None]) -> list[str]:
    """``["sole_<stance>"]`` when no other lesson of a draft takes the lesson's stance."""
    mine = stance or "support"
    if mine not in STANCES:
        return []
    return [] if mine in {o or "support" for o in others} else [f"sole_{mine}"]


def linked_recall(
    consulted: set[str], received_at: str | None, recalls: Sequence[RecallReplay]
) -> RecallReplay | None:
    """The recall a proposal came from: the latest one, no later than the proposal,
    whose every hit the proposal consulted or retrieved (``recalls`` newest first)."""
    for r in recalls:
        if received_at is not None and r.at > received_at:
            continue
        if r.logged and set(r.logged) <= consulted:
            return r
    return None
