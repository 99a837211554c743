"""Create an empty brain file where there is none — and only there.

The schema is written to a fresh temporary file in the target's directory (created
exclusively, so nothing planted can redirect it), which is then hard-linked to the
target name: the link fails if *anything* appeared there meanwhile (a file, a
directory, a dangling symbolic link), so an existing brain is never replaced and a
symbolic link is never followed to create a file elsewhere.
"""

from __future__ import annotations

import errno
import os
import sqlite3
import tempfile
from pathlib import Path

from brainview.errors import ConflictError, ReadOnlyError
from brainview.store.connect import SIDE_SUFFIXES
from brainview.store.journal import configured_mode


def create_empty(path: Path, ddl: str) -> None:
    """Write a brain with ``ddl`` at ``path`` in the journal mode its ``config.toml``
    asks for (WAL by default, as Spikuit leaves it; :mod:`brainview.store.journal`), which must
    not exist (:class:`ConflictError` otherwise; nothing is left behind on error)."""
    parent = path.parent
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=parent)
    except OSError as err:
        raise ReadOnlyError(f"cannot create a brain in {parent} ({err.strerror})") from None
    os.close(fd)
    try:
        conn = sqlite3.connect(tmp)
        try:
            if configured_mode(path) == "wal":  # else the default rollback journal
                conn.execute("PRAGMA journal_mode=WAL")
            conn.executescript(ddl)
            conn.commit()
        finally:
            conn.close()
        _link_new(tmp, path)
    except sqlite3.Error as err:
        raise ReadOnlyError(f"cannot create {path}: {err}") from None
    finally:
        for name in (tmp, *(tmp + s for s in SIDE_SUFFIXES)):
            Path(name).unlink(missing_ok=True)


def _link_new(tmp: str, path: Path) -> None:
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise ConflictError(f"{path} appeared meanwhile; left untouched") from None
    except OSError as err:
        if err.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.EMLINK):
            raise ReadOnlyError(f"cannot create {path} ({err.strerror})") from None
        if os.path.lexists(path):  # a filesystem without hard links
            raise ConflictError(f"{path} appeared meanwhile; left untouched") from None
        os.rename(tmp, path)
