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

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.pool import QueuePool

from brainview.errors import (
    BrainviewError,
    ReadOnlyError,
)
from brainview.store.brain_check import check_sqlite_file, translate_sqlite
from brainview.store.connect import BUSY_TIMEOUT_S, busy_timeout, connect

__all__ = ["BUSY_TIMEOUT_S", "Brain", "busy_timeout", "check_sqlite_file", "open_brain"]
from brainview.store.era import Era, detect_era

Role = Literal["user", "agent"]


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
            raise translate_sqlite(err, self.path) from None

    @contextmanager
    def write(self) -> Iterator[Connection]:
        """One ``BEGIN IMMEDIATE`` transaction; commits on success, else rolls back."""
        if not self.writable:
            raise ReadOnlyError(f"{self.role} brain was opened read-only: {self.path}")
        try:
            with self.engine.begin() as conn:
                yield conn
        except (OperationalError, DBAPIError) as err:
            raise translate_sqlite(err, self.path) from None

    def data_version(self, conn: Connection) -> int:
        """SQLite's ``data_version``: changes when another connection commits."""
        return int(conn.exec_driver_sql("PRAGMA data_version").scalar_one())

    def dispose(self) -> None:
        """Close pooled connections."""
        self.engine.dispose()


def _make_engine(path: Path, writable: bool) -> Engine:
    def creator() -> sqlite3.Connection:
        return connect(path, write=writable, timeout=busy_timeout())

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
        raise translate_sqlite(err, path) from None
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
