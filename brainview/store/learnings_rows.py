"""SQL for imported ``.learnings`` entries (brainview's own tables in the agent brain).

* ``brainview_learning`` — one row per imported entry: its reflection, its identity
  across imports (``entry_key``), where it is (file, line, its line's exact bytes),
  its skill and its **tier** (HOT / WARM / COLD / GRADUATED, tracked: decisions change
  it through the effect log, so undo restores it), and the group it repeats
  (``canonical``: the first wording, which carries the group's uses as spikes);
* ``brainview_learning_root`` — the tree those entries came from: its path relative to
  the project holding the agent brain (older imports stored an absolute path, read only
  when it lies inside the open project);
* ``brainview_learning_write`` — every file an accepted move wrote: old and new bytes
  (so undo can check the file is still as the decision left it and put it back) and
  the backup's path.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection

from brainview.core import fsrs_math
from brainview.store.rows import PRIMARY_KEYS, driver

LEARNING_DDL = (
    """CREATE TABLE IF NOT EXISTS brainview_learning (
        neuron_id TEXT PRIMARY KEY,
        entry_key TEXT NOT NULL,
        file TEXT NOT NULL,
        line INTEGER NOT NULL,
        raw BLOB NOT NULL,
        skill TEXT NOT NULL,
        tier TEXT NOT NULL,
        tier_since TEXT NOT NULL,
        entry_date TEXT,
        status TEXT,
        priority TEXT,
        block INTEGER NOT NULL DEFAULT 0,
        canonical TEXT,
        imported_at TEXT NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS brainview_learning_root (
        id INTEGER PRIMARY KEY,
        path TEXT NOT NULL,
        hot_file TEXT NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS brainview_learning_write (
        decision_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        path TEXT NOT NULL,
        before BLOB,
        after BLOB,
        backup TEXT,
        PRIMARY KEY (decision_id, seq)
    )""",
    "CREATE INDEX IF NOT EXISTS brainview_learning_key ON brainview_learning (entry_key)",
)
"""No ``UNIQUE`` or ``CHECK`` here: the schema guard refuses both on a written table (a
planted one could fail brainview's writes).  ``entry_key`` is kept unique by the import
(one row per key it does not know yet); the root is always row 1."""
PRIMARY_KEYS.setdefault("brainview_learning", ("neuron_id",))
PRIMARY_KEYS.setdefault("brainview_learning_write", ("decision_id", "seq"))

COLUMNS = (
    "neuron_id", "entry_key", "file", "line", "raw", "skill", "tier", "tier_since",
    "entry_date", "status", "priority", "block", "canonical", "imported_at",
)  # fmt: skip


def ensure(conn: Connection) -> None:
    """Create the tables if missing (inside the caller's transaction)."""
    for ddl in LEARNING_DDL:
        conn.exec_driver_sql(ddl)


def has_tables(conn: Connection) -> bool:
    found = (
        driver(conn)
        .execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='brainview_learning'")
        .fetchone()
    )
    return found is not None


def root(conn: Connection) -> tuple[str, str] | None:
    """``(path, hot file)`` of the imported tree, if any."""
    if not has_tables(conn):
        return None
    row = driver(conn).execute("SELECT path, hot_file FROM brainview_learning_root").fetchone()
    return (str(row[0]), str(row[1])) if row else None


def db_file(conn: Connection) -> str:
    """The file the connection's main database is (``""``: an in-memory database)."""
    for _seq, name, file in driver(conn).execute("PRAGMA database_list"):
        if name == "main":
            return str(file or "")
    return ""


def set_root(conn: Connection, path: str, hot_file: str) -> None:
    driver(conn).execute(
        "INSERT INTO brainview_learning_root (id, path, hot_file) VALUES (1, ?, ?) "
        "ON CONFLICT(id) DO UPDATE SET path = excluded.path, hot_file = excluded.hot_file",
        (path, hot_file),
    )


def entries(conn: Connection) -> list[dict[str, Any]]:
    """Every imported entry, in import order."""
    if not has_tables(conn):
        return []
    cur = driver(conn).execute(
        f"SELECT {', '.join(COLUMNS)} FROM brainview_learning ORDER BY rowid"
    )
    return [dict(zip(COLUMNS, r, strict=True)) for r in cur]


def entry(conn: Connection, neuron_id: str) -> dict[str, Any] | None:
    if not has_tables(conn):
        return None
    cur = driver(conn).execute(
        f"SELECT {', '.join(COLUMNS)} FROM brainview_learning WHERE neuron_id = ?", (neuron_id,)
    )
    row = cur.fetchone()
    return dict(zip(COLUMNS, row, strict=True)) if row else None


def relocate(conn: Connection, moved: Sequence[tuple[str, int, str, str]], now: str) -> None:
    """Where entries are now (``(file, line, tier, neuron_id)``), as the files say; an
    entry whose tier changed (the skill moved it) holds its new tier since ``now``."""
    driver(conn).executemany(
        "UPDATE brainview_learning SET file = ?, line = ?, "
        "tier_since = CASE WHEN tier = ? THEN tier_since ELSE ? END, tier = ? "
        "WHERE neuron_id = ?",
        [(f, n, t, now, t, nid) for f, n, t, nid in moved],
    )


def uses(conn: Connection, ids: Sequence[str]) -> dict[str, list[datetime]]:
    """Neuron id → when it fired with a passing grade (its uses), oldest first."""
    out: dict[str, list[datetime]] = {}
    raw = driver(conn)
    for start in range(0, len(ids), 400):
        chunk = list(ids[start : start + 400])
        marks = ",".join("?" * len(chunk))
        for nid, at in raw.execute(
            f"SELECT neuron_id, fired_at FROM spike WHERE grade >= 2 AND neuron_id IN ({marks}) "
            "ORDER BY fired_at",
            chunk,
        ):
            try:
                out.setdefault(str(nid), []).append(fsrs_math.parse_ts(str(at)))
            except ValueError:
                continue
    return out


def pending_moves(conn: Connection) -> set[str]:
    """Entries that already have a pending ``learning_tier`` proposal."""
    import json

    found = driver(conn).execute(
        "SELECT 1 FROM sqlite_master WHERE type='table' AND name='brainview_proposal'"
    )
    if found.fetchone() is None:
        return set()
    out: set[str] = set()
    for (params,) in driver(conn).execute(
        "SELECT params_json FROM brainview_proposal WHERE kind = 'learning_tier' "
        "AND status = 'pending'"
    ):
        try:
            out.add(str(json.loads(params)["entry"]))
        except (TypeError, ValueError, KeyError):
            continue
    return out


def writes_of(conn: Connection, decision_id: str) -> list[dict[str, Any]]:
    """The files a decision wrote, in the order it wrote them."""
    if not has_tables(conn):
        return []
    cols = ("decision_id", "seq", "path", "before", "after", "backup")
    cur = driver(conn).execute(
        f"SELECT {', '.join(cols)} FROM brainview_learning_write WHERE decision_id = ? "
        "ORDER BY seq",
        (decision_id,),
    )
    return [dict(zip(cols, r, strict=True)) for r in cur]


def created_at(conn: Connection, ids: Sequence[str]) -> dict[str, str]:
    """``created_at`` of each neuron in ``ids`` (those that exist)."""
    marks = ",".join("?" * len(ids))
    sql = f"SELECT id, created_at FROM neuron WHERE id IN ({marks})"
    return {str(nid): str(at) for nid, at in driver(conn).execute(sql, list(ids))}


def spikes_of(conn: Connection, neuron_id: str) -> list[tuple[int, str]]:
    """A neuron's spikes, oldest first: ``(grade, fired_at)``."""
    sql = "SELECT grade, fired_at FROM spike WHERE neuron_id = ? ORDER BY fired_at, id"
    return [(int(g), str(at)) for g, at in driver(conn).execute(sql, (neuron_id,))]
