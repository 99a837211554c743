"""One recall handle per agent brain: its index, and the brain opened only while used.

A handle keeps no connection to the brain between uses.  A connection left open while
idle keeps the brain's ``-wal`` and ``-shm`` alive; when the brain is then replaced on
disk (a restore from a backup, ``git checkout``), the next process to open the new file
reads it through the old file's WAL and, being the last to close, checkpoints those
frames *into the restored file* — a corruption no later repair undoes.  So
:meth:`Handle.reading` and :meth:`Handle.writing` open a connection, check that it is
the file the handle was made for, and close it at the end; the last close folds the WAL
into the file and removes it.

Knowing that nothing changed since the last recall without re-reading the brain (the
index fingerprint is a scan of every neuron: 0.1–0.3 s at 100,000) uses the files'
``stat`` — which opens no descriptor: the brain's and its ``-wal``'s inode, size and
times.  A stamp is trusted when the next commit must change it: when every time in it
is :data:`SETTLED_NS` old (a later commit lands in a later timestamp tick), or, for a
brain in WAL mode, when there is no ``-wal`` (a commit has to create one).  Brainview's
own recall-log write keeps the index current when nobody else committed around it
(``PRAGMA data_version`` on its connection, and the ``-wal`` its own open created still
empty).  What this cannot see: another process that opens the brain, commits and closes
(folding its WAL in) entirely within the timestamp tick of our ``stat``, leaving the
file's size as it was — the index then misses that change until the next commit; the
lifecycle state of every hit is read from the brain last either way, so a retired or
invalidated lesson is never shown.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from brainview.errors import ReplacedError
from brainview.store import recall_index
from brainview.store.brain_check import translate_sqlite
from brainview.store.connect import (
    busy_timeout,
    connect,
    file_identity,
    needs_mode_switch,
    use_configured_mode,
)
from brainview.store.schema_guard import refuse_unsafe

SLOTS = 4
SETTLED_NS = 50_000_000
"""How much older than the ``stat`` a file time must be to trust the stamp (50 ms: far
more than a file-timestamp tick)."""

Stamp = tuple[Any, ...]


def stamp_of(path: Path, *, wal: bool = False) -> Stamp | None:
    """The brain's and its WAL's ``(inode, size, mtime, ctime)`` when it can be trusted
    to change with the next commit, else ``None`` (or when the brain is gone).

    Trusted when every time in it is :data:`SETTLED_NS` old (a later commit lands in a
    later timestamp tick), or — for a brain in WAL mode (``wal``) — when there is no
    ``-wal`` file: the next commit has to create one."""
    taken = time.time_ns()
    stamp = _stat_stamp(path)
    if stamp is None:
        return None
    if wal and stamp[1] is None:
        return stamp
    newest = max(max(part[3], part[4]) for part in stamp if part is not None)
    return stamp if taken - newest >= SETTLED_NS else None


@dataclass
class Handle:
    """An agent brain's recall index, and how to reach the brain."""

    path: Path
    identity: tuple[int, int] | None
    idx: sqlite3.Connection
    writable: bool
    wal: bool = False
    """The brain was in WAL mode when last opened (what :func:`stamp_of` may rely on)."""
    seen: Stamp | None = None
    """The brain's stamp when the index was last known current (``None``: unknown)."""
    lock: threading.Lock = field(default_factory=threading.Lock)
    edges: dict[str, list[Any]] = field(default_factory=dict)
    """Synapses read by earlier recalls, by node; emptied whenever the brain's stamp
    moved, so never stale."""

    vectors: Any = None
    """The lessons' vectors for semantic recall, as last loaded
    (:mod:`brainview.services.recall.semantic`), with what they were loaded for."""
    embed_down: tuple[str, float, str] | None = None
    """``(embedder key, monotonic time until, why)``: the embedder failed; not asked again
    before then (a server's every recall must not wait out a dead provider's timeout)."""
    queries: dict[tuple[str, str], Any] = field(default_factory=dict)
    """Query vectors already asked for, by ``(embedder key, text)`` (a few hundred)."""

    cache_seen: Stamp | None = None
    """The index file's own stamp when :attr:`seen` was set: an index edited since (by
    another process, or by hand) is checked against the brain again."""

    def current(self) -> bool:
        """Whether nothing was committed to the brain since :attr:`seen` was taken, and
        nobody touched the index file since."""
        if self.seen is None or _stat_stamp(self.path) != self.seen:
            return False
        return self.cache_seen is None or _stat_stamp(self.cache_path()) == self.cache_seen

    def _current_in_write(self) -> bool:
        """:meth:`current` from inside our own write transaction: opening it may have
        created an empty ``-wal`` (no frames yet), which is ours, not a commit."""
        if self.current():
            return True
        now = _stat_stamp(self.path)
        seen = self.seen
        if seen is None or now is None or now[0] != seen[0] or seen[1] is not None:
            return False
        fresh_wal = now[1] is not None and now[1][2] == 0  # size 0: created by us, unwritten
        return fresh_wal and (
            self.cache_seen is None or _stat_stamp(self.cache_path()) == self.cache_seen
        )

    def cache_path(self) -> Path:
        """The index's file (``""``-named for an index kept in memory)."""
        for _seq, name, file in self.idx.execute("PRAGMA database_list"):
            if name == "main":
                return Path(file or "")
        return Path("")

    def mark_current(self, seen: Stamp | None) -> None:
        """The index is current with the brain as stamped ``seen`` (taken before the
        read that synced it); remember the index file as it is now."""
        self.seen = seen
        cache = self.cache_path()
        self.cache_seen = _stat_stamp(cache) if str(cache) not in ("", ".") else None

    @contextmanager
    def _connection(self, *, write: bool) -> Iterator[sqlite3.Connection]:
        try:
            conn = connect(self.path, write=write, timeout=busy_timeout())
        except sqlite3.DatabaseError as err:
            raise translate_sqlite(err, self.path) from None
        try:
            if self.identity is not None and file_identity(self.path) != self.identity:
                raise ReplacedError(f"the agent brain was replaced on disk: {self.path}")
            self.wal = conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
            yield conn
        except sqlite3.IntegrityError:
            raise
        except sqlite3.DatabaseError as err:  # malformed, locked, read-only: one line
            raise translate_sqlite(err, self.path) from None
        finally:
            conn.close()

    @contextmanager
    def reading(self) -> Iterator[sqlite3.Connection]:
        """One read transaction on the agent brain (its own connection, closed after)."""
        with self._connection(write=False) as conn:
            conn.execute("BEGIN")
            try:
                yield conn
            finally:
                conn.execute("COMMIT")

    @contextmanager
    def writing(self) -> Iterator[sqlite3.Connection]:
        """One ``BEGIN IMMEDIATE`` transaction on the agent brain, refused (nothing
        written) when its schema holds what Spikuit never creates, like every write.
        When the index was current before and nobody else committed meanwhile, it is
        still current after (our writes never touch what it indexes)."""
        ours: Stamp | None = None
        with self._connection(write=True) as conn:
            if needs_mode_switch(conn, self.path):
                refuse_unsafe(conn, self.path, "agent", self.identity)
                # a brain configured for a rollback journal (``DELETE``) stays in it; what
                # the stamps may rely on follows the mode the file is in now
                self.wal = use_configured_mode(conn, self.path)
            conn.execute("BEGIN IMMEDIATE")
            was_current = self._current_in_write()  # the write lock is held now
            try:
                refuse_unsafe(conn, self.path, "agent", self.identity)
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
            before = conn.execute("PRAGMA data_version").fetchone()[0]
            ours = _stat_stamp(self.path)
            if conn.execute("PRAGMA data_version").fetchone()[0] != before or not was_current:
                ours = None
        closed = stamp_of(self.path, wal=self.wal)  # the last close folds the WAL in
        if ours is not None and closed is not None and (closed == ours or closed[1] is None):
            self.seen = closed  # the index file is not touched by this write
        else:
            self.seen = None

    def close(self) -> None:
        self.idx.close()


def _stat_stamp(path: Path) -> Stamp | None:
    """The stamp as it is, settled or not."""
    parts: list[Any] = []
    for p in (path, path.with_name(path.name + "-wal")):
        try:
            st = os.stat(p)
        except OSError:
            parts.append(None)
            continue
        parts.append((st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns))
    return tuple(parts) if parts[0] is not None else None


_handles: OrderedDict[tuple[str, tuple[int, int] | None], Handle] = OrderedDict()
_lock = threading.Lock()


def handle_for(path: Path, identity: tuple[int, int] | None, writable: bool) -> Handle:
    """The handle of the agent brain at ``path`` (its index opened on first use)."""
    key = (str(Path(path).resolve()), identity)
    with _lock:
        found = _handles.get(key)
        if found is not None:
            found.writable = found.writable or writable
            _handles.move_to_end(key)
            return found
        for old in [k for k in _handles if k[0] == key[0]]:  # that path's replaced file
            _handles.pop(old).close()
        handle = Handle(
            path=Path(path),
            identity=identity,
            idx=recall_index.open_index(Path(path), identity),
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
