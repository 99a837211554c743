"""Creating the brains a project lacks, empty, with Spikuit's own schema and config.

The only place brainview makes a brain file: ``brainview init-agent`` (an agent brain
beside a user brain) and ``brainview learnings import --init`` (whatever of the two is
missing).  Every path is looked at first (``lstat``/``stat``): a brain that exists is
kept (or, for ``init-agent``, a conflict); a directory, special file or dangling or
looping symbolic link where a brain, its directory or its ``config.toml`` belongs is
refused (exit 14) before anything is written.  An existing ``config.toml`` is never
rewritten.  All or nothing: a brain made here is removed again if its config fails.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from brainview.errors import BadPathError, ConflictError, NotFoundError, UsageError
from brainview.store.brain import check_sqlite_file
from brainview.store.brain_create import create_empty
from brainview.store.discovery import BrainPaths
from brainview.store.path_kind import MISSING, kind, require_file_or_missing
from brainview.store.spikuit_schema import SPIKUIT_07_DDL, write_config


def init_agent(paths: BrainPaths) -> Path:
    """Create ``paths.agent_db`` empty beside a valid user brain; the path made."""
    check_sqlite_file(paths.user_db)
    if paths.agent_db is None:
        raise UsageError("no agent location: pass --agent PATH")
    agent_dir = paths.agent_db.parent
    if require_file_or_missing(paths.agent_db, "agent brain"):
        raise ConflictError(f"agent brain already exists: {paths.agent_db}")
    found = kind(agent_dir)
    if found not in ("a directory", MISSING):
        raise BadPathError(f"agent brain directory {agent_dir} is {found}; refusing to use it")
    _create(paths.agent_db, "agent", "agent")
    return paths.agent_db


def init_missing(project_dir: Path, note: Callable[[str], None]) -> None:
    """Create what is missing under ``project_dir``: ``.spikuit/`` with an empty user
    brain, and its agent brain; ``note`` hears one line per brain made."""
    if not project_dir.is_dir():
        raise NotFoundError(f"no such project directory: {project_dir}")
    spikuit = project_dir / ".spikuit"
    user_db, agent_db = spikuit / "circuit.db", spikuit / "agent" / "circuit.db"
    if not require_file_or_missing(user_db, "user brain"):
        _create(user_db, "user", project_dir.name or "learnings")
        note(f"created empty user brain {user_db}")
    if not require_file_or_missing(agent_db, "agent brain"):
        _create(agent_db, "agent", "agent")
        note(f"created empty agent brain {agent_db}")


def _create(db: Path, which: str, name: str) -> None:
    """An empty brain at ``db`` and, unless one is there, its ``config.toml`` (the
    brain's ``name``); ``which`` (user, agent) names them in messages."""
    keep_config = require_file_or_missing(db.parent / "config.toml", f"{which} config")
    db.parent.mkdir(parents=True, exist_ok=True)
    create_empty(db, SPIKUIT_07_DDL)
    if not keep_config:
        try:
            write_config(db.parent, name)
        except BaseException:
            db.unlink(missing_ok=True)  # all or nothing: we made it just now
            raise
