"""Is the recall index current with the agent brain?  The one check before a ranking."""

from __future__ import annotations

from brainview.services.project import Project
from brainview.store import recall_graph, recall_index
from brainview.store.recall_handle import Handle, stamp_of
from brainview.store.rows import driver


def fresh(handle: Handle, project: Project) -> str:
    """Sync the index unless nothing was committed to the agent brain since last time
    (:mod:`brainview.store.recall_handle`: told by the files' ``stat``, no scan)."""
    if handle.current():
        return "current"
    seen = stamp_of(handle.path, wal=handle.wal)  # before the read: a commit moves it
    handle.edges.clear()  # someone committed: synapses may have changed

    def titles(ids: list[str]) -> dict[str, str]:
        with project.user.read() as conn:
            return recall_graph.titles(driver(conn), ids)

    assert project.agent is not None
    with handle.reading() as conn:
        how = recall_index.sync(handle.idx, conn, project.agent.era.neuron_cols, titles)
    handle.mark_current(seen)
    return how
