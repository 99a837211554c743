"""The one place a brain file is opened: through SQLite, never through ``open()``.

SQLite's locks are POSIX advisory locks, owned by the *process*: closing any
descriptor of a database file (``open()`` + ``close()``, ``Path.read_bytes()``,
``shutil.copy``) silently drops every lock this process's connections hold on it,
and the next process to close its own connection believes it is the last one,
checkpoints and deletes the WAL that we are still writing to.  So nothing in
brainview opens a ``circuit.db``, its ``-wal``, ``-shm`` or ``-journal`` except the
SQLite library, and the checks that used to read the header with ``open()`` are
done by SQLite itself (``file is not a database``, ``malformed``) plus ``stat()``,
which opens no descriptor.

Reading connections open the file ``mode=rw`` with ``PRAGMA query_only`` when the
file and its directory are writable: such a connection cannot change a row, and the
last one to close checkpoints and removes the ``-wal``/``-shm`` pair, so a reading
command leaves no side files behind (a ``mode=ro`` connection leaves them).  A
read-only file opens ``mode=ro``; a WAL brain in a read-only directory whose
``-shm`` cannot be created opens ``immutable=1`` (no writer can exist there: a
writer needs to create the ``-wal``).
"""

from __future__ import annotations

import math
import os
import sqlite3
from pathlib import Path
from urllib.parse import quote

from brainview.errors import (
    BadPathError,
    InvalidInputError,
    NotABrainError,
    NotFoundError,
    ReadOnlyError,
    UsageError,
)
from brainview.store import journal
from brainview.store.path_kind import MISSING, REGULAR, kind

SIDE_SUFFIXES = ("-wal", "-shm", "-journal")
BUSY_TIMEOUT_S = 5.0
MAX_BUSY_TIMEOUT_S = 3600.0
"""The longest wait ``BRAINVIEW_BUSY_TIMEOUT`` may ask for (an hour)."""


def busy_timeout() -> float:
    """Seconds to wait on a locked brain (``BRAINVIEW_BUSY_TIMEOUT`` overrides).

    A value that is not a finite number of seconds within ``0``–``MAX_BUSY_TIMEOUT_S``
    (``nan``, ``inf``, ``1e308``, ``-1``, ``abc``) is a usage error, one line.
    """
    raw = os.environ.get("BRAINVIEW_BUSY_TIMEOUT")
    if raw is None or not raw.strip():
        return BUSY_TIMEOUT_S
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and 0 <= value <= MAX_BUSY_TIMEOUT_S):
        raise UsageError(
            f"BRAINVIEW_BUSY_TIMEOUT: expected seconds from 0 to {MAX_BUSY_TIMEOUT_S:g}, "
            f"got {raw[:40]!r}"
        )
    return value


def check_brain_path(path: Path) -> None:
    """Refuse a missing, special, empty or unreadable file — by ``stat()`` only.

    A directory, device, FIFO, socket or dangling/looping symbolic link is a
    :class:`~brainview.errors.BadPathError`, not "no such brain"."""
    found = kind(path)
    if found == MISSING:
        raise NotFoundError(f"no such brain: {path}")
    if found != REGULAR:
        raise BadPathError(f"brain path {path} is {found}, not a regular file")
    if os.stat(path).st_size < 512:  # the smallest SQLite page; an empty file is no brain
        raise NotABrainError(f"not a SQLite database: {path}")
    if not os.access(path, os.R_OK):
        raise ReadOnlyError(f"cannot read {path}: permission denied")


_OPENED: dict[tuple[int, int], Path] = {}
"""``(st_dev, st_ino)`` → path of every brain this process has connected to."""


def file_identity(path: Path) -> tuple[int, int] | None:
    """``(st_dev, st_ino)`` of a file (``None`` if it is gone): which file a path names."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def _is_an_opened_brain(ident: tuple[int, int] | None) -> bool:
    """Whether ``ident`` is a brain this process opened *and that brain is still there*:
    once a brain file is deleted its inode can be reused by any new file, which must not
    be taken for the brain."""
    opened = _OPENED.get(ident) if ident is not None else None
    return opened is not None and file_identity(opened) == ident


def refuse_brain_path(path: Path | str, what: str) -> None:
    """Refuse to read or replace a brain file (or its side files) as plain input/output.

    A proposal file, a plan, a policy text or an export target that *is* a brain this
    process has opened (or any ``-wal``/``-shm``/``-journal``) would be opened with
    ``open()`` — dropping our SQLite locks — or replaced under other processes.
    """
    path = Path(path)
    side = path.name.endswith(SIDE_SUFFIXES)
    if side or _is_an_opened_brain(file_identity(path)):
        raise InvalidInputError(f"{what}: {path} is a brain database file; refusing to use it")


def _can_write(path: Path) -> bool:
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return bool(mode & 0o222) and os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)


def _uri(path: Path, mode: str, *, immutable: bool = False) -> str:
    extra = "&immutable=1" if immutable else ""
    return f"file:{quote(str(path.resolve()))}?mode={mode}{extra}"


def _prepare(conn: sqlite3.Connection, timeout: float) -> sqlite3.Connection:
    """Autocommit off (callers issue ``BEGIN``), the busy timeout, and an untrusted
    schema: views, triggers and generated columns may call innocuous functions only."""
    conn.isolation_level = None
    conn.execute(f"PRAGMA busy_timeout={int(timeout * 1000)}")
    conn.execute("PRAGMA trusted_schema=OFF")
    return conn


def use_configured_mode(conn: sqlite3.Connection, path: Path) -> bool:
    """Switch the brain at ``path`` to the journal mode it is configured for (WAL unless
    its ``config.toml`` says otherwise: :mod:`brainview.store.journal`) right before
    brainview's first write on it, outside any transaction — never at open, so a decision
    that fails before it writes a brain leaves that brain's journal mode as it was.
    Returns whether the file is in WAL mode after."""
    want = journal.configured_mode(path)
    if journal.current_mode(conn) != want:
        return journal.switch(conn, want) == "wal"
    return want == "wal"


def needs_mode_switch(conn: sqlite3.Connection, path: Path) -> bool:
    """Whether the brain's journal mode is not the one it is configured for."""
    return journal.current_mode(conn) != journal.configured_mode(path)


def connect(path: Path, *, write: bool, timeout: float) -> sqlite3.Connection:
    """One raw connection to a brain (autocommit off: callers issue ``BEGIN``).

    ``write=False`` gives a connection that cannot change a row whatever it runs.
    """
    ident = file_identity(path)
    if ident is not None:
        _OPENED[ident] = path
    if write or _can_write(path):
        conn = sqlite3.connect(_uri(path, "rw"), uri=True, timeout=timeout, check_same_thread=False)
        _prepare(conn, timeout)
        if not write:
            conn.execute("PRAGMA query_only=1")
        return conn
    conn = sqlite3.connect(_uri(path, "ro"), uri=True, timeout=timeout, check_same_thread=False)
    _prepare(conn, timeout)
    try:
        conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
    except sqlite3.OperationalError as err:
        wal = path.with_name(path.name + "-wal")
        if "readonly" not in str(err) and "unable to open" not in str(err) or wal.exists():
            conn.close()
            raise
        conn.close()  # a WAL brain whose -shm cannot be made here: nobody can write it
        conn = sqlite3.connect(
            _uri(path, "ro", immutable=True), uri=True, timeout=timeout, check_same_thread=False
        )
        _prepare(conn, timeout)
    return conn
