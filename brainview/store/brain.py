"""Open one brain file safely: validate, detect its era, hand out connections.

Read-only unless a write is asked for; writers get WAL, a busy timeout and
``BEGIN IMMEDIATE`` transactions.  Errors become one-line :mod:`brainview.errors`.

A :class:`Brain` holds **no connection between units of work** (``NullPool``): each
:meth:`Brain.read` / :meth:`Brain.write` opens one and closes it at the end.  An idle
connection would keep the brain's ``-wal``/``-shm`` alive; when the file is then
replaced (a restore, ``git checkout``), any process opening the new file reads it
through the old WAL and, closing last, checkpoints those frames into the restored
file — permanently corrupting it.  With nothing held, the last close folds the WAL
into the file it belongs to and removes it, so a long-running face (console, ``mcp``,
``serve``) leaves nothing behind for a replacement to be read through.  Opening a
connection costs ~0.2 ms.
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
from sqlalchemy.pool import NullPool

from brainview.errors import (
    BrainviewError,
    ReadOnlyError,
    ReplacedError,
)
from brainview.store.brain_check import check_sqlite_file, translate_sqlite
from brainview.store.connect import (
    BUSY_TIMEOUT_S,
    busy_timeout,
    connect,
    file_identity,
    needs_mode_switch,
    use_configured_mode,
)
from brainview.store.schema_guard import refuse_unsafe

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
    identity: tuple[int, int] | None = None
    """``(st_dev, st_ino)`` of the file when it was opened."""

    def moved(self) -> bool:
        """Whether the file at ``path`` is gone or is no longer the one we opened
        (restored from a backup, ``git checkout``, deleted)."""
        return self.identity is not None and file_identity(self.path) != self.identity

    def _refuse_if_moved(self, during: str = "") -> None:
        if self.moved():
            what = "deleted" if file_identity(self.path) is None else "replaced"
            raise ReplacedError(
                f"the {self.role} brain was {what} on disk while open{during}: {self.path}"
            )

    @contextmanager
    def read(self) -> Iterator[Connection]:
        """A connection for reads; SQLite errors become brainview errors."""
        self._refuse_if_moved()
        try:
            with self.engine.connect() as conn:
                self._refuse_if_moved()  # replaced between the check and the open
                yield conn
        except sqlite3.IntegrityError:
            raise  # a constraint refused a row: the caller says which change failed
        except (OperationalError, DBAPIError, sqlite3.DatabaseError) as err:
            raise translate_sqlite(err, self.path) from None

    @contextmanager
    def write(self) -> Iterator[Connection]:
        """One ``BEGIN IMMEDIATE`` transaction; commits on success, else rolls back.

        Refused before anything is written when the file was replaced or deleted under
        us (pooled connections would write to the old, unlinked file), and when the
        schema holds objects Spikuit never creates (triggers, views, …: see
        :mod:`brainview.store.schema_guard`; checked inside the transaction, so nothing
        can be added in between); re-checked after the commit, so a replacement during
        the write is reported, never shown as done.  The file is switched to the journal
        mode it is configured for (WAL unless its ``config.toml`` says ``[database]
        journal_mode``: :mod:`brainview.store.journal`) here, at its first write, not
        when it is opened.
        """
        if not self.writable:
            raise ReadOnlyError(f"{self.role} brain was opened read-only: {self.path}")
        self._refuse_if_moved()
        try:
            with self.engine.connect() as conn:
                raw = conn.connection.driver_connection
                if needs_mode_switch(raw, self.path):  # type: ignore[arg-type]
                    refuse_unsafe(raw, self.path, self.role, self.identity)  # type: ignore[arg-type]
                    use_configured_mode(raw, self.path)  # type: ignore[arg-type]
                with conn.begin():
                    self._refuse_if_moved()
                    self.refuse_unsafe_schema(conn)
                    yield conn
        except sqlite3.IntegrityError:
            raise  # a constraint refused a row: the caller says which change failed
        except (OperationalError, DBAPIError, sqlite3.DatabaseError) as err:
            raise translate_sqlite(err, self.path) from None
        self._refuse_if_moved(" (the change went to the old file; decide again)")

    def refuse_unsafe_schema(self, conn: Connection) -> None:
        """Raise :class:`~brainview.errors.UnsafeSchemaError` when the file holds a
        trigger, a view or another object a write would run (one ``sqlite_master``
        query, or one ``PRAGMA`` while the schema is unchanged; any connection)."""
        raw = conn.connection.driver_connection
        refuse_unsafe(raw, self.path, self.role, self.identity)  # type: ignore[arg-type]

    def data_version(self, conn: Connection) -> int:
        """SQLite's ``data_version``: changes when another connection commits."""
        return int(conn.exec_driver_sql("PRAGMA data_version").scalar_one())

    def release_moved(self) -> bool:
        """After the file was replaced: ``True`` — no connection of ours outlives a unit
        of work, so no WAL of the old file is held open by us (the module doc)."""
        return True

    def dispose(self) -> None:
        """Close any connection still open (none between units of work)."""
        self.engine.dispose()


def _make_engine(path: Path, writable: bool) -> Engine:
    def creator() -> sqlite3.Connection:
        return connect(path, write=writable, timeout=busy_timeout())

    engine = create_engine("sqlite+pysqlite://", creator=creator, poolclass=NullPool)

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
    identity = file_identity(path)
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
    return Brain(
        path=path,
        role=role,
        era=era,
        engine=engine,
        writable=write,
        identity=identity,
    )
