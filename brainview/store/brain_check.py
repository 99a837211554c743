"""File-level checks and error translation shared by the light and full openers."""

from __future__ import annotations

from pathlib import Path

from brainview.errors import (
    BrainviewError,
    LockedError,
    NotABrainError,
    NotFoundError,
    ReadOnlyError,
)

SQLITE_MAGIC = b"SQLite format 3\x00"


def check_sqlite_file(path: Path) -> None:
    """Refuse missing, non-SQLite and truncated files before SQLite sees them."""
    if not path.exists():
        raise NotFoundError(f"no such brain: {path}")
    if not path.is_file():
        raise NotABrainError(f"not a file: {path}")
    try:
        with path.open("rb") as fh:
            header = fh.read(100)
    except PermissionError:
        raise ReadOnlyError(f"cannot read {path}: permission denied") from None
    if len(header) < 100 or not header.startswith(SQLITE_MAGIC):
        raise NotABrainError(f"not a SQLite database: {path}")
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    page_count = int.from_bytes(header[28:32], "big")
    change_counter = header[24:28]
    valid_for = header[92:96]
    # The in-header size is only trustworthy when "version-valid-for" matches.
    if page_count and change_counter == valid_for:
        wal = path.with_name(path.name + "-wal")
        has_wal = wal.exists() and wal.stat().st_size > 0
        if path.stat().st_size < page_count * page_size and not has_wal:
            raise NotABrainError(f"truncated or corrupt database: {path}")


def translate_sqlite(err: BaseException, path: Path) -> BrainviewError:
    """Map a DB-API error to a one-line brainview error."""
    text = str(getattr(err, "orig", err)).lower()
    if "locked" in text or "busy" in text:
        return LockedError(f"brain is locked by another process: {path}")
    if "readonly" in text or "read-only" in text or "unable to open" in text:
        return ReadOnlyError(f"cannot write to {path}: read-only")
    if "malformed" in text or "not a database" in text or "corrupt" in text:
        return NotABrainError(f"corrupt database: {path}")
    return NotABrainError(f"cannot use {path}: {text.splitlines()[0] if text else err}")
