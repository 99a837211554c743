"""Refuse to write a brain whose schema holds objects Spikuit never creates.

A brain file is untrusted input: it can be downloaded, shared or planted.  SQLite runs
whatever the *file* defines on a write — a trigger on ``synapse`` fires when brainview
inserts a link, a view named ``neuron`` with an ``INSTEAD OF`` trigger swallows an
update, a generated column evaluates its expression — and none of that is in
brainview's effect log, so undo could not revert it.  A ``CHECK`` constraint, a
``UNIQUE`` index or a ``NOT NULL`` column Spikuit does not have makes a write *fail*
instead: planted on the user brain, it would let an accept record its decision and
then fail to apply, every time.  Real Spikuit 0.7.x brains (with or without an
embedder, whose ``neuron_vec`` is a sqlite-vec virtual table brainview never writes;
its ``neuron_vec_map`` is written — a row deleted on retire and merge — and passes with
exactly Spikuit's ``UNIQUE`` on ``neuron_id``, nothing else)
hold none of these, and brainview creates only ``brainview_*`` tables and plain
indexes.  So before any write, in the write's own transaction (so nothing can be added
in between), :func:`findings` looks for:

* any trigger and any view, whatever table it names;
* in a table brainview writes (names compared as SQLite does, ignoring case): a virtual
  table, a generated column (``table_xinfo``, however its SQL is spelled), a ``CHECK``
  constraint (found in the SQL with comments, strings and quoted names blanked out), a
  ``UNIQUE`` constraint or index, a partial or expression index, a ``NOT NULL``
  column without a default that Spikuit's table does not have.

The whole ``sqlite_master`` is read on every write and its digest is what a clean
answer is cached under: the schema cookie (``PRAGMA schema_version``) can be set back
by anyone, the schema's text cannot change without changing the digest.  Anything
found refuses the write with one line naming it and how to look at it; reading never
checks (a brain with extra objects reads fine).  Every connection is also opened with
``PRAGMA trusted_schema=OFF`` (:mod:`brainview.store.connect`), so schema code can call
only functions SQLite marks innocuous.
"""

from __future__ import annotations

import re
import shlex
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path

from brainview.errors import UnsafeSchemaError

SPIKUIT_COLUMNS: dict[str, frozenset[str]] = {
    "neuron": frozenset(
        [
            "id",
            "content",
            "type",
            "domain",
            "source",
            "created_at",
            "updated_at",
            "community_id",
            "retired_at",
        ]
    ),
    "synapse": frozenset(
        [
            "pre",
            "post",
            "type",
            "weight",
            "co_fires",
            "last_co_fire",
            "created_at",
            "updated_at",
            "confidence",
            "confidence_score",
            "retired_at",
        ]
    ),
    "spike": frozenset(["id", "neuron_id", "grade", "fired_at", "session_id", "notes"]),
    "fsrs_state": frozenset({"neuron_id", "card_json"}),
    "neuron_predecessor": frozenset({"child_id", "parent_id", "at"}),
    "neuron_source": frozenset({"neuron_id", "source_id"}),
    "changeset": frozenset(
        ["id", "tag", "actor_id", "actor_kind", "started_at", "committed_at", "status"]
    ),
    "event": frozenset(
        [
            "id",
            "changeset_id",
            "seq",
            "op",
            "target_kind",
            "target_id",
            "before_json",
            "after_json",
            "at",
        ]
    ),
    "source": frozenset(
        [
            "id",
            "url",
            "title",
            "author",
            "section",
            "excerpt",
            "storage_uri",
            "content_hash",
            "notes",
            "accessed_at",
            "created_at",
            "filterable",
            "searchable",
            "fetched_at",
            "http_etag",
            "http_last_modified",
            "status",
        ]
    ),
    "retrieval_boost": frozenset({"neuron_id", "boost", "updated_at"}),
    "quiz_item": frozenset(
        ["id", "question", "answer", "hints", "grading_criteria", "scaffold_level", "created_at"]
    ),
    "quiz_item_neuron": frozenset({"quiz_item_id", "neuron_id", "role"}),
    "neuron_vec_map": frozenset({"rowid", "neuron_id"}),
}
"""Every column Spikuit 0.7.x gives the tables a brainview write may touch."""
SPIKUIT_WRITTEN = tuple(SPIKUIT_COLUMNS)
"""Spikuit tables a brainview write may touch (either brain)."""
OWN_PREFIX = "brainview_"
SHOWN = 4
"""Objects named in the message; more are counted."""

_BLANKED = re.compile(
    r"--[^\n]*|/\*.*?(?:\*/|\Z)|'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|`(?:[^`]|``)*`|\[[^\]]*\]",
    re.DOTALL,
)
"""Comments, string literals and quoted names: never keywords."""
_CHECK = re.compile(r"\bCHECK\b", re.IGNORECASE)


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
        if self.what.endswith("index"):
            return f"{self.what} {self.name!r} on {self.table!r}"
        return f"{self.what} in table {self.table!r}"


def written(name: str) -> bool:
    """Whether brainview writes table ``name`` (SQLite compares names ignoring case)."""
    low = name.lower()
    return low in SPIKUIT_COLUMNS or low.startswith(OWN_PREFIX)


def keywords_of(sql: str) -> str:
    """``sql`` with comments, strings and quoted names blanked out."""
    return _BLANKED.sub(" ", sql)


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def findings(conn: sqlite3.Connection) -> list[Finding]:
    """Everything in the schema a brainview write would run or trip over."""
    rows = conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master").fetchall()
    return _findings(conn, rows)


