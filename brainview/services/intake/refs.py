"""Resolve ``[user:<id>]`` references in reflection text against the user brain."""

from __future__ import annotations

from brainview.core.refs import UserRef, parse_refs
from brainview.core.safe_text import first_line
from brainview.services.project import Project
from brainview.store.readmodel import neurons_by_ids


def resolve(project: Project, content: str) -> list[UserRef]:
    """Each referenced user neuron with its status: live, retired or dangling."""
    ids = parse_refs(content)
    if not ids:
        return []
    with project.user.read() as conn:
        rows = neurons_by_ids(conn, project.user.era, ids)
    out: list[UserRef] = []
    for nid in ids:
        row = rows.get(nid)
        if row is None:
            out.append(UserRef(nid, "dangling"))
        else:
            out.append(
                UserRef(
                    nid, "live" if row.live else "retired", first_line(row.content, 60), row.domain
                )
            )
    return out
