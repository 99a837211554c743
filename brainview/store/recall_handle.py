"""One recall handle per agent brain: its index and a connection of its own.

The handle's connection reads the agent brain for recall and appends to the recall log.
SQLite's ``PRAGMA data_version`` on it changes whenever *another* connection (another
process, or another connection of this one) commits, and never for its own commits: so a
warm recall skips even the fingerprint scan when nothing was written since the last one,
and logging a recall does not make the next one think the brain changed.  Handles are
kept for the last few brains a process used (a long-running MCP server keeps its own);
a brain replaced on disk gets a new one.
"""

from __future__ import annotations

import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from brainview.store import recall_index
from brainview.store.connect import busy_timeout, connect, use_wal
from brainview.store.schema_guard import refuse_unsafe

SLOTS = 4


@dataclass
class Handle:
    """An agent brain's recall index and connection."""

    path: Path
    identity: tuple[int, int] | None
    idx: sqlite3.Connection
    agent: sqlite3.Connection
    writable: bool
    seen_version: int | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)
    edges: dict[str, list[Any]] = field(default_factory=dict)
    """Synapses read by earlier recalls, by node; emptied whenever another connection
    commits to the agent brain (``data_version`` moved), so never stale."""

    def version(self) -> int:
        return int(self.agent.execute("PRAGMA data_version").fetchone()[0])

    @contextmanager
    def reading(self) -> Iterator[sqlite3.Connection]:
        """One read transaction on the agent brain."""
        self.agent.execute("BEGIN")
        try:
            yield self.agent
        finally:
            self.agent.execute("COMMIT")

    @contextmanager
    def writing(self) -> Iterator[sqlite3.Connection]:
        """One ``BEGIN IMMEDIATE`` transaction on the agent brain, refused (nothing
        written) when its schema holds what Spikuit never creates, like every write."""
        if self.agent.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
            refuse_unsafe(self.agent, self.path, "agent", self.identity)
            use_wal(self.agent)
        self.agent.execute("BEGIN IMMEDIATE")
        try:
            refuse_unsafe(self.agent, self.path, "agent", self.identity)
            yield self.agent
        except BaseException:
            self.agent.execute("ROLLBACK")
            raise
        self.agent.execute("COMMIT")

    def close(self) -> None:
        self.idx.close()
        self.agent.close()


_handles: OrderedDict[tuple[str, tuple[int, int] | None], Handle] = OrderedDict()
_lock = threading.Lock()


def handle_for(path: Path, identity: tuple[int, int] | None, writable: bool) -> Handle:
    """The handle of the agent brain at ``path`` (opened on first use)."""
    key = (str(Path(path).resolve()), identity)
    with _lock:
        found = _handles.get(key)
        if found is not None and (found.writable or not writable):
            _handles.move_to_end(key)
            return found
        if found is not None:
            _handles.pop(key).close()
        handle = Handle(
            path=Path(path),
            identity=identity,
            idx=recall_index.open_index(Path(path), identity),
            agent=connect(Path(path), write=writable, timeout=busy_timeout()),
            writable=writable,
        )
        _handles[key] = handle
        while len(_handles) > SLOTS:
            _handles.popitem(last=False)[1].close()
        return handle


def close_all() -> None:
    """Close every handle (tests, and a server shutting down)."""
    with _lock:
        while _handles:
            _handles.popitem()[1].close()
