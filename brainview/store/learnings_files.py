"""File IO for a ``.learnings/`` tree: read it, write entries back safely, restore.

The Markdown files are not brains, so plain file IO is right here — but every write
is careful: only a regular file (or nothing yet) is written, never through a symbolic
link; the old bytes are first copied to ``.brainview-backups/<tag>/`` inside the tree;
the new bytes go to a fresh temporary file in the same directory, flushed, then
renamed over the target.  Writes made inside :func:`staged` are undone (old bytes put
back) when the block fails, so a decision that rolls back leaves the files as they
were.
"""

from __future__ import annotations

import contextlib
import contextvars
import errno
import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from brainview.errors import BadPathError, DiskFullError, NotFoundError, ReadOnlyError
from brainview.store.connect import refuse_brain_path

BACKUP_DIR = ".brainview-backups"
MAX_FILE_BYTES = 16 * 1024 * 1024
"""Larger files are not read (reported as skipped)."""
PARENT = "../"


@dataclass(frozen=True)
class Written:
    rel: str
    before: bytes | None
    after: bytes | None
    backup: str | None


_STAGE: contextvars.ContextVar[list[tuple[Path, Written]] | None] = contextvars.ContextVar(
    "learnings_stage", default=None
)


def resolve(root: Path, rel: str) -> Path:
    """The file ``rel`` names: inside ``root``, or ``../AGENTS.md`` beside it."""
    if rel.startswith(PARENT):
        if rel != "../AGENTS.md":
            raise BadPathError(f"{rel}: only ../AGENTS.md may be written outside the tree")
        return root.parent / "AGENTS.md"
    parts = rel.split("/")
    if rel.startswith("/") or any(p in ("", ".", "..") for p in parts):
        raise BadPathError(f"{rel}: not a path inside {root}")
    return root.joinpath(*parts)


def require_root(root: Path) -> Path:
    """``root`` as an absolute directory (NotFoundError / BadPathError otherwise)."""
    try:
        st = os.stat(root)
    except FileNotFoundError:
        raise NotFoundError(f"no such directory: {root}") from None
    except OSError as err:
        raise BadPathError(f"cannot read {root} ({err.strerror})") from None
    if not stat.S_ISDIR(st.st_mode):
        raise BadPathError(f"{root} is not a directory")
    return Path(os.path.abspath(root))


def read_tree(root: Path) -> tuple[dict[str, bytes], list[tuple[str, str]]]:
    """Every regular ``*.md`` file under ``root`` (dot-directories, symbolic links and
    oversized files skipped): ``(rel → bytes, [(rel, why skipped)])``."""
    files: dict[str, bytes] = {}
    skipped: list[tuple[str, str]] = []
    for top, dirs, names in os.walk(root, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(names):
            if name.startswith(".") or not name.endswith(".md"):
                continue
            path = Path(top) / name
            rel = path.relative_to(root).as_posix()
            st = os.lstat(path)
            if not stat.S_ISREG(st.st_mode):
                skipped.append((rel, "not a regular file"))
            elif st.st_size > MAX_FILE_BYTES:
                skipped.append((rel, f"larger than {MAX_FILE_BYTES} bytes"))
            else:
                try:
                    refuse_brain_path(path, "learnings")  # a hard link to an open brain
                    files[rel] = path.read_bytes()
                except OSError as err:
                    skipped.append((rel, f"unreadable ({err.strerror})"))
    return files, skipped


def read_file(root: Path, rel: str) -> bytes | None:
    """The bytes of ``rel`` (``None``: no such file); anything but a regular file is
    refused."""
    path = resolve(root, rel)
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(st.st_mode):
        raise BadPathError(f"{path} is not a regular file; refusing to use it")
    refuse_brain_path(path, "learnings")
    return path.read_bytes()


@contextmanager
def staged() -> Iterator[None]:
    """Writes inside are put back (old bytes) if the block raises."""
    token = _STAGE.set([])
    try:
        yield
    except BaseException:
        done = _STAGE.get() or []
        for path, w in reversed(done):
            with contextlib.suppress(OSError):  # best effort; the backup remains
                _put(path, w.before)
        raise
    finally:
        _STAGE.reset(token)


def write(root: Path, rel: str, before: bytes | None, after: bytes | None, tag: str) -> Written:
    """Replace ``rel`` (whose bytes must still be ``before``) by ``after`` (``None``:
    remove it), backing up the old bytes first."""
    path = resolve(root, rel)
    current = read_file(root, rel)
    if current != before:
        from brainview.errors import ConflictError

        raise ConflictError(f"{path} changed on disk meanwhile; nothing written")
    backup = _backup(root, rel, before, tag) if before is not None else None
    try:
        _put(path, after)
    except OSError as err:
        raise _os_error(err, path) from None
    w = Written(rel, before, after, backup)
    stage = _STAGE.get()
    if stage is not None:
        stage.append((path, w))
    return w


def _backup(root: Path, rel: str, data: bytes, tag: str) -> str:
    name = rel.replace(PARENT, "__parent__/", 1)
    target = root / BACKUP_DIR / tag / name
    made = [d for d in (target.parent, *target.parent.parents) if not d.exists()]
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        _put(target, data)
    except OSError as err:
        for d in made:  # innermost first: leave no empty directory behind
            with contextlib.suppress(OSError):
                d.rmdir()
        raise _os_error(err, target) from None
    return target.relative_to(root).as_posix()


def _put(path: Path, data: bytes | None) -> None:
    if data is None:
        path.unlink(missing_ok=True)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(os.lstat(path).st_mode)
    except FileNotFoundError:
        mode = None
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _os_error(err: OSError, path: Path) -> Exception:
    if err.errno == errno.ENOSPC:
        return DiskFullError(f"disk full writing {path}; nothing changed")
    return ReadOnlyError(f"cannot write {path} ({err.strerror}); nothing changed")
