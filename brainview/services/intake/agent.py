"""Intake checks for the agent-brain kinds (consolidation items).

The reflections and policies an item names must exist, be live and be of the right
type (a prune or a decay names reflections, a retirement a policy); a new policy's id
must be free.  The rest of intake (shape, consulted reflections, suspicion flags) is
the same as for any proposal.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from sqlalchemy import Connection

from brainview.errors import InvalidInputError
from brainview.store.era import Era
from brainview.store.intake_reads import kinds_and_retired

if TYPE_CHECKING:
    from brainview.services.intake import Proposal


POLICIES = ("policy", "community_summary")


def _policy_refs(p: Proposal) -> set[str]:
    """The ids a proposal names as policies (the rest must be reflections)."""
    if p.kind == "retire_policy":
        return {str(p.params["policy"])}
    previous = p.params.get("previous_policy") if p.kind == "summarize_community" else None
    return {str(previous)} if previous else set()


def agent_ref_ids(batch: Sequence[Proposal]) -> list[str]:
    """The agent-brain ids a batch's params name, and the ids of the policies it adds."""
    named = [r for p in batch for r in p.refs.reflections]
    return named + [str(p.params["policy"]) for p in batch if p.kind == "summarize_community"]


def check_agent_refs(
    conn: Connection,
    era: Era,
    batch: Sequence[Proposal],
    fail: Callable[[int, str, str], InvalidInputError],
    *,
    found: Mapping[str, tuple[str | None, str | None]] | None = None,
) -> None:
    """Refuse (the first problem, naming the proposal) unusable agent-brain references.
    ``found`` (``id → (type, retired_at)`` covering :func:`agent_ref_ids`) saves the read."""
    if found is None:
        found = kinds_and_retired(conn, era, agent_ref_ids(batch))
    for i, p in enumerate(batch):
        policies = _policy_refs(p)
        for rid in p.refs.reflections:
            row = found.get(rid)
            if row is None:
                raise fail(i, "params", f"agent-brain neuron {rid} does not exist")
            typ, retired_at = row
            if retired_at is not None and rid != p.params.get("previous_policy"):
                raise fail(i, "params", f"agent-brain neuron {rid} is retired")
            want = POLICIES if rid in policies else ("reflection",)
            if typ not in want:
                raise fail(i, "params", f"{rid} is a {typ}, not a {' or '.join(want)}")
        if p.kind == "summarize_community" and str(p.params["policy"]) in found:
            raise fail(i, "params.policy", f"{p.params['policy']} already exists")
