"""The journal mode a brain is configured for, kept when brainview writes it.

Spikuit 0.7 opens every brain in WAL; its next release reads ``[database]
journal_mode`` from the brain's ``config.toml`` (``DELETE`` for a brain synced across
machines: a ``-wal`` beside a synced file is how sync tools corrupt SQLite), WAL by
default.  brainview switches a brain to that mode — not always to WAL — right before its
first write (never at open: a failed decision leaves the mode as it was), and creates
new brains in it.

Which config: the brain's own (``config.toml`` beside its ``circuit.db``), else, for an
agent brain in ``.spikuit/agent/``, the project's ``.spikuit/config.toml``.  A config
is read only as a regular file reached without following a link at its last component
(the directory is the brain's own), at most 64 KB; anything unreadable, unparsable or
not one of :data:`MODES` means the default.  The answer is cached per file by its
``stat``, so the write path pays one ``stat`` per config.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import threading
import tomllib
from pathlib import Path

DEFAULT = "wal"
MODES = frozenset({"wal", "delete", "truncate", "persist"})
"""Modes a brain may be configured for (``memory`` and ``off`` lose data on a crash)."""
MAX_BYTES = 64_000

_cache: dict[str, tuple[tuple[int, ...], str | None]] = {}
_lock = threading.Lock()


def config_paths(db: Path) -> list[Path]:
    """Where a brain's journal mode may be configured, in order."""
    out = [db.parent / "config.toml"]
    if db.parent.name == "agent" and db.parent.parent.name == ".spikuit":
        out.append(db.parent.parent / "config.toml")
    return out


def configured_mode(db: Path) -> str:
    """The journal mode (lower case) the brain at ``db`` is configured for."""
    for path in config_paths(Path(db)):
        found = _mode_in(path)
        if found is not None:
            return found
    return DEFAULT


def _mode_in(path: Path) -> str | None:
    """``[database] journal_mode`` of one config file (``None``: not set there)."""
    try:
        st = os.stat(path, follow_symlinks=False)
    except OSError:
        return None
    key = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    with _lock:
        hit = _cache.get(str(path))
    if hit is not None and hit[0] == key:
        return hit[1]
    mode = _read_mode(path) if stat.S_ISREG(st.st_mode) else None
    with _lock:
        _cache[str(path)] = (key, mode)
    return mode


def _read_mode(path: Path) -> str | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        data = os.read(fd, MAX_BYTES + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    if len(data) > MAX_BYTES:
        return None
    try:
        section = tomllib.loads(data.decode("utf-8")).get("database")
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        return None
    mode = section.get("journal_mode") if isinstance(section, dict) else None
    if isinstance(mode, str) and mode.strip().lower() in MODES:
        return mode.strip().lower()
    return None


def current_mode(conn: sqlite3.Connection) -> str:
    """The connection's database's journal mode now (lower case)."""
    return str(conn.execute("PRAGMA journal_mode").fetchone()[0]).lower()


def switch(conn: sqlite3.Connection, mode: str) -> str:
    """Set ``mode`` (one of :data:`MODES`) outside any transaction; returns the mode the
    file is in after (SQLite keeps WAL while another connection holds the file)."""
    if mode not in MODES:
        raise ValueError(f"not a journal mode brainview sets: {mode!r}")
    return str(conn.execute(f"PRAGMA journal_mode={mode.upper()}").fetchone()[0]).lower()
