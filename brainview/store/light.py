"""Light checks with the raw driver only (no SQLAlchemy import), for the startup path.

The CLI validates both brains with these before starting the app, so bad input
ends in one clear line and the first frame is not delayed by heavy imports.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from brainview.errors import BrainviewError
from brainview.store.brain_check import check_sqlite_file, translate_sqlite
from brainview.store.connect import connect
from brainview.store.discovery import BrainPaths
from brainview.store.era import Era, detect_era


def _ro(path: Path) -> sqlite3.Connection:
    return connect(path, write=False, timeout=1.0)


def light_era(path: Path) -> Era:
    """Validate one brain file and detect its era, read-only."""
    check_sqlite_file(path)
    try:
        conn = _ro(path)
        try:
            tables = {
                r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
            }
            cols = {
                t: {c[1] for c in conn.execute(f"PRAGMA table_info({t})")}
                for t in ("neuron", "synapse", "spike")
                if t in tables
            }
        finally:
            conn.close()
    except sqlite3.Error as err:
        raise translate_sqlite(err, path) from None
    tutor = path.with_name("circuit.tutor.db")
    return detect_era(tables, cols, tutor if tutor.is_file() else None)


def validate(paths: BrainPaths) -> None:
    """Raise a one-line error if either existing brain cannot be used."""
    light_era(paths.user_db)
    if paths.agent_present():
        light_era(paths.agent_db)  # type: ignore[arg-type]


def pending_count(paths: BrainPaths) -> int:
    """Pending proposals, by the raw driver (0 without an agent brain or queue)."""
    if not paths.agent_exists:
        return 0
    try:
        conn = _ro(paths.agent_db)  # type: ignore[arg-type]
        try:
            row = conn.execute(
                "SELECT COUNT(*) FROM brainview_proposal WHERE status = 'pending'"
            ).fetchone()
        finally:
            conn.close()
    except sqlite3.Error:
        return 0
    except BrainviewError:
        return 0
    return int(row[0])
