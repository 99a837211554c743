"""Titles where a person reads: the user neurons a text names, by id.

The console shows a neuron's title (its first line) where the brain stores an id; the
CLI's tables do the same with these (``--json`` keeps the ids and adds the titles).
"""

from __future__ import annotations

from collections.abc import Iterable

from brainview.core.refs import parse_refs
from brainview.core.safe_text import first_line
from brainview.services.project import Project
from brainview.store.readmodel import neurons_by_ids

TITLE_CHARS = 40


def ref_titles(project: Project, texts: Iterable[str]) -> dict[str, tuple[str, bool]]:
    """``id → (title, live)`` of every user neuron the texts name as ``[user:…]`` (one
    batched read of the user brain; unknown ids left out)."""
    wanted = sorted({r for text in texts for r in parse_refs(text)})
    return neuron_titles(project, wanted)


def neuron_titles(project: Project, ids: Iterable[str]) -> dict[str, tuple[str, bool]]:
    """``id → (title, live)`` of the named user neurons that exist."""
    wanted = sorted(set(ids))
    if not wanted:
        return {}
    with project.user.read() as uconn:
        users = neurons_by_ids(uconn, project.user.era, wanted)
    return {u.id: (first_line(u.content, TITLE_CHARS) or u.id, u.live) for u in users.values()}


def lesson_titles(project: Project, ids: Iterable[str]) -> dict[str, str]:
    """``id → title`` of the named reflections (agent brain) that exist: what the
    console shows for a lesson at the far end of a link or a merge."""
    wanted = sorted(set(ids))
    if not wanted or project.agent is None:
        return {}
    with project.agent.read() as conn:
        found = neurons_by_ids(conn, project.agent.era, wanted)
    return {r.id: first_line(r.content, TITLE_CHARS) or r.id for r in found.values()}
