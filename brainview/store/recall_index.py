"""Recall's lexical index: an FTS5 table kept in a cache database, never in a brain.

Reading a brain never writes it, so the index of an agent brain lives in its own SQLite
file under ``$XDG_CACHE_HOME/brainview/recall/`` (named by a digest of the brain's path),
or in memory when that directory cannot be written.  It holds one ``doc`` row per neuron
of the agent brain (rowid, id, type, skill, content length, stamps, live), the
``[user:…]`` references of each reflection (``ref``), and an FTS5 table (Porter stemming
over Unicode words, BM25 ranking) over the text of every *live* reflection, with each
reference expanded to the user neuron's title.

**Staying correct when other processes write the agent brain** (brainview, ``spkt``, a
curator, plain ``sqlite3``): :func:`sync` compares a fingerprint of the brain's neuron
table (count, highest rowid, summed and rowid-weighted content lengths, latest
``updated_at``, retired count and rowids, summed type/domain lengths: one scan in C) with
the one stored at the last sync.  When they differ it reads the rows added or updated
since (and the rows whose retirement flipped), re-indexes them, and checks that the
index's own fingerprint now equals the brain's; if not (a row deleted, a content edit that
kept no stamp), it compares every row's signature and re-indexes what differs.  A file
replaced under the same path (another inode) starts a new index.  An edit that changes
neither length, ``updated_at`` nor anything else counted is the one change it can miss:
Spikuit and brainview always move ``updated_at``.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from brainview.core.recall_text import expand_refs
from brainview.core.refs import parse_refs
from brainview.errors import BrainviewError
from brainview.store import recall_postings, recall_vectors
from brainview.store.path_kind import MISSING, REGULAR, is_symlink, kind

# Lookups over a synced index live in recall_lookup; re-exported so callers keep one name.
from brainview.store.recall_lookup import arrays_of, citing, docs, lexical, size, stored_stamp

FORMAT = "2"
MAX_BODY = 4_000
"""Characters of a lesson indexed (a 30,000-character pasted log is not 30,000 words of lesson)."""

Titles = Callable[[list[str]], Mapping[str, str]]
"""User neuron id → title, for the ids asked (absent ids have none)."""

_DDL = [
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    """CREATE TABLE IF NOT EXISTS doc (rid INTEGER PRIMARY KEY, id TEXT NOT NULL,
        type TEXT, skill TEXT, len INTEGER, updated TEXT, created TEXT,
        retired INTEGER NOT NULL, terms TEXT NOT NULL DEFAULT '',
        ntok INTEGER NOT NULL DEFAULT 0)""",
    "CREATE INDEX IF NOT EXISTS doc_id ON doc(id)",
    """CREATE TABLE IF NOT EXISTS ref (user_id TEXT NOT NULL, rid INTEGER NOT NULL,
        PRIMARY KEY (user_id, rid)) WITHOUT ROWID""",
    "CREATE INDEX IF NOT EXISTS ref_rid ON ref(rid)",
    *recall_postings.DDL,
    *recall_vectors.DDL,
]

_FINGERPRINT = """SELECT count(*), max(rowid), total(length(content)),
    total(rowid * length(content)), max({updated_at}), count({retired_at}),
    total(CASE WHEN {retired_at} IS NULL THEN 0 ELSE rowid END),
    total(length(type)), total(length({domain})) FROM neuron"""
_DOC_FINGERPRINT = """SELECT count(*), max(rid), total(len), total(rid * len), max(updated),
    count(CASE WHEN retired THEN 1 END), total(CASE WHEN retired THEN rid ELSE 0 END),
    total(length(type)), total(length(skill)) FROM doc"""
_ROW = """SELECT rowid, id, content, type, {domain}, {updated_at}, {created_at}, {retired_at},
    length(content) FROM neuron"""
_OPTIONAL = ("domain", "updated_at", "created_at", "retired_at")


def _sql(template: str, cols: frozenset[str]) -> str:
    """``template`` with each optional neuron column, or NULL where this era lacks it."""
    return template.format(**{c: c if c in cols else "NULL" for c in _OPTIONAL})


def cache_dir() -> Path:
    """``$XDG_CACHE_HOME/brainview/recall`` (``~/.cache`` when unset or relative)."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".cache"
    return root / "brainview" / "recall"


