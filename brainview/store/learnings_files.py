"""File IO for a ``.learnings/`` tree: read it, write entries back safely, restore.

A tree is a :class:`Tree`: the open project's directory (the one holding ``.spikuit/``)
and the tree's path *relative to it* — never an absolute path read from a brain.  Every
file operation goes through :mod:`brainview.store.learnings_fd`, which walks from the
project directory one component at a time without following a symbolic link, so no
read, write, backup or removal can leave the project.  Only a regular file (or nothing
yet) is written; the old bytes are first copied to ``.brainview-backups/<tag>/`` inside
the tree; the new bytes go to a fresh temporary file in the same directory, flushed,
then renamed over the target.  Writes made inside :func:`staged` are undone (old bytes
put back) when the block fails, so a decision that rolls back leaves the files as they
were.
"""

from __future__ import annotations

import contextlib
import contextvars
import errno
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from brainview.errors import (
    BadPathError,
    BrainviewError,
    ConflictError,
    DiskFullError,
    InvalidInputError,
    ReadOnlyError,
)
from brainview.store import learnings_fd as fdio
from brainview.store.connect import refuse_brain_path

BACKUP_DIR = ".brainview-backups"
MAX_FILE_BYTES = 16 * 1024 * 1024
"""Larger files are not read (reported as skipped)."""
PARENT = "../"
AGENTS = "../AGENTS.md"


@dataclass(frozen=True)
class Tree:
    """A ``.learnings`` tree: ``project`` (absolute) and the tree's components below it."""

    project: Path
    parts: tuple[str, ...]

    @property
    def path(self) -> Path:
        """Where the tree is, for messages."""
        return self.project.joinpath(*self.parts)

    @property
    def rel(self) -> str:
        """The tree's path relative to the project, as stored in the agent brain."""
        return "/".join(self.parts)

    def locate(self, rel: str) -> tuple[tuple[str, ...], str]:
        """``(directory components below the project, file name)`` of ``rel``: a path
        inside the tree, or ``../AGENTS.md`` beside it."""
        if rel.startswith(PARENT):
            if rel != AGENTS:
                raise BadPathError(f"{rel}: only {AGENTS} may be written outside the tree")
            return self.parts[:-1], "AGENTS.md"
        parts = rel.split("/")
        if rel.startswith("/") or any(p in ("", ".", "..") or "\0" in p for p in parts):
            raise BadPathError(f"{rel}: not a path inside {self.path}")
        return self.parts + tuple(parts[:-1]), parts[-1]


@dataclass(frozen=True)
class Written:
    rel: str
    before: bytes | None
    after: bytes | None
    backup: str | None


_STAGE: contextvars.ContextVar[list[tuple[Tree, Written]] | None] = contextvars.ContextVar(
    "learnings_stage", default=None
)


@contextmanager
def _at(
    tree: Tree, dirs: tuple[str, ...], shown: str, made: list[int] | None = None
) -> Iterator[int]:
    """A descriptor on ``dirs`` below the project (walked without following links)."""
    top = fdio.open_project(tree.project)
    try:
        fd = fdio.walk(top, dirs, shown, made=made)
    finally:
        os.close(top)
    try:
        yield fd
    finally:
        os.close(fd)


def read_tree(tree: Tree) -> tuple[dict[str, bytes], list[tuple[str, str]]]:
    """Every regular ``*.md`` file under the tree (dot-directories, symbolic links and
    oversized files skipped): ``(rel → bytes, [(rel, why skipped)])``.  Each file is
    read from the one descriptor its type was checked on."""
    files: dict[str, bytes] = {}
    skipped: list[tuple[str, str]] = []
    with _at(tree, tree.parts, str(tree.path)) as root:
        for dir_fd, rel, name in fdio.scan(root):
            if name.startswith(".") or not name.endswith(".md"):
                continue
            try:
                refuse_brain_path(tree.path / rel, "learnings")  # by name and identity
                data = fdio.read(dir_fd, name, rel, MAX_FILE_BYTES)
            except fdio.TooLargeError:
                skipped.append((rel, f"larger than {MAX_FILE_BYTES} bytes"))
            except InvalidInputError:
                skipped.append((rel, "a brain database file"))
            except BadPathError as err:
                brain = "brain database" in err.message
                skipped.append((rel, "a brain database file" if brain else "not a regular file"))
            except OSError as err:
                skipped.append((rel, f"unreadable ({err.strerror})"))
            else:
                if data is not None:
                    files[rel] = data
    return files, skipped


