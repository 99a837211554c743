"""What a person reads about a community: its label and its number.

Labels are the folded first line of the community's most central reflection
(:func:`brainview.core.community_label.label`) over a sample of members.  Numbers are
the ones shown everywhere — the list, the members title and the reflection view: the
partition's communities of two or more members count from 1 (biggest first, as the
partition is numbered); a reflection alone in its community is *isolated* and has no
number.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import brainview.services.communities.cache as community_cache
from brainview.core import community_label
from brainview.core.clustering import LABEL_CHARS
from brainview.core.community_label import shown_number
from brainview.services.project import Project
from brainview.store import community_reads

__all__ = ["LABEL_SAMPLE", "Placement", "labels", "placement", "shown_number"]

LABEL_SAMPLE = 30
"""Members (first by id) whose text feeds a community's label."""


def labels(project: Project, members: Mapping[int, Sequence[str]]) -> dict[int, str]:
    """A label per community, from the first ``LABEL_SAMPLE`` of its member ids."""
    wanted = {n: list(ids[:LABEL_SAMPLE]) for n, ids in members.items()}
    agent = project.require_agent()
    with agent.read() as conn:
        texts = community_reads.heads(
            conn, [r for ids in wanted.values() for r in ids], LABEL_CHARS
        )
    return {n: community_label.label([texts.get(r, "") for r in ids]) for n, ids in wanted.items()}


@dataclass(frozen=True)
class Placement:
    """Where one reflection sits in the cached partition, as the list shows it."""

    number: int | None
    """The shown number (``None``: isolated — alone in its community)."""
    size: int
    communities: int
    """How many communities of two or more members there are."""
    label: str


def placement(project: Project, reflection_id: str) -> Placement | None:
    """``reflection_id``'s community in the cached partition (``None``: not clustered)."""
    agent = project.require_agent()
    part, _ = community_cache.lookup(agent.path, None)
    if part is None:
        return None
    number = community_cache.community_of(agent.path, reflection_id)
    if number is None:
        return None
    sizes = part.sizes()
    groups = int((sizes > 1).sum())
    if sizes[number] < 2:
        return Placement(None, 1, groups, "")
    ids = [rid for rid, k in zip(part.ids, part.membership.tolist(), strict=True) if k == number]
    return Placement(
        shown_number(number), int(sizes[number]), groups, labels(project, {number: ids})[number]
    )
