"""Open one brain file safely: validate, detect its era, hand out connections.

Read-only unless a write is asked for; writers get WAL, a busy timeout and
``BEGIN IMMEDIATE`` transactions.  Errors become one-line :mod:`brainview.errors`.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from urllib.parse import quote

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.pool import QueuePool

from brainview.errors import (
    BrainviewError,
    LockedError,
    NotABrainError,
    NotFoundError,
    ReadOnlyError,
)
from brainview.store.era import Era, detect_era

Role = Literal["user", "agent"]
BUSY_TIMEOUT_S = 5.0


def busy_timeout() -> float:
    """Seconds to wait on a locked brain (``BRAINVIEW_BUSY_TIMEOUT`` overrides)."""
    try:
        return float(os.environ.get("BRAINVIEW_BUSY_TIMEOUT", BUSY_TIMEOUT_S))
    except ValueError:
        return BUSY_TIMEOUT_S


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


def translate(err: BaseException, path: Path) -> BrainviewError:
    """Map a DB-API error to a one-line brainview error."""
    text = str(getattr(err, "orig", err)).lower()
    if "locked" in text or "busy" in text:
        return LockedError(f"brain is locked by another process: {path}")
    if "readonly" in text or "read-only" in text or "unable to open" in text:
        return ReadOnlyError(f"cannot write to {path}: read-only")
    if "malformed" in text or "not a database" in text or "corrupt" in text:
        return NotABrainError(f"corrupt database: {path}")
    return NotABrainError(f"cannot use {path}: {text.splitlines()[0] if text else err}")


@dataclass
class Brain:
    """One open brain file."""

    path: Path
    role: Role
    era: Era
    engine: Engine
    writable: bool

    @contextmanager
    def read(self) -> Iterator[Connection]:
        """A connection for reads; SQLite errors become brainview errors."""
        try:
            with self.engine.connect() as conn:
                yield conn
        except (OperationalError, DBAPIError) as err:
            raise translate(err, self.path) from None

    @contextmanager
    def write(self) -> Iterator[Connection]:
        """One ``BEGIN IMMEDIATE`` transaction; commits on success, else rolls back."""
        if not self.writable:
            raise ReadOnlyError(f"{self.role} brain was opened read-only: {self.path}")
        try:
            with self.engine.begin() as conn:
                yield conn
        except (OperationalError, DBAPIError) as err:
            raise translate(err, self.path) from None

    def data_version(self, conn: Connection) -> int:
        """SQLite's ``data_version``: changes when another connection commits."""
        return int(conn.exec_driver_sql("PRAGMA data_version").scalar_one())

    def dispose(self) -> None:
        """Close pooled connections."""
        self.engine.dispose()


def _make_engine(path: Path, writable: bool) -> Engine:
    uri = f"file:{quote(str(path.resolve()))}?mode={'rw' if writable else 'ro'}"

    def creator() -> sqlite3.Connection:
        timeout = busy_timeout()
        conn = sqlite3.connect(uri, uri=True, timeout=timeout, check_same_thread=False)
        conn.isolation_level = None  # we issue BEGIN ourselves
        conn.execute(f"PRAGMA busy_timeout={int(timeout * 1000)}")
        if writable:
            conn.execute("PRAGMA journal_mode=WAL")
        return conn

    engine = create_engine(
        "sqlite+pysqlite://", creator=creator, poolclass=QueuePool, pool_size=4, max_overflow=4
    )

    @event.listens_for(engine, "begin")
    def _begin(conn: Connection) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE" if writable else "BEGIN")

    return engine


def _check_writable(path: Path) -> None:
    """Refuse to write a file marked read-only, even as root (respect the intent)."""
    mode = path.stat().st_mode
    if not mode & 0o222:
        raise ReadOnlyError(f"cannot write to {path}: the file is read-only")
    if not (os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)):
        raise ReadOnlyError(f"cannot write to {path}: read-only file or directory")


def _introspect(conn: Connection) -> tuple[set[str], dict[str, set[str]]]:
    rows = conn.exec_driver_sql(
        "SELECT name, sql FROM sqlite_master WHERE type = 'table'"
    ).fetchall()
    tables = {r[0] for r in rows}
    columns: dict[str, set[str]] = {}
    for table in ("neuron", "synapse", "spike"):
        if table in tables:
            cols = conn.exec_driver_sql(f"PRAGMA table_info({table})").fetchall()
            columns[table] = {c[1] for c in cols}
    return tables, columns


def open_brain(
    path: Path, role: Role, *, write: bool = False, tutor_db: Path | None = None
) -> Brain:
    """Validate and open a brain; ``write=True`` checks it can be written."""
    path = Path(path)
    check_sqlite_file(path)
    if write:
        _check_writable(path)
    engine = _make_engine(path, write)
    try:
        with engine.connect() as conn:
            tables, columns = _introspect(conn)
    except (OperationalError, DBAPIError) as err:
        engine.dispose()
        raise translate(err, path) from None
    tutor = tutor_db if tutor_db is not None and tutor_db.is_file() else None
    if tutor is None:
        sibling = path.with_name("circuit.tutor.db")
        tutor = sibling if sibling.is_file() else None
    try:
        era = detect_era(tables, columns, tutor)
    except BrainviewError:
        engine.dispose()
        raise
    return Brain(path=path, role=role, era=era, engine=engine, writable=write)
