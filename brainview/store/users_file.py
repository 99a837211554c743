"""The users file of ``brainview serve`` on disk (``.spikuit/brainview-users.json``).

* Read without following a symbolic link (``O_NOFOLLOW``), bounded in size, parsed as
  strict JSON; a link, a directory or a special file there is refused
  (:class:`~brainview.errors.BadPathError`), malformed content is a one-line
  :class:`~brainview.errors.ConfigError`.
* Written atomically through :func:`brainview.store.safe_files.atomic_write` (a temporary
  file in the same directory, flushed, renamed over the old one), mode ``0600``; a
  symbolic link at the path is refused, never written through or replaced.
* A change (read, modify, write) holds an exclusive ``flock`` on the directory, so two
  ``brainview users`` commands at once cannot lose each other's change.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from brainview.errors import BadPathError, ConfigError, NotFoundError, ReadOnlyError
from brainview.store.connect import refuse_brain_path
from brainview.store.path_kind import MISSING, REGULAR, is_symlink, kind
from brainview.store.safe_files import atomic_write

FILE_NAME = "brainview-users.json"
MAX_BYTES = 16 << 20
WHAT = "users file"

Signature = tuple[int, int, int, int, int]
"""``(device, inode, size, mtime_ns, ctime_ns)``: changes whenever the file is replaced
or edited (a change within the file system's clock tick, with a reused inode and the
same size, is caught by :func:`is_racy`)."""
RACY_NS = 2_000_000_000
"""A file changed this recently may change again unseen by its signature."""


def _signature(st: os.stat_result) -> Signature:
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


def is_racy(sig: Signature | None, read_at_ns: int) -> bool:
    """Whether a file read at ``read_at_ns`` (``time.time_ns()``) had changed so shortly
    before that a further change could keep the same signature (like git's "racily
    clean" index entries): such a snapshot is read again rather than trusted."""
    return sig is not None and read_at_ns - max(sig[3], sig[4]) < RACY_NS


def default_path(spikuit_dir: Path) -> Path:
    """Where a project keeps its users file: next to ``brainview.toml``."""
    return Path(spikuit_dir) / FILE_NAME


def _refuse_odd(path: Path) -> None:
    if is_symlink(path):
        raise BadPathError(f"{WHAT} {path} is a symbolic link; refusing to use it")
    found = kind(path)
    if found not in (REGULAR, MISSING):
        raise BadPathError(f"{WHAT} {path} is {found}, not a regular file; refusing to use it")


def signature(path: Path) -> Signature | None:
    """The file's current :data:`Signature` (``None`` when it is missing)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as err:
        raise ReadOnlyError(f"{WHAT}: cannot read {path} ({err.strerror})") from None
    return _signature(st)


def read_users(path: Path) -> tuple[Any, Signature] | None:
    """The parsed document and the signature it was read at; ``None`` when missing."""
    path = Path(path)
    _refuse_odd(path)
    refuse_brain_path(path, WHAT)  # closing a descriptor of an open brain drops its locks
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise BadPathError(f"{WHAT} {path} is a symbolic link; refusing to use it") from None
        raise ReadOnlyError(f"{WHAT}: cannot read {path} ({err.strerror})") from None
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise BadPathError(f"{WHAT} {path} is not a regular file; refusing to use it")
        raw = fh.read(MAX_BYTES + 1)
    if len(raw) > MAX_BYTES:
        raise ConfigError(f"{WHAT} {path} is larger than {MAX_BYTES >> 20} MiB")
    try:
        doc = json.loads(raw.decode("utf-8"), parse_constant=_refuse_constant)
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise ConfigError(f"{WHAT} {path} is not valid JSON") from None
    return doc, _signature(st)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"non-strict JSON constant {name}")


def write_users(path: Path, doc: Any) -> None:
    """Replace the users file with ``doc`` atomically, mode 0600."""
    path = Path(path)
    _refuse_odd(path)
    text = json.dumps(doc, indent=2, sort_keys=True, allow_nan=False) + "\n"
    with atomic_write(path, WHAT, force=True, mode=0o600, force_flag=None) as fh:
        fh.write(text)


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on the users file's directory (no side file is made)."""
    parent = Path(path).parent if str(Path(path).parent) else Path(".")
    try:
        fd = os.open(parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except FileNotFoundError:
        raise NotFoundError(f"{WHAT}: no such directory: {parent}") from None
    except OSError as err:
        raise BadPathError(f"{WHAT}: cannot use directory {parent} ({err.strerror})") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)
