"""Exports from a console ``brainview serve`` runs for a signed-in person.

Such a person is not the server's account: they may write a file only inside the open
project, never where the server account could.  So a served console's export

* takes a plain **file name** (``queue.csv``; no folder, no leading dot, ``.csv`` or
  ``.json``) and writes it to the project's :data:`EXPORT_DIR` folder, made if missing;
* walks there from the open project's directory by descriptor: ``exports`` is opened
  with ``O_NOFOLLOW | O_DIRECTORY`` (a symbolic link there is refused, never
  followed), the bytes go to a temporary file created exclusively in it, which is then
  hard-linked to its name (``linkat``: an existing name is refused, never replaced)
  and removed — no check-then-open, no path that could be swapped meanwhile;
* says what went wrong in terms of ``exports/NAME`` only: nothing about the server's
  other paths, or whether they exist.
"""

from __future__ import annotations

import contextlib
import csv
import errno
import io
import json
import os
import secrets
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from brainview.errors import BadPathError, ConflictError, InvalidInputError, ReadOnlyError

EXPORT_DIR = "exports"
SUFFIXES = (".csv", ".json")
MAX_NAME = 120
_ASK = (
    "export: give a file name ending .csv or .json, without a folder "
    f"(it is saved in the project's {EXPORT_DIR}/ folder)"
)


def export_name(typed: str) -> str:
    """``typed`` as a plain export file name (:class:`InvalidInputError` otherwise)."""
    name = typed.strip()
    plain = (
        0 < len(name) <= MAX_NAME
        and not name.startswith(".")
        and not any(c in name for c in "/\\") and name.isprintable()
    )  # fmt: skip
    if not plain or Path(name).suffix.lower() not in SUFFIXES:
        raise InvalidInputError(_ASK)
    return name


def render(rows: Sequence[dict[str, Any]], suffix: str) -> bytes:
    """The file's bytes: a JSON list, or CSV with a header (as a local export writes)."""
    if suffix == ".json":
        return json.dumps(list(rows), ensure_ascii=False, indent=1, default=str).encode()
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]) if rows else [])
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue().encode()


def write_served_export(rows: Sequence[dict[str, Any]], project_root: Path, typed: str) -> str:
    """Write ``rows`` to ``exports/NAME`` in ``project_root``; the name as shown."""
    name = export_name(typed)
    data = render(rows, Path(name).suffix.lower())
    shown = f"{EXPORT_DIR}/{name}"
    try:
        root = os.open(project_root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        raise ReadOnlyError(f"export: cannot open the project to write {shown}") from None
    try:
        folder = _open_exports(root)
        try:
            _publish(folder, name, data, shown)
        finally:
            os.close(folder)
    finally:
        os.close(root)
    return shown


def _open_exports(root: int) -> int:
    """The project's exports folder, made if missing, opened without following a link."""
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        with contextlib.suppress(FileExistsError):
            os.mkdir(EXPORT_DIR, 0o750, dir_fd=root)
    except OSError as err:
        raise ReadOnlyError(f"export: cannot make {EXPORT_DIR}/ ({err.strerror})") from None
    try:
        return os.open(EXPORT_DIR, flags, dir_fd=root)
    except OSError as err:
        if err.errno in (errno.ELOOP, errno.ENOTDIR):
            raise BadPathError(
                f"export: {EXPORT_DIR}/ in the project is not a plain folder (a link?); "
                "refusing to write there"
            ) from None
        raise ReadOnlyError(f"export: cannot open {EXPORT_DIR}/ ({err.strerror})") from None


def _publish(folder: int, name: str, data: bytes, shown: str) -> None:
    """A complete file under ``name`` in ``folder``, or nothing (never replacing one)."""
    temp = f".{secrets.token_hex(8)}.part"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd = os.open(temp, flags, 0o640, dir_fd=folder)
    except OSError as err:
        raise ReadOnlyError(f"export: cannot write {shown} ({err.strerror})") from None
    try:
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.link(temp, name, src_dir_fd=folder, dst_dir_fd=folder, follow_symlinks=False)
        except FileExistsError:
            raise ConflictError(f"export: {shown} already exists; choose another name") from None
        except OSError as err:
            raise ReadOnlyError(f"export: cannot write {shown} ({err.strerror})") from None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temp, dir_fd=folder)
