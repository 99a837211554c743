"""No self-approval: who proposed a proposal may not decide it.  Pure.

A proposal's author is its recorded ``runtime``: the curator runtime a proposal names,
else the one its face recorded (MCP: ``--runtime`` or the client's name).  A decider
whose name is that runtime (compared without case and surrounding space) is refused,
whatever the verdict (accept, reject, dismiss); a batch is refused whole, naming the
first such proposal.  A proposal without a runtime has no known author and is allowed.
"""

from __future__ import annotations

from collections.abc import Iterable

from brainview.core.safe_text import one_line

VERB = {"accept": "accept", "reject": "reject", "dismiss": "dismiss"}


def same_identity(a: str | None, b: str | None) -> bool:
    """Whether two names are one identity (case and surrounding space ignored)."""
    if not a or not b:
        return False
    return a.strip().casefold() == b.strip().casefold()


def self_approval(
    decider: str, authors: Iterable[tuple[str, str | None]], verdict: str, total: int = 1
) -> str | None:
    """The refusal line when ``decider`` authored any of ``authors`` (``(proposal id,
    runtime)`` in decision order), else ``None``; ``total`` is the batch's size."""
    for proposal_id, runtime in authors:
        if same_identity(decider, runtime):
            verb = VERB.get(verdict, "decide")
            line = (
                f"refused: {one_line(decider, 64)} proposed {one_line(proposal_id, 80)} "
                f"and cannot {verb} it"
            )
            if total > 1:
                line += f"; none of the {total} proposals was decided"
            return line
    return None
