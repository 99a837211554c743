"""What the invalidate dialog shows: the blast radius, the targets' states and the
titles of the user neurons their texts reference (so ``[user:…]`` reads ``⟦title⟧``).

One read unit; the stored texts are returned exact, naming happens at display time
with :func:`brainview.core.refs.name_refs`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from brainview.core.refs import parse_refs
from brainview.core.safe_text import first_line
from brainview.services import lifecycle
from brainview.services.lifecycle.blast import BlastRadius, radius
from brainview.services.project import Project
from brainview.store.readmodel import neurons_by_ids


@dataclass(frozen=True)
class RadiusView:
    """The blast radius of ``targets`` and what it takes to show it."""

    radius: BlastRadius
    targets: dict[str, tuple[lifecycle.Status, str]]
    """``{id: (status, content)}`` for the targets that exist."""
    user_titles: dict[str, tuple[str, bool]]
    """User neuron id → (title, live) for every ``[user:…]`` in the texts shown."""


def radius_view(project: Project, targets: Sequence[str]) -> RadiusView:
    """Read the blast radius, the targets' states and the referenced user titles."""
    found = radius(project, targets)
    agent = project.require_agent()
    with agent.read() as conn:
        rows = neurons_by_ids(conn, agent.era, list(targets))
        states = lifecycle.statuses(conn, agent.era, list(rows))
    shown = {r: (states[r], rows[r].content or "") for r in rows}
    texts = [h.summary for h in found.proposals]
    texts += [n.content for n in found.neighbours]
    texts += [content for _s, content in shown.values()]
    wanted = sorted({ref for t in texts for ref in parse_refs(t or "")})
    titles: dict[str, tuple[str, bool]] = {}
    if wanted:
        with project.user.read() as uconn:
            users = neurons_by_ids(uconn, project.user.era, wanted)
        titles = {u.id: (first_line(u.content, 40) or u.id, u.live) for u in users.values()}
    return RadiusView(found, shown, titles)