def read_file(tree: Tree, rel: str) -> bytes | None:
    """The bytes of ``rel`` (``None``: no such file); anything but a regular file, or a
    symbolic link at any component, is refused."""
    dirs, name = tree.locate(rel)
    shown = str(tree.project.joinpath(*dirs, name))
    refuse_brain_path(shown, "learnings")  # by name and identity; again on the descriptor
    try:
        with _at(tree, dirs, shown) as fd:
            return fdio.read(fd, name, shown, MAX_FILE_BYTES)
    except FileNotFoundError:
        return None


@contextmanager
def staged() -> Iterator[None]:
    """Writes inside are put back (old bytes) if the block raises."""
    token = _STAGE.set([])
    try:
        yield
    except BaseException:
        done = _STAGE.get() or []
        for tree, w in reversed(done):
            with contextlib.suppress(OSError, BadPathError):  # best effort; the backup remains
                _put(tree, w.rel, w.before)
        raise
    finally:
        _STAGE.reset(token)


def write(
    tree: Tree, rel: str, before: bytes | None, after: bytes | None, tag: str,
    like: str | None = None,
) -> Written:  # fmt: skip
    """Replace ``rel`` (whose bytes must still be ``before``) by ``after`` (``None``:
    remove it), backing up the old bytes first (the copy keeps the file's mode).  A new
    file takes the mode of ``like`` (another file of the tree), so a tree of 0644
    files does not gain a 0600 one (or the reverse) whatever the umask."""
    fdio.check_name(tag, "backup tag")
    current = read_file(tree, rel)
    if current != before:
        raise ConflictError(f"{tree.path / rel} changed on disk meanwhile; nothing written")
    backup = _backup(tree, rel, before, tag) if before is not None else None
    mode = _mode(tree, like) if before is None and like is not None else None
    _put(tree, rel, after, mode)
    w = Written(rel, before, after, backup)
    stage = _STAGE.get()
    if stage is not None:
        stage.append((tree, w))
    return w


def _mode(tree: Tree, rel: str) -> int | None:
    """Permission bits of ``rel`` in the tree (``None``: absent or unreadable)."""
    dirs, name = tree.locate(rel)
    shown = str(tree.project.joinpath(*dirs, name))
    try:
        top = fdio.open_project(tree.project)
        try:
            fd = fdio.walk(top, dirs, shown)
            try:
                return fdio.mode_of(fd, name, shown)
            finally:
                os.close(fd)
        finally:
            os.close(top)
    except (OSError, BrainviewError):
        return None


def _backup(tree: Tree, rel: str, data: bytes, tag: str) -> str:
    """Copy ``data`` to ``.brainview-backups/<tag>/<rel>`` in the tree (directories made
    on the way are removed again if the copy fails)."""
    name = rel.replace(PARENT, "__parent__/", 1)
    below = (BACKUP_DIR, tag, *name.split("/"))
    shown = str(tree.path.joinpath(*below))
    made: list[int] = []
    try:
        with _at(tree, tree.parts, str(tree.path)) as root:
            try:
                with contextlib.ExitStack() as stack:
                    fd = fdio.walk(root, below[:-1], shown, made=made)
                    stack.callback(os.close, fd)
                    fdio.put(fd, below[-1], data, shown, _mode(tree, rel))
            except BaseException:
                fdio.remove_made(root, below[:-1], made)
                raise
    except OSError as err:
        raise _os_error(err, shown) from None
    return "/".join(below)


def _put(tree: Tree, rel: str, data: bytes | None, mode: int | None = None) -> None:
    """Write (or remove) ``rel``, making missing directories on the way (removed again
    if the write fails)."""
    dirs, name = tree.locate(rel)
    shown = str(tree.project.joinpath(*dirs, name))
    made: list[int] = []
    try:
        top = fdio.open_project(tree.project)
        try:
            fd = fdio.walk(top, dirs, shown, made=made if data is not None else None)
            try:
                fdio.put(fd, name, data, shown, mode)
            finally:
                os.close(fd)
        except BaseException:
            fdio.remove_made(top, dirs, made)
            raise
        finally:
            os.close(top)
    except FileNotFoundError:
        if data is not None:
            raise ReadOnlyError(
                f"cannot write {shown} (a directory vanished); nothing changed"
            ) from None
    except OSError as err:
        raise _os_error(err, shown) from None


def _os_error(err: OSError, shown: str) -> Exception:
    if err.errno == errno.ENOSPC:
        return DiskFullError(f"disk full writing {shown}; nothing changed")
    return ReadOnlyError(f"cannot write {shown} ({err.strerror}); nothing changed")
