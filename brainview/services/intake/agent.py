"""Intake checks for the agent-brain kinds (consolidation items).

The reflections and policies an item names must exist, be live and be of the right
type (a prune or a decay names reflections, a retirement a policy); a new policy's id
must be free.  The rest of intake (shape, consulted reflections, suspicion flags) is
the same as for any proposal.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from sqlalchemy import Connection

from brainview.errors import InvalidInputError
from brainview.store.era import Era
from brainview.store.readmodel import neurons_by_ids

if TYPE_CHECKING:
    from brainview.services.intake import Proposal


POLICIES = ("policy", "community_summary")


def _policy_refs(p: Proposal) -> set[str]:
    """The ids a proposal names as policies (the rest must be reflections)."""
    if p.kind == "retire_policy":
        return {str(p.params["policy"])}
    previous = p.params.get("previous_policy") if p.kind == "summarize_community" else None
    return {str(previous)} if previous else set()


def check_agent_refs(
    conn: Connection,
    era: Era,
    batch: Sequence[Proposal],
    fail: Callable[[int, str, str], InvalidInputError],
) -> None:
    """Refuse (the first problem, naming the proposal) unusable agent-brain references."""
    named = [r for p in batch for r in p.refs.reflections]
    new_ids = [str(p.params["policy"]) for p in batch if p.kind == "summarize_community"]
    found = neurons_by_ids(conn, era, named + new_ids)
    for i, p in enumerate(batch):
        for rid in p.refs.reflections:
            row = found.get(rid)
            if row is None:
                raise fail(i, "params", f"agent-brain neuron {rid} does not exist")
            if not row.live and rid != p.params.get("previous_policy"):
                raise fail(i, "params", f"agent-brain neuron {rid} is retired")
            want = POLICIES if rid in _policy_refs(p) else ("reflection",)
            if row.type not in want:
                raise fail(i, "params", f"{rid} is a {row.type}, not a {' or '.join(want)}")
        if p.kind == "summarize_community" and str(p.params["policy"]) in found:
            raise fail(i, "params.policy", f"{p.params['policy']} already exists")
