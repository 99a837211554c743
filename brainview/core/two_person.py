"""The two-person rule: which changes need a second, different person, and what one
more vote does.  Pure.

A project names the changes that need two people (``[two_person] rules``):

* ``invalidate`` — invalidating reflections (a lifecycle batch or a blast radius);
* ``policy`` — promoting a community summary to a policy (``summarize_community``);
* ``prune`` — pruning above ``prune_above`` items in one decision (``prune_reflection``
  proposals decided together, or the synapses of one ``decay_synapses``);
* ``graduate`` — moving a ``.learnings`` entry to the graduated tier;
* any proposal kind by name (``merge_neurons``, ``retire_neuron``, …).

A **vote** is one person's verdict on one subject (a proposal, or an invalidation of a
set of reflections).  :func:`step` says what a new vote does: ``hold`` (recorded,
nothing applied: the subject waits for a second person) or ``final`` (the change is
decided now, with this vote's verdict).  An accept of a two-person subject is final
only when a *different* person's accept already stands; a reject is final at once.
A subject in the agreement sample (:func:`in_sample`) holds its first vote whatever
the verdict, so two people decide it and their agreement can be measured.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from brainview.core.authorship import same_identity
from brainview.core.safe_text import one_line

RULES = ("invalidate", "policy", "prune", "graduate")
"""The named change classes (a project may also list proposal kinds)."""
DEFAULT_RULES = RULES
PRUNE_KINDS = frozenset({"prune_reflection", "decay_synapses"})
POLICY_KIND = "summarize_community"
LEARNING_KIND = "learning_tier"
GRADUATED_TIER = "GRADUATED"
INVALIDATE = "invalidate"

Step = Literal["hold", "final"]


@dataclass(frozen=True)
class Rules:
    """What needs two people in one project."""

    enabled: bool = False
    rules: frozenset[str] = frozenset(DEFAULT_RULES)
    prune_above: int = 10
    sample_rate: float = 0.0
    sample_seed: int = 0


@dataclass(frozen=True)
class Vote:
    """One standing vote: who, which verdict, when."""

    actor: str
    verdict: str
    at: str = ""


def size_of(kind: str, params: Mapping[str, Any] | None) -> int:
    """How many items one proposal changes (a ``decay_synapses``: its synapses)."""
    if kind == "decay_synapses" and params is not None:
        items = params.get("synapses")
        return len(items) if isinstance(items, list) else 1
    return 1


def rule_of(
    kind: str, params: Mapping[str, Any] | None, prune_items: int, rules: Rules
) -> str | None:
    """The rule that puts one proposal under two people (``None``: one suffices).

    ``prune_items`` counts the prune items of the whole decision it is taken in."""
    if not rules.enabled:
        return None
    if kind in rules.rules:
        return kind
    if kind == POLICY_KIND and "policy" in rules.rules:
        return "policy"
    if kind in PRUNE_KINDS and "prune" in rules.rules and prune_items > rules.prune_above:
        return "prune"
    graduating = params is not None and str(params.get("tier_to", "")).upper() == GRADUATED_TIER
    if kind == LEARNING_KIND and "graduate" in rules.rules and graduating:
        return "graduate"
    return None


def prune_items(items: Iterable[tuple[str, Mapping[str, Any] | None]]) -> int:
    """The prune items of one decision: ``(kind, params)`` of every proposal in it."""
    return sum(size_of(k, p) for k, p in items if k in PRUNE_KINDS)


def invalidation_rule(rules: Rules) -> bool:
    """Whether invalidating reflections needs two people."""
    return rules.enabled and INVALIDATE in rules.rules


def in_sample(subject: str, rules: Rules) -> bool:
    """Whether ``subject`` is in the team's agreement sample (stable for its id)."""
    if not rules.enabled or rules.sample_rate <= 0.0:
        return False
    digest = hashlib.sha256(f"{rules.sample_seed}:{subject}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < rules.sample_rate


def step(
    votes: Sequence[Vote], actor: str, verdict: str, *, two_person: bool, sampled: bool
) -> Step:
    """What ``actor``'s ``verdict`` does given the subject's standing ``votes``.

    Raises :class:`ValueError` (its text the one line to show) when ``actor`` already
    has a standing vote: a second vote must come from someone else."""
    mine = [v for v in votes if same_identity(v.actor, actor)]
    if mine:
        raise ValueError(own_vote_line(actor, mine[0].verdict))
    if verdict not in ("accept", "reject", INVALIDATE):
        return "final"  # a dismissal sets the subject aside, whoever voted
    others = [v for v in votes if not same_identity(v.actor, actor)]
    if sampled and not others:
        return "hold"
    if verdict == "reject":
        return "final"
    if two_person and not any(v.verdict == verdict for v in others):
        return "hold"
    return "final"


def own_vote_line(actor: str, verdict: str) -> str:
    """The refusal when a person votes twice."""
    what = {"accept": "accepted", "reject": "rejected", INVALIDATE: "approved invalidating"}
    return (
        f"refused: {one_line(actor, 64)} already {what.get(verdict, 'voted on')} this; "
        "a second, different person must decide it (or withdraw your approval)"
    )


def waiting_line(votes: Sequence[Vote], rule: str | None) -> str:
    """``½ accepted by ada — needs a second person (policy)``."""
    if not votes:
        return ""
    first = votes[0]
    past = {"accept": "accepted", "reject": "rejected", INVALIDATE: "approved"}
    why = f" ({rule})" if rule else " (agreement sample)"
    return (
        f"½ {past.get(first.verdict, first.verdict)} by {one_line(first.actor, 40)} "
        f"— needs a second person{why}"
    )


def invalidation_subject(reflection_ids: Iterable[str]) -> str:
    """The subject id of invalidating exactly this set of reflections."""
    ids = sorted(set(reflection_ids))
    digest = hashlib.sha256(json.dumps(ids).encode()).hexdigest()[:16]
    return f"invalidate:{digest}"
