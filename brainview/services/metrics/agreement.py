"""Agreement between the people who decided the same items: two-person items and the
team's agreement sample (``[two_person] agreement_sample``).

Each standing first vote paired with the standing decision a different person took on
the same proposal (or the invalidation batch a second person ran) is one rated item;
:func:`brainview.core.agreement.summarize` turns them into Cohen's κ (two people) or
Krippendorff's α (more), overall, per kind and per person.  A pair whose decision was
undone or whose first vote was withdrawn is not counted.
"""

from __future__ import annotations

from typing import Any

from brainview.core.agreement import Rated, summarize
from brainview.services.project import Project
from brainview.store import approval_rows


def rated_items(project: Project) -> list[Rated]:
    """Every item two people decided (oldest first)."""
    if project.agent is None:
        return []
    with project.agent.read() as conn:
        pairs = approval_rows.decided_pairs(conn)
    return [Rated(kind, (a, va), (b, vb)) for kind, a, va, b, vb in pairs]


def agreement(project: Project) -> dict[str, Any]:
    """``{"overall", "by_kind", "by_person"}`` (:func:`brainview.core.agreement.summarize`)."""
    return summarize(rated_items(project))
