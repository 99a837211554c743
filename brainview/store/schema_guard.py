"""Refuse to write a brain whose schema holds objects Spikuit never creates.

A brain file is untrusted input: it can be downloaded, shared or planted.  SQLite runs
whatever the *file* defines on a write — a trigger on ``synapse`` fires when brainview
inserts a link, a view named ``neuron`` with an ``INSTEAD OF`` trigger swallows an
update, a generated column evaluates its expression — and none of that is in
brainview's effect log, so undo could not revert it.  Real Spikuit 0.7.x brains (with or
without an embedder, whose ``neuron_vec`` is a sqlite-vec virtual table brainview never
writes) hold no trigger and no view, and brainview creates only ``brainview_*`` tables
and indexes.  So before any write, in the write's own transaction (so nothing can be
added in between), one ``sqlite_master`` query (skipped while the file's schema cookie
is one already found clean) looks for:

* any trigger and any view, whatever table it names;
* a table brainview writes that is a virtual table or has a generated column.

Anything found refuses the write with one line naming it and how to look at it;
reading never checks (a brain with extra objects reads fine).  Every connection is also
opened with ``PRAGMA trusted_schema=OFF`` (:mod:`brainview.store.connect`), so schema
code can call only functions SQLite marks innocuous.
"""

from __future__ import annotations

import re
import shlex
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path

from brainview.errors import UnsafeSchemaError

SPIKUIT_WRITTEN = (
    "neuron", "synapse", "spike", "fsrs_state", "neuron_predecessor", "neuron_source",
    "changeset", "event", "source", "retrieval_boost", "quiz_item", "quiz_item_neuron",
)  # fmt: skip
"""Spikuit tables a brainview write may touch (either brain)."""
OWN_PREFIX = "brainview_"
SHOWN = 4
"""Objects named in the message; more are counted."""

_QUERY = (
    "SELECT type, name, tbl_name, sql FROM sqlite_master "
    "WHERE type IN ('trigger', 'view') OR (type = 'table' AND (name IN ({marks}) "
    "OR substr(name, 1, {n}) = '{prefix}'))"
).format(marks=", ".join("?" * len(SPIKUIT_WRITTEN)), n=len(OWN_PREFIX), prefix=OWN_PREFIX)
_GENERATED = re.compile(r"\bAS\s*\(", re.IGNORECASE)
"""What a generated column's definition looks like (confirmed with ``table_xinfo``)."""


@dataclass(frozen=True)
class Finding:
    """One schema object Spikuit would never have created."""

    what: str
    name: str
    table: str

    def describe(self) -> str:
        """``trigger "t" on synapse``-style text (names are shown by the caller safely)."""
        if self.what == "trigger":
            return f"trigger {self.name!r} on {self.table}"
        if self.what == "view":
            return f"view {self.name!r}"
        return f"{self.what} in table {self.table!r}"


def findings(conn: sqlite3.Connection) -> list[Finding]:
    """Triggers, views, and virtual or generated-column tables among those written."""
    found: list[Finding] = []
    rows = conn.execute(_QUERY, SPIKUIT_WRITTEN).fetchall()
    for kind, name, table, sql in rows:
        if kind in ("trigger", "view"):
            found.append(Finding(kind, str(name), str(table)))
            continue
        text = str(sql or "")
        if text.lstrip().upper().startswith("CREATE VIRTUAL"):
            found.append(Finding("a virtual table", str(name), str(name)))
        elif _GENERATED.search(text) and _has_generated(conn, str(name)):
            found.append(Finding("a generated column", str(name), str(name)))
    return found


def _has_generated(conn: sqlite3.Connection, table: str) -> bool:
    """``table_xinfo``'s ``hidden`` is 2 (virtual) or 3 (stored) for a generated column."""
    quoted = '"' + table.replace('"', '""') + '"'
    return any(row[6] in (2, 3) for row in conn.execute(f"PRAGMA table_xinfo({quoted})"))


_CLEAN: set[tuple[int, int, int]] = set()
"""``(st_dev, st_ino, schema_version)`` of files found clean: SQLite bumps the schema
cookie on every schema change, so a clean answer holds until it moves (a write then
costs one ``PRAGMA schema_version``, not a scan of the schema)."""
_lock = threading.Lock()


def refuse_unsafe(
    conn: sqlite3.Connection, path: Path, role: str, identity: tuple[int, int] | None = None
) -> None:
    """Raise :class:`UnsafeSchemaError` (one line) when ``findings`` is not empty.

    ``identity`` (the file's ``(st_dev, st_ino)``) lets a clean answer be reused while
    the file's schema cookie stays the same."""
    key = None
    if identity is not None:
        version = int(conn.execute("PRAGMA schema_version").fetchone()[0])
        key = (*identity, version)
        with _lock:
            if key in _CLEAN:
                return
    found = findings(conn)
    if not found:
        if key is not None:
            with _lock:
                _CLEAN.add(key)
        return
    shown = ", ".join(f.describe() for f in found[:SHOWN])
    more = f" and {len(found) - SHOWN} more" if len(found) > SHOWN else ""
    raise UnsafeSchemaError(
        f"refusing to write the {role} brain: it holds {shown}{more}, which Spikuit never "
        f"creates and SQLite would run on brainview's writes (undo could not revert them); "
        f"nothing was written, reading still works — inspect with: "
        f"sqlite3 {shlex.quote(str(path))} .schema"
    )
