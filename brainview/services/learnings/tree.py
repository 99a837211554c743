"""Where a project's ``.learnings/`` tree is: relative to the project that is open.

The project is the directory holding the ``.spikuit/`` whose agent brain is open (found
from the brain file itself, so a copied project — ``cp -a`` — writes its own tree,
never the original's).  The agent brain records the tree's path *relative* to that
directory; an older brain's absolute path is used only for the part of it that lies
inside the open project, and refused otherwise: a path written in a brain never sends a
write anywhere else.  Every file operation then walks down from the project directory
without following links (:mod:`brainview.store.learnings_fd`).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from sqlalchemy import Connection

from brainview.core.learnings_parse import HOT_FILES
from brainview.core.safe_text import one_line
from brainview.errors import BadPathError, NotFoundError
from brainview.store import learnings_fd as fdio
from brainview.store import learnings_rows as lrows
from brainview.store.discovery import AGENT_DIR, DB_NAME, SPIKUIT_DIR
from brainview.store.learnings_files import Tree

__all__ = ["Tree", "import_at", "project_of", "recorded_tree", "require_dir", "standalone",
           "tree_of"]  # fmt: skip


def project_of(agent_db: str | os.PathLike[str]) -> Path:
    """The project directory of an agent brain at ``<project>/.spikuit/agent/circuit.db``
    (BadPathError: the brain is elsewhere, so no tree can be placed relative to it)."""
    real = Path(os.path.realpath(agent_db)) if str(agent_db) else Path()
    if (real.name, real.parent.name, real.parent.parent.name) != (DB_NAME, AGENT_DIR, SPIKUIT_DIR):
        raise BadPathError(
            f"the agent brain {one_line(str(agent_db), 200)} is not in a project's "
            f"{SPIKUIT_DIR}/{AGENT_DIR}/: a .learnings tree is kept only beside such a brain"
        )
    return real.parent.parent.parent


def _inside(project: Path, path: str) -> tuple[str, ...] | None:
    """``path``'s components below ``project`` (as written, else with links resolved);
    ``None`` when it is not inside."""
    for candidate in (os.path.normpath(path), os.path.realpath(path)):
        try:
            return Path(candidate).relative_to(project).parts
        except ValueError:
            continue
    return None


def _tree(project: Path, parts: tuple[str, ...], shown: str) -> Tree:
    if not parts:
        raise BadPathError(f"{shown}: a .learnings tree cannot be the project directory itself")
    if parts[0] == SPIKUIT_DIR:
        raise BadPathError(f"{shown}: a .learnings tree cannot live inside {SPIKUIT_DIR}/")
    for name in parts:
        fdio.check_name(name, shown)
    return Tree(project, parts)


def recorded_tree(project: Path, stored: str) -> Tree:
    """The tree a brain records (``stored``: relative, or an older absolute path that
    must lie inside ``project``)."""
    shown = one_line(stored, 200)
    if os.path.isabs(stored):
        parts = _inside(project, stored)
        if parts is None:
            raise BadPathError(
                f"the .learnings tree recorded in the agent brain ({shown}) is outside the "
                f"open project {project}; nothing written (import the tree again from "
                "this project: brainview learnings import DIR)"
            )
        return _tree(project, parts, shown)
    parts = tuple(stored.split("/"))
    if any(p in ("", ".", "..") for p in parts):
        raise BadPathError(
            f"the recorded .learnings tree {shown!r} is not a path inside the project"
        )
    return _tree(project, parts, shown)


def tree_of(conn: Connection) -> tuple[Tree, str] | None:
    """The imported tree and its HOT file, resolved in the project of ``conn``'s agent
    brain (``None``: nothing imported yet)."""
    recorded = lrows.root(conn)
    if recorded is None:
        return None
    stored, hot_file = recorded
    if hot_file not in HOT_FILES:
        raise BadPathError(
            f"the recorded HOT file {one_line(hot_file, 80)!r} is not one of "
            f"{', '.join(HOT_FILES)}; nothing written"
        )
    return recorded_tree(project_of(lrows.db_file(conn)), stored), hot_file


def import_at(project: Path, directory: str | os.PathLike[str]) -> Tree:
    """The tree at ``directory``, which must lie inside ``project``."""
    parts = _inside(project, os.path.abspath(directory))
    if parts is None:
        raise BadPathError(
            f"{one_line(str(directory), 200)} is outside the project {project}: a .learnings "
            "tree is imported only from inside the project holding its brains (import it "
            "without --into to use its parent directory, or move it into the project)"
        )
    return _tree(project, parts, one_line(str(directory), 200))


def require_dir(path: str | os.PathLike[str]) -> Path:
    """``path`` (absolute) if it is a directory itself, not a link to one; a one-line
    NotFoundError / BadPathError otherwise."""
    shown = one_line(str(path), 200)
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        raise NotFoundError(f"no such directory: {shown}") from None
    except OSError as err:
        raise BadPathError(f"cannot read {shown} ({err.strerror})") from None
    if stat.S_ISLNK(st.st_mode):
        raise BadPathError(f"{shown} is a symbolic link; name the directory itself")
    if not stat.S_ISDIR(st.st_mode):
        raise BadPathError(f"{shown} is not a directory")
    return Path(os.path.abspath(path))


def standalone(directory: str | os.PathLike[str]) -> Tree:
    """The tree at ``directory`` on its own (read-only uses such as a dry run): placed
    in its parent directory, walked from there without following links."""
    absolute = Path(os.path.abspath(directory))
    return _tree(Path(os.path.realpath(absolute.parent)), (absolute.name,), str(directory))