def private_file(db: Path) -> None:
    """Make ``db`` (and its directory) the owner's alone before SQLite opens it: the
    directory ``0700``, the file created ``0600`` (SQLite gives its ``-wal`` and ``-shm``
    the database file's mode) or narrowed to it.  A planted symbolic link, or anything
    but a regular file, is refused (``OSError``: the caller falls back to memory)."""
    folder = db.parent
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    if is_symlink(folder) or kind(folder) != "a directory":
        raise OSError(f"not a directory: {folder}")
    if (folder.stat().st_mode & 0o777) != 0o700:
        os.chmod(folder, 0o700)
    if kind(db) not in (REGULAR, MISSING) or is_symlink(db):  # planted: never opened
        raise OSError(f"not a regular file: {db}")
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(db, flags, 0o600)
    try:
        if (os.fstat(fd).st_mode & 0o777) != 0o600:
            os.fchmod(fd, 0o600)
    finally:
        os.close(fd)
    for side in ("-wal", "-shm"):
        extra = db.with_name(db.name + side)
        private = kind(extra) != REGULAR or is_symlink(extra)
        if not private and (extra.stat().st_mode & 0o777) != 0o600:
            os.chmod(extra, 0o600)


def open_index(brain: Path, identity: tuple[int, int] | None) -> sqlite3.Connection:
    """The index of the agent brain at ``brain`` (in memory if the cache is unwritable)."""
    digest = hashlib.sha256(str(Path(brain).resolve()).encode()).hexdigest()[:32]
    conn: sqlite3.Connection | None = None
    try:
        db = cache_dir() / f"{digest}.sqlite"
        private_file(db)
        # any thread may use the handle (its lock serialises): a console's workers do
        conn = sqlite3.connect(db, timeout=30, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA trusted_schema=OFF")
        conn.execute("PRAGMA journal_mode=WAL")
        _prepare(conn, f"{FORMAT}:{identity}")
    except (sqlite3.Error, OSError, BrainviewError):
        if conn is not None:
            conn.close()
        conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        _prepare(conn, f"{FORMAT}:{identity}")
    conn.execute("PRAGMA busy_timeout=30000")
    return conn


def _prepare(conn: sqlite3.Connection, stamp: str) -> None:
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute(_DDL[0])
        row = conn.execute("SELECT value FROM meta WHERE key = 'identity'").fetchone()
        if row is None or row[0] != stamp:  # another layout or another file: start again
            for table in ("doc", "ref", "post", "arrays", "fts", "vec"):
                conn.execute(f"DROP TABLE IF EXISTS {table}")
            conn.execute("DELETE FROM meta")
            conn.execute("INSERT INTO meta VALUES ('identity', ?)", (stamp,))
        for ddl in _DDL[1:]:
            conn.execute(ddl)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def brain_fingerprint(agent: sqlite3.Connection, cols: frozenset[str]) -> str:
    """The agent brain's neuron-table fingerprint (one scan)."""
    return repr(tuple(agent.execute(_sql(_FINGERPRINT, cols)).fetchone()))


def sync(
    idx: sqlite3.Connection, agent: sqlite3.Connection, cols: frozenset[str], titles: Titles
) -> str:
    """Bring the index up to date with ``agent`` (read in the caller's transaction).

    Returns ``"current"``, ``"incremental"`` or ``"full"`` (what it had to do)."""
    now = brain_fingerprint(agent, cols)
    if _verified(idx, now):
        return "current"
    idx.execute("BEGIN IMMEDIATE")
    try:
        if _verified(idx, now):  # another process synced it meanwhile
            idx.execute("COMMIT")
            return "current"
        how = _incremental(idx, agent, cols, titles)
        if repr(tuple(idx.execute(_DOC_FINGERPRINT).fetchone())) != now:
            _full(idx, agent, cols, titles)
            how = "full"
        recall_postings.save_arrays(
            idx,
            idx.execute(
                "SELECT rid, ntok, coalesce(skill, '') FROM doc "
                "WHERE type = 'reflection' AND retired = 0"
            ),
        )
        idx.execute("INSERT OR REPLACE INTO meta VALUES ('fingerprint', ?)", (now,))
        idx.execute("COMMIT")
    except BaseException:
        idx.execute("ROLLBACK")
        raise
    return how


def _verified(idx: sqlite3.Connection, now: str) -> bool:
    """Whether the index was synced to fingerprint ``now`` *and* its rows still add up
    to it: the cache is a file anyone with the account can edit, so one row flipped to
    ``retired`` (a live lesson hidden from every recall) is caught and rebuilt."""
    if stored_stamp(idx) != now:
        return False
    return repr(tuple(idx.execute(_DOC_FINGERPRINT).fetchone())) == now


def _incremental(
    idx: sqlite3.Connection, agent: sqlite3.Connection, cols: frozenset[str], titles: Titles
) -> str:
    top, upd = idx.execute("SELECT max(rid), max(updated) FROM doc").fetchone()
    since = "updated_at > ?" if "updated_at" in cols else "0 = ?"
    rows = agent.execute(
        _sql(_ROW, cols) + f" WHERE rowid > ? OR {since}", (top or 0, upd or "")
    ).fetchall()
    have_retired = {r for (r,) in idx.execute("SELECT rid FROM doc WHERE retired = 1")}
    now_retired: set[int] = set()
    if "retired_at" in cols:
        now_retired = {
            r for (r,) in agent.execute("SELECT rowid FROM neuron WHERE retired_at IS NOT NULL")
        }
    flipped = (have_retired ^ now_retired) - {r[0] for r in rows}
    if flipped:
        rows += _rows(agent, cols, flipped)
    _put(idx, rows, titles)
    return "incremental"


def _full(
    idx: sqlite3.Connection, agent: sqlite3.Connection, cols: frozenset[str], titles: Titles
) -> None:
    sig = "SELECT rowid, length(content), {updated_at}, {retired_at} IS NOT NULL, type, {domain}"
    brain = {r[0]: r[1:] for r in agent.execute(_sql(sig, cols) + " FROM neuron")}
    mine = {
        r[0]: r[1:] for r in idx.execute("SELECT rid, len, updated, retired, type, skill FROM doc")
    }
    gone = [rid for rid in mine if rid not in brain]
    changed = [rid for rid, s in brain.items() if mine.get(rid) != s]
    _drop(idx, gone)
    _put(idx, _rows(agent, cols, changed), titles)


def _rows(
    agent: sqlite3.Connection, cols: frozenset[str], rids: Iterable[int]
) -> list[tuple[object, ...]]:
    out: list[tuple[object, ...]] = []
    ids = list(rids)
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        marks = ",".join("?" * len(chunk))
        out += agent.execute(_sql(_ROW, cols) + f" WHERE rowid IN ({marks})", chunk).fetchall()
    return out


def _drop(idx: sqlite3.Connection, rids: list[int]) -> None:
    """Take ``rids`` out of the index (their postings, references and doc rows)."""
    old: dict[int, list[str]] = {}
    for start in range(0, len(rids), 500):
        chunk = rids[start : start + 500]
        marks = ",".join("?" * len(chunk))
        for rid, terms in idx.execute(f"SELECT rid, terms FROM doc WHERE rid IN ({marks})", chunk):
            old[int(rid)] = str(terms).split()
        for table in ("doc", "ref"):
            idx.execute(f"DELETE FROM {table} WHERE rid IN ({marks})", chunk)
    recall_postings.update(idx, old, {})


def _put(idx: sqlite3.Connection, rows: list[tuple[object, ...]], titles: Titles) -> None:
    """(Re-)index ``rows`` (full neuron rows of :data:`_ROW`; SQLite's own ``length``, which
    stops at a NUL, is kept so the fingerprints agree)."""
    if not rows:
        return
    _drop(idx, [int(r[0]) for r in rows])  # type: ignore[call-overload]
    refs = {r[0]: parse_refs(str(r[2] or "")[:MAX_BODY]) for r in rows if r[3] == "reflection"}
    named = titles(sorted({u for us in refs.values() for u in us}))
    bodies: dict[int, str] = {}
    links = []
    for rid, _nid, content, typ, _skill, _upd, _created, retired, _length in rows:
        if typ == "reflection":
            links += [(u, rid) for u in refs[rid]]
            if retired is None:
                bodies[int(rid)] = expand_refs(str(content or "")[:MAX_BODY], named)  # type: ignore[call-overload]
    counts = recall_postings.tokenize(idx, bodies)
    docs = []
    for rid, nid, _content, typ, skill, updated, created, retired, length in rows:
        got = counts.get(int(rid))  # type: ignore[call-overload]
        terms = " ".join(got) if got else ""
        ntok = sum(got.values()) if got else 0
        docs.append(
            (rid, nid, typ, skill, length, updated, created, int(retired is not None), terms, ntok)
        )
    idx.executemany("INSERT INTO doc VALUES (?,?,?,?,?,?,?,?,?,?)", docs)
    idx.executemany("INSERT OR IGNORE INTO ref VALUES (?,?)", links)
    recall_postings.update(idx, {}, counts)


__all__ = ["arrays_of", "brain_fingerprint", "cache_dir", "citing", "docs", "lexical"]
__all__ += ["open_index", "size", "stored_stamp", "sync"]
