"""The presence database: who is looking at which proposal, shared by one server's
consoles (``BRAINVIEW_PRESENCE``, see :mod:`brainview.core.identity`).

It lives outside the brains — never a table in a brain — in a small SQLite file of its
own: one row per console (``claim``), saying which proposal that console shows, whose
console it is, since when and until when the claim holds.  A claim is soft: it expires
unless refreshed (a heartbeat), and nothing is refused because of it.

Written the way brains are (:mod:`brainview.store.connect`): WAL, a busy timeout,
short ``BEGIN IMMEDIATE`` transactions, an untrusted schema.  The file must be a
regular file or not exist yet (then it is created); a symbolic link, a directory, a
device or a brain is refused.  Times are seconds since the epoch (wall clock: expiry
must mean the same to every process).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import NamedTuple

from brainview.errors import BadPathError
from brainview.store.connect import refuse_brain_path
from brainview.store.path_kind import MISSING, REGULAR, kind

DDL = (
    """CREATE TABLE IF NOT EXISTS claim (
        console TEXT PRIMARY KEY, holder TEXT NOT NULL, proposal_id TEXT NOT NULL,
        since REAL NOT NULL, expires REAL NOT NULL) WITHOUT ROWID""",
    "CREATE INDEX IF NOT EXISTS ix_claim_expires ON claim(expires)",
)


class ClaimRow(NamedTuple):
    """A live claim: ``holder`` looks at ``proposal_id`` since ``since``."""

    console: str
    holder: str
    proposal_id: str
    since: float
    expires: float


def open_presence(path: Path, *, timeout: float) -> sqlite3.Connection:
    """The presence database at ``path`` (created with its table when missing); any
    thread may use the connection (callers serialise it)."""
    found = kind(path)
    if found not in (REGULAR, MISSING) or path.is_symlink():
        raise BadPathError(f"presence database {path} is {found}, not a regular file")
    refuse_brain_path(path, "presence database")
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, timeout=timeout, isolation_level=None, check_same_thread=False)
    try:
        conn.execute(f"PRAGMA busy_timeout={int(timeout * 1000)}")
        conn.execute("PRAGMA trusted_schema=OFF")
        conn.execute("PRAGMA journal_mode=WAL").fetchall()
        conn.execute("PRAGMA synchronous=NORMAL")  # a lost claim costs nothing
        conn.execute("BEGIN IMMEDIATE")
        for ddl in DDL:
            conn.execute(ddl)
        conn.execute("COMMIT")
    except BaseException:
        conn.close()
        raise
    return conn


def put_claim(
    conn: sqlite3.Connection,
    *,
    console: str,
    holder: str,
    proposal_id: str,
    now: float,
    ttl: float,
) -> None:
    """Claim ``proposal_id`` for ``console`` until ``now + ttl`` (the same proposal
    again keeps its ``since``: a heartbeat); expired claims are swept in passing."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute("DELETE FROM claim WHERE expires <= ?", (now,))
        conn.execute(
            "INSERT INTO claim (console, holder, proposal_id, since, expires) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT(console) DO UPDATE SET "
            "holder = excluded.holder, expires = excluded.expires, "
            "since = CASE WHEN claim.proposal_id = excluded.proposal_id "
            "THEN claim.since ELSE excluded.since END, proposal_id = excluded.proposal_id",
            (console, holder, proposal_id, now, now + ttl),
        )
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def drop_claim(conn: sqlite3.Connection, console: str) -> None:
    """Withdraw ``console``'s claim (there may be none)."""
    conn.execute("DELETE FROM claim WHERE console = ?", (console,))


def live_claims(conn: sqlite3.Connection, *, now: float) -> list[ClaimRow]:
    """Every claim not expired at ``now`` (one indexed read of a table of one row per
    console)."""
    rows = conn.execute(
        "SELECT console, holder, proposal_id, since, expires FROM claim WHERE expires > ? "
        "ORDER BY since, console",
        (now,),
    ).fetchall()
    return [ClaimRow(str(c), str(h), str(p), float(s), float(e)) for c, h, p, s, e in rows]
