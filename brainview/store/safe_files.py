"""Writing a plain file outside the brains (exports, config, caches) safely.

Every file brainview writes outside a brain goes through :func:`atomic_write`:

* the target must be a regular file or nothing yet — a directory, a device, a FIFO, a
  socket or a symbolic link (dangling, looping, or pointing anywhere) is refused with
  one line (:class:`~brainview.errors.BadPathError`) unless ``force`` is given, and
  even then only a symbolic link to a regular file or a regular file is replaced —
  never a device or FIFO (writing there would block or reach a terminal);
* an existing file is never replaced silently: :class:`~brainview.errors.ConflictError`
  unless ``force``;
* a brain file or one of its side files is never a target
  (:func:`brainview.store.connect.refuse_brain_path`);
* the bytes go to a fresh temporary file in the same directory (``mkstemp``: created
  exclusively, so a planted name cannot redirect it), are flushed to disk, and the
  temporary file is renamed over the target only when complete.  Replacing a symbolic
  link (``force``) replaces the link itself, not the file it points to.
"""

from __future__ import annotations

import errno
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from brainview.errors import (
    BadPathError,
    ConflictError,
    DiskFullError,
    NotFoundError,
    ReadOnlyError,
)
from brainview.store.connect import refuse_brain_path
from brainview.store.path_kind import MISSING, REGULAR, is_symlink, kind


def check_target(
    target: Path, what: str, *, force: bool = False, force_flag: str | None = "--force"
) -> bool:
    """Refuse a target that is not a regular file (or nothing); ``True`` if it exists.

    ``force`` allows replacing an existing regular file or a symbolic link to one; never
    a directory, device, FIFO, socket, dangling or looping link.  ``force_flag`` names
    the flag that gives ``force`` in the messages (``None``: there is none).
    """
    hint = f" ({force_flag} replaces it)" if force_flag else ""
    refuse_brain_path(target, what)
    parent = target.parent if str(target.parent) else Path(".")
    if kind(parent) != "a directory":
        raise NotFoundError(f"{what}: no such directory: {parent}")
    found = kind(target)
    link = is_symlink(target)
    if found not in (REGULAR, MISSING) or (link and found == MISSING):
        shown = "a dangling symbolic link" if link and found == MISSING else found
        raise BadPathError(f"{what}: {target} is {shown}; refusing to write there")
    if link and not force:
        raise BadPathError(f"{what}: {target} is a symbolic link; not writing through it{hint}")
    if found == REGULAR and not force:
        raise ConflictError(f"{what}: {target} already exists; refusing to overwrite it{hint}")
    return found == REGULAR


@contextmanager
def atomic_write(
    target: Path,
    what: str,
    *,
    force: bool = False,
    mode: int | None = None,
    force_flag: str | None = "--force",
) -> Iterator[IO[str]]:
    """A UTF-8 text file that becomes ``target`` only when the block succeeds.

    Checked first with :func:`check_target`; on any error the target is untouched and
    the temporary file removed.  ``mode``: the new file's permissions (default: the
    replaced file's, else what ``open()`` would give under the umask).
    """
    target = Path(target)
    exists = check_target(target, what, force=force, force_flag=force_flag)
    parent = target.parent if str(target.parent) else Path(".")
    perms = mode if mode is not None else _mode_for(target if exists else None)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=parent)
    except OSError as err:
        raise ReadOnlyError(f"{what}: cannot write in {parent} ({err.strerror})") from None
    try:
        os.fchmod(fd, perms)
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        _publish(tmp, target, what, force=force)
    except OSError as err:
        Path(tmp).unlink(missing_ok=True)
        if err.errno in (errno.ENOSPC, errno.EDQUOT):
            raise DiskFullError(f"{what}: disk full writing {target}; it is untouched") from None
        if err.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            raise ReadOnlyError(f"{what}: cannot write {target} ({err.strerror})") from None
        raise
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _publish(tmp: str, target: Path, what: str, *, force: bool) -> None:
    """Rename the finished temporary file to ``target``.  Without ``force`` a hard link
    makes it appear only if nothing is there *now* (no race with a planted file)."""
    if force:
        os.replace(tmp, target)
        return
    try:
        os.link(tmp, target)
    except FileExistsError:
        raise ConflictError(f"{what}: {target} appeared while writing; left untouched") from None
    except OSError as err:
        if err.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK):
            raise
        if kind(target) != MISSING or is_symlink(target):  # no hard links here
            raise ConflictError(
                f"{what}: {target} appeared while writing; left untouched"
            ) from None
        os.replace(tmp, target)
        return
    os.unlink(tmp)


def _mode_for(existing: Path | None) -> int:
    """The replaced file's mode, or what ``open()`` would give a new file (umask)."""
    if existing is not None:
        try:
            return os.stat(existing).st_mode & 0o777
        except OSError:
            pass
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask
