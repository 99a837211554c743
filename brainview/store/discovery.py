"""Find a Spikuit project's brains the way ``spkt`` does.

Accepts a project directory, a ``.spikuit`` directory, a ``circuit.db`` path, or
separate user / agent locations (paths or ``sqlite:///`` URLs).  Nothing here
creates files.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from brainview.errors import NotFoundError, UsageError
from brainview.store.path_kind import require_file_or_missing

SPIKUIT_DIR = ".spikuit"
DB_NAME = "circuit.db"
TUTOR_DB_NAME = "circuit.tutor.db"
AGENT_DIR = "agent"


@dataclass(frozen=True)
class BrainPaths:
    """Where a project's brains live (the agent brain may not exist yet)."""

    user_db: Path
    agent_db: Path | None
    """Expected agent brain location; ``None`` when the user gave only a user brain."""
    project_root: Path | None = None

    @property
    def spikuit_dir(self) -> Path:
        """The ``.spikuit`` directory holding the user brain."""
        return self.user_db.parent

    @property
    def user_tutor_db(self) -> Path:
        """The Spikuit ≥ 0.9 FSRS overlay next to the user brain."""
        return self.user_db.with_name(TUTOR_DB_NAME)

    @property
    def agent_exists(self) -> bool:
        """Whether the agent brain file exists (quiet: for polling; opening a project
        uses :meth:`agent_present`, which refuses what is not a file)."""
        return self.agent_db is not None and self.agent_db.is_file()

    def agent_present(self) -> bool:
        """Whether there is an agent brain: ``False`` when nothing is at its path yet;
        a directory, special file or dangling/looping symbolic link there is refused
        (:class:`~brainview.errors.BadPathError`), never read as "no agent brain yet"."""
        if self.agent_db is None:
            return False
        return require_file_or_missing(self.agent_db, "agent brain")

    @property
    def config_path(self) -> Path:
        """Project-level brainview config file."""
        return self.spikuit_dir / "brainview.toml"


def _from_url(value: str) -> Path:
    """Turn a ``sqlite:///…`` URL into a path; other dialects are refused."""
    if not value.startswith("sqlite:"):
        raise UsageError(f"only sqlite URLs name a Spikuit brain: {value!r}")
    rest = value.split(":", 1)[1]
    if not rest.startswith("///"):
        raise UsageError(f"expected sqlite:///PATH, got {value!r}")
    path = rest[3:].split("?", 1)[0]
    if not path:
        raise UsageError(f"in-memory sqlite URL is not a brain: {value!r}")
    return Path(path)


def as_path(value: str | Path) -> Path:
    """A user-given location as a path (URLs allowed)."""
    text = str(value)
    return _from_url(text) if "://" in text else Path(text).expanduser()


def find_spikuit_dir(start: Path) -> Path | None:
    """Walk up from ``start`` to the nearest directory holding ``.spikuit/``."""
    here = start.resolve()
    for candidate in (here, *here.parents):
        if (candidate / SPIKUIT_DIR).is_dir():
            return candidate / SPIKUIT_DIR
    return None


def _paths_from_spikuit_dir(spikuit: Path) -> BrainPaths:
    return BrainPaths(
        user_db=spikuit / DB_NAME,
        agent_db=spikuit / AGENT_DIR / DB_NAME,
        project_root=spikuit.parent,
    )


def discover(
    location: str | Path | None = None,
    *,
    user: str | Path | None = None,
    agent: str | Path | None = None,
    cwd: Path | None = None,
) -> BrainPaths:
    """Resolve the brains to open.

    ``location`` may be a project dir, a ``.spikuit`` dir or a ``circuit.db`` file;
    without it we walk up from ``cwd``.  ``user`` / ``agent`` override either brain.
    """
    if user is not None and location is not None:
        raise UsageError("give either a PATH or --user, not both")
    if user is not None:
        user_db = as_path(user)
        agent_db = as_path(agent) if agent is not None else _sibling_agent(user_db)
        return BrainPaths(user_db=user_db, agent_db=agent_db, project_root=None)

    paths = _resolve_location(location, cwd or Path.cwd())
    if agent is not None:
        paths = BrainPaths(paths.user_db, as_path(agent), paths.project_root)
    return paths


def _sibling_agent(user_db: Path) -> Path | None:
    """The agent brain next to a user brain inside a ``.spikuit`` dir, if any."""
    if user_db.name == DB_NAME and user_db.parent.name == SPIKUIT_DIR:
        return user_db.parent / AGENT_DIR / DB_NAME
    return None


def _resolve_location(location: str | Path | None, cwd: Path) -> BrainPaths:
    if location is None:
        spikuit = find_spikuit_dir(cwd)
        if spikuit is None:
            raise NotFoundError(f"no .spikuit/ found in {cwd} or its parents (try: brainview demo)")
        return _paths_from_spikuit_dir(spikuit)

    path = as_path(location)
    if not path.exists():
        raise NotFoundError(f"no such file or directory: {path}")
    if path.is_file():
        # A circuit.db: if it sits in .spikuit/, its sibling agent brain is implied.
        if path.parent.name == SPIKUIT_DIR:
            return _paths_from_spikuit_dir(path.parent)
        if path.parent.name == AGENT_DIR and path.parent.parent.name == SPIKUIT_DIR:
            raise UsageError(f"{path} is an agent brain; pass its project or use --agent")
        return BrainPaths(user_db=path, agent_db=None, project_root=None)
    if path.name == SPIKUIT_DIR:
        spikuit = path
    elif (path / SPIKUIT_DIR).is_dir():
        spikuit = path / SPIKUIT_DIR
    elif (path / DB_NAME).is_file():
        return BrainPaths(user_db=path / DB_NAME, agent_db=None, project_root=None)
    else:
        raise NotFoundError(f"{path} holds no .spikuit/ brain")
    if not (spikuit / DB_NAME).exists():
        raise NotFoundError(f"{spikuit} has no {DB_NAME}")
    return _paths_from_spikuit_dir(spikuit)
