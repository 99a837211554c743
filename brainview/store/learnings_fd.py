"""The one door for file operations under a project's ``.learnings/`` tree.

Every read, write, backup, ``mkdir``, ``unlink`` and rename under the tree goes through
here, and every one of them is made relative to a directory descriptor reached by
walking from the open project's directory (the one holding ``.spikuit/``): each
component is opened with ``O_DIRECTORY | O_NOFOLLOW`` from its parent's descriptor, so a
symbolic link anywhere below the project — a linked ``archive/``, a linked
``.brainview-backups``, a file swapped for a link between two imports — is refused with
one line (:class:`~brainview.errors.BadPathError`), never followed.  Names are single
components (no ``/``, ``.`` or ``..``): a walk cannot leave the tree it starts from.

A file is read through the descriptor it was checked on (``fstat``, then ``read`` on the
same descriptor, no check-then-open); a brain this process has open is recognised by its
identity on a path-only descriptor (``O_PATH``, whose close drops no SQLite lock) before
anything opens it for reading.  Writes go to a fresh temporary file in the same
directory (``O_EXCL``), are flushed to disk, then renamed over the target with
``os.replace(..., src_dir_fd=, dst_dir_fd=)``.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress

from brainview.errors import BadPathError
from brainview.store import connect

DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_O_PATH = getattr(os, "O_PATH", 0)
_PROC_FD = "/proc/self/fd"


class TooLargeError(BadPathError):
    """A file over the size limit (reported as skipped, never read)."""


def check_name(name: str, shown: str) -> str:
    """``name`` if it is one plain path component (BadPathError otherwise)."""
    if name in ("", ".", "..") or "/" in name or "\0" in name:
        raise BadPathError(f"{shown}: {name!r} is not a name inside the tree; refusing it")
    return name


def open_project(project: str | os.PathLike[str]) -> int:
    """A descriptor on the project directory itself (the start of every walk)."""
    try:
        return os.open(project, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as err:
        raise BadPathError(
            f"cannot open the project directory {project} ({err.strerror})"
        ) from None


def step(dir_fd: int, name: str, shown: str) -> int:
    """The subdirectory ``name`` of ``dir_fd`` (``FileNotFoundError`` when absent); a
    symbolic link or anything but a directory is refused."""
    check_name(name, shown)
    try:
        return os.open(name, DIR_FLAGS, dir_fd=dir_fd)
    except FileNotFoundError:
        raise
    except OSError as err:
        if err.errno in (errno.ELOOP, errno.ENOTDIR):
            raise BadPathError(
                f"{name!r} on the way to {shown} is a symbolic link or not a directory; "
                "refusing to go through it"
            ) from None
        raise


def walk(dir_fd: int, parts: Sequence[str], shown: str, *, made: list[int] | None = None) -> int:
    """The directory ``parts`` below ``dir_fd`` (a new descriptor the caller closes).

    With ``made`` a list, missing directories are created (mode 0777 & ~umask) and the
    depth of each one created is appended to it."""
    fd = os.dup(dir_fd)
    try:
        for depth, name in enumerate(parts):
            try:
                nxt = step(fd, name, shown)
            except FileNotFoundError:
                if made is None:
                    raise
                os.mkdir(name, 0o777, dir_fd=fd)
                made.append(depth)
                nxt = step(fd, name, shown)
            os.close(fd)
            fd = nxt
    except BaseException:
        os.close(fd)
        raise
    return fd


@contextmanager
def opened(dir_fd: int, parts: Sequence[str], shown: str) -> Iterator[int]:
    """:func:`walk` as a context manager (the descriptor is closed after)."""
    fd = walk(dir_fd, parts, shown)
    try:
        yield fd
    finally:
        os.close(fd)


def remove_made(dir_fd: int, parts: Sequence[str], made: Sequence[int]) -> None:
    """Remove the (empty) directories :func:`walk` created, innermost first."""
    for depth in sorted(made, reverse=True):
        try:
            with opened(dir_fd, parts[:depth], "cleanup") as parent:
                os.rmdir(parts[depth], dir_fd=parent)
        except (OSError, BadPathError):
            continue


def _refuse_brain(st: os.stat_result, shown: str) -> None:
    if connect._is_an_opened_brain((st.st_dev, st.st_ino)):
        raise BadPathError(f"{shown} is a brain database file; refusing to use it")


def _open_checked(dir_fd: int, name: str, shown: str) -> int:
    """A read descriptor on the regular file ``name`` (``FileNotFoundError`` when
    absent).  Where the platform allows, the file is first reached on a path-only
    descriptor, checked there (its type, that it is no open brain) and reopened from
    that very descriptor, so nothing else can be opened in between."""
    check_name(name, shown)
    try:
        if _O_PATH and os.path.isdir(_PROC_FD):
            probe = os.open(name, _O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
            try:
                st = os.fstat(probe)
                if not stat.S_ISREG(st.st_mode):
                    raise BadPathError(f"{shown} is not a regular file; refusing to use it")
                _refuse_brain(st, shown)
                return os.open(f"{_PROC_FD}/{probe}", READ_FLAGS & ~os.O_NOFOLLOW)
            finally:
                os.close(probe)
        st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        if stat.S_ISREG(st.st_mode):
            _refuse_brain(st, shown)
        return os.open(name, READ_FLAGS, dir_fd=dir_fd)
    except FileNotFoundError:
        raise
    except OSError as err:
        if err.errno in (errno.ELOOP, errno.ENXIO):
            raise BadPathError(f"{shown} is not a regular file; refusing to use it") from None
        raise


def read(dir_fd: int, name: str, shown: str, limit: int) -> bytes | None:
    """The bytes of the regular file ``name`` (``None``: there is none), read from the
    descriptor its type and size were checked on; anything but a regular file, or a
    file over ``limit`` bytes, is refused."""
    try:
        fd = _open_checked(dir_fd, name, shown)
    except FileNotFoundError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise BadPathError(f"{shown} is not a regular file; refusing to use it")
        _refuse_brain(st, shown)
        if st.st_size > limit:
            raise TooLargeError(f"{shown} is larger than {limit} bytes; refusing to read it")
        chunks: list[bytes] = []
        total = 0
        while chunk := os.read(fd, 1 << 20):
            total += len(chunk)
            if total > limit:
                raise TooLargeError(f"{shown} grew past {limit} bytes while read; refusing it")
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def mode_of(dir_fd: int, name: str, shown: str) -> int | None:
    """Permission bits of the regular file ``name`` (``None``: absent); anything else
    (a link, a directory, a FIFO…) is refused."""
    try:
        st = os.stat(check_name(name, shown), dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(st.st_mode):
        raise BadPathError(f"{shown} is not a regular file; refusing to use it")
    return stat.S_IMODE(st.st_mode)


def create(name: str, flags: int, mode: int, dir_fd: int) -> int:
    """``os.open`` of a new file (a seam: tests make it fail as a read-only tree would)."""
    return os.open(name, flags, mode, dir_fd=dir_fd)


def put(
    dir_fd: int, name: str, data: bytes | None, shown: str, new_mode: int | None = None
) -> None:
    """Replace ``name`` in ``dir_fd`` by ``data`` atomically (``None``: remove it).

    Only a regular file (or nothing) is replaced or removed; the new bytes go to a
    fresh temporary file (``O_EXCL``, same directory, the old file's mode — a new file
    takes ``new_mode`` when given, e.g. a sibling's in the tree, else the umask's),
    flushed, then renamed over the target; the directory is flushed after."""
    mode = mode_of(dir_fd, name, shown)
    if data is None:
        if mode is not None:
            os.unlink(name, dir_fd=dir_fd)
            os.fsync(dir_fd)
        return
    tmp = f".{name[:80]}.{secrets.token_hex(6)}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    if mode is None:
        mode = new_mode
    fd = create(tmp, flags, 0o600 if mode is not None else 0o666, dir_fd)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            if mode is not None:
                os.fchmod(fd, mode)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        with suppress(OSError):
            os.unlink(tmp, dir_fd=dir_fd)
        raise
    os.fsync(dir_fd)


def scan(dir_fd: int, depth: int = 0, max_depth: int = 32) -> Iterator[tuple[int, str, str]]:
    """``(directory descriptor, relative path, name)`` of every entry of the tree below
    ``dir_fd`` that is not a directory, depth first in name order; directories are
    entered without following links, dot-directories skipped.  Each descriptor is valid
    only until the next item."""
    with os.scandir(dir_fd) as it:
        entries = sorted(it, key=lambda e: e.name)
    for e in entries:
        if e.is_dir(follow_symlinks=False):
            if e.name.startswith(".") or depth >= max_depth:
                continue
            try:
                sub = step(dir_fd, e.name, e.name)
            except (OSError, BadPathError):
                continue  # swapped for a link (or removed) since listed: not entered
            try:
                for fd, rel, name in scan(sub, depth + 1, max_depth):
                    yield fd, f"{e.name}/{rel}", name
            finally:
                os.close(sub)
        else:
            yield dir_fd, e.name, e.name