def _findings(conn: sqlite3.Connection, rows: list[tuple[object, ...]]) -> list[Finding]:
    found: list[Finding] = []
    for kind, name, _table, sql in rows:
        if kind in ("trigger", "view"):
            found.append(Finding(str(kind), str(name), str(_table)))
        elif kind == "table" and written(str(name)):
            found += _table_findings(conn, str(name), str(sql or ""))
    return found


OWN_BEFORE = frozenset(
    {
        "create table brainview_learning ( neuron_id text primary key, entry_key text not "
        "null unique, file text not null, line integer not null, raw blob not null, skill "
        "text not null, tier text not null, tier_since text not null, entry_date text, "
        "status text, priority text, block integer not null default 0, canonical text, "
        "imported_at text not null )",
        "create table brainview_learning_root ( id integer primary key check (id = 1), "
        "path text not null, hot_file text not null )",
    }
)
"""Tables earlier brainview releases created with a ``UNIQUE`` or ``CHECK`` of their own
(whitespace folded, lower case): exactly these, and nothing planted in them, pass."""


def _normal(sql: str) -> str:
    """``sql`` with parentheses spaced, whitespace folded and letters lowered."""
    return " ".join(re.sub(r"([(),])", r" \1 ", sql).split()).lower()


def _table_findings(conn: sqlite3.Connection, table: str, sql: str) -> list[Finding]:
    if sql.lstrip().upper().startswith("CREATE VIRTUAL"):
        return [Finding("a virtual table", table, table)]
    if _normal(sql) in _OWN_BEFORE_NORMAL:
        return []
    out: list[Finding] = []
    q = _quoted(table)
    cols = conn.execute(f"PRAGMA table_xinfo({q})").fetchall()
    if any(c[6] in (2, 3) for c in cols):
        out.append(Finding("a generated column", table, table))
    if _CHECK.search(keywords_of(sql)):
        out.append(Finding("a CHECK constraint", table, table))
    known = SPIKUIT_COLUMNS.get(table.lower())
    if known is not None:
        extra = [c for c in cols if c[3] and c[4] is None and not c[5] and c[1] not in known]
        if extra:
            out.append(Finding("a NOT NULL column Spikuit does not have", table, table))
    spikuit_unique = table.lower() == "neuron_vec_map" and _normal(sql) == SPIKUIT_VEC_MAP
    for _seq, index, unique, origin, partial in conn.execute(f"PRAGMA index_list({q})"):
        if origin == "pk" or (origin == "u" and spikuit_unique):
            continue
        what = _index_problem(conn, str(index), bool(unique), bool(partial))
        if what is not None:
            out.append(Finding(what, str(index), table))
    return out


def _index_problem(conn: sqlite3.Connection, index: str, unique: bool, partial: bool) -> str | None:
    if unique:
        return "a UNIQUE index"
    if partial:
        return "a partial index"
    info = conn.execute(f"PRAGMA index_xinfo({_quoted(index)})").fetchall()
    if any(r[1] == -2 for r in info):  # cid -2: an expression
        return "an expression index"
    return None


_OWN_BEFORE_NORMAL = frozenset(_normal(t) for t in OWN_BEFORE)
SPIKUIT_VEC_MAP = _normal(
    "CREATE TABLE neuron_vec_map ( rowid INTEGER PRIMARY KEY AUTOINCREMENT, "
    "neuron_id TEXT NOT NULL UNIQUE REFERENCES neuron(id) )"
)
"""Spikuit's own ``neuron_vec_map`` (``spikuit_core.db.Database._init_vec_table``): its
``UNIQUE`` constraint's index is Spikuit's, not a planted one."""

_CLEAN: dict[tuple[int, int], str] = {}
"""``(st_dev, st_ino)`` → the whole ``sqlite_master`` text of that file when it was last
found clean: reading the schema's text is cheap (one row from SQLite), checking each
written table is not; the text itself is compared, so no cookie can stand in for it."""
_lock = threading.Lock()
_SCHEMA_TEXT = (
    "SELECT group_concat(quote(type) || ',' || quote(name) || ',' || quote(tbl_name) || ',' "
    "|| quote(sql), ';') FROM (SELECT * FROM sqlite_master ORDER BY rowid)"
)
"""The schema as one unambiguous string (``quote()`` escapes every value)."""


def refuse_unsafe(
    conn: sqlite3.Connection, path: Path, role: str, identity: tuple[int, int] | None = None
) -> None:
    """Raise :class:`UnsafeSchemaError` (one line) when ``findings`` is not empty.

    ``identity`` (the file's ``(st_dev, st_ino)``) lets a clean answer be reused while
    the schema's text stays the same."""
    text = None
    if identity is not None:
        text = str(conn.execute(_SCHEMA_TEXT).fetchone()[0] or "")
        with _lock:
            if _CLEAN.get(identity) == text:
                return
    rows = conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master").fetchall()
    found = _findings(conn, rows)
    if not found:
        if identity is not None and text is not None:
            with _lock:
                _CLEAN[identity] = text
        return
    shown = ", ".join(f.describe() for f in found[:SHOWN])
    more = f" and {len(found) - SHOWN} more" if len(found) > SHOWN else ""
    raise UnsafeSchemaError(
        f"refusing to write the {role} brain: it holds {shown}{more}, which Spikuit never "
        f"creates and SQLite would run or fail on brainview's writes (undo could not "
        f"revert them); nothing was written, reading still works — inspect with: "
        f"sqlite3 {shlex.quote(str(path))} .schema"
    )
