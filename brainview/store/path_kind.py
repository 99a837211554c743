"""What a path names, by ``lstat``/``stat`` only (no descriptor is opened).

Where brainview expects a regular file — a brain, an export target, a config or cache
file — a directory, a device, a FIFO, a socket, a dangling symbolic link or a loop of
them is refused with one line naming what was found (:class:`BadPathError`), never
mistaken for "nothing there yet" (which would offer to create it) or written through.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from brainview.errors import BadPathError, ReadOnlyError

REGULAR, MISSING = "regular", "missing"

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _kind_of_mode(mode: int) -> str:
    if stat.S_ISREG(mode):
        return REGULAR
    for test, name in _KINDS:
        if test(mode):
            return name
    return "not a regular file"


def kind(path: Path | str) -> str:
    """``regular`` (following symbolic links), ``missing`` (no entry at all), or what
    else is there (``a directory``, ``a dangling symbolic link``, …).

    Raises :class:`ReadOnlyError` when the path cannot be looked at (permissions).
    """
    try:
        return _kind_of_mode(os.stat(path).st_mode)
    except FileNotFoundError:
        pass
    except PermissionError:
        raise ReadOnlyError(f"cannot reach {path}: permission denied") from None
    except OSError as err:
        if err.errno == errno.ELOOP:
            return "a symbolic link loop"
        if err.errno == errno.ENOTDIR:
            return "under something that is not a directory"
        return f"unreachable ({err.strerror or err})"
    try:
        os.lstat(path)
    except FileNotFoundError:
        return MISSING
    except OSError as err:
        return f"unreachable ({err.strerror or err})"
    return "a dangling symbolic link"


def is_symlink(path: Path | str) -> bool:
    """Whether ``path`` itself is a symbolic link (``lstat``)."""
    try:
        return stat.S_ISLNK(os.lstat(path).st_mode)
    except OSError:
        return False


def require_file_or_missing(path: Path | str, what: str) -> bool:
    """``True`` for a regular file, ``False`` when nothing is there; anything else is
    refused (:class:`BadPathError`, naming ``what`` the path is for)."""
    found = kind(path)
    if found == REGULAR:
        return True
    if found == MISSING:
        return False
    raise BadPathError(f"{what} {path} is {found}, not a regular file; refusing to use it")
