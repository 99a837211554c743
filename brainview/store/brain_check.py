"""File-level checks and error translation shared by the light and full openers."""

from __future__ import annotations

from pathlib import Path

from brainview.errors import (
    BrainviewError,
    DiskFullError,
    LockedError,
    NotABrainError,
    ReadOnlyError,
)
from brainview.store.connect import check_brain_path


def check_sqlite_file(path: Path) -> None:
    """Refuse missing, special, empty and unreadable files without opening them.

    Only ``stat()``: reading the header with ``open()`` would drop this process's
    SQLite locks on the file (see :mod:`brainview.store.connect`).  Whether the
    bytes are a database, and whether it is truncated, SQLite answers on the first
    query (``file is not a database`` / ``malformed``), translated below.
    """
    check_brain_path(path)


def translate_sqlite(err: BaseException, path: Path) -> BrainviewError:
    """Map a DB-API error to a one-line brainview error."""
    text = str(getattr(err, "orig", err)).lower()
    if "locked" in text or "busy" in text:
        return LockedError(f"brain is locked by another process: {path}")
    if "readonly" in text or "read-only" in text or "unable to open" in text:
        return ReadOnlyError(f"cannot write to {path}: read-only")
    if "file is not a database" in text:
        return NotABrainError(f"not a SQLite database: {path}")
    if "malformed" in text or "not a database" in text or "corrupt" in text:
        return NotABrainError(f"truncated or corrupt database: {path}")
    if "disk is full" in text:
        return DiskFullError(f"disk full writing {path}: nothing was written")
    if "disk i/o" in text:
        return NotABrainError(f"disk I/O error on {path}: nothing was written")
    return NotABrainError(f"cannot use {path}: {text.splitlines()[0] if text else err}")
