"""A project: the user brain and (maybe) its sibling agent brain, opened together."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from brainview.errors import NotFoundError
from brainview.store.brain import Brain, open_brain
from brainview.store.discovery import BrainPaths, discover


@dataclass
class Project:
    """Both brains of one project; ``agent`` is ``None`` when none exists yet."""

    paths: BrainPaths
    user: Brain
    agent: Brain | None

    @classmethod
    def open(
        cls, paths: BrainPaths, *, write_agent: bool = False, write_user: bool = False
    ) -> Project:
        """Open both brains; only the ones asked for are writable."""
        user = open_brain(paths.user_db, "user", write=write_user, tutor_db=paths.user_tutor_db)
        agent: Brain | None = None
        try:
            if paths.agent_present():  # a directory or dangling link there: refused
                agent = open_brain(paths.agent_db, "agent", write=write_agent)  # type: ignore[arg-type]
        except Exception:
            user.dispose()
            raise
        return cls(paths=paths, user=user, agent=agent)

    @classmethod
    def locate(
        cls,
        location: str | Path | None = None,
        *,
        user: str | Path | None = None,
        agent: str | Path | None = None,
        write_agent: bool = False,
        write_user: bool = False,
    ) -> Project:
        """Discover and open in one step."""
        paths = discover(location, user=user, agent=agent)
        return cls.open(paths, write_agent=write_agent, write_user=write_user)

    def require_agent(self) -> Brain:
        """The agent brain, or a clear error when the project has none yet."""
        if self.agent is None:
            where = self.paths.agent_db or "(no agent location given)"
            raise NotFoundError(f"no agent brain yet at {where} (create it: brainview init-agent)")
        return self.agent

    def moved(self) -> list[str]:
        """Roles whose brain file was replaced or deleted since it was opened, and
        ``"agent"`` when an agent brain appeared (``init-agent``) since."""
        out: list[str] = [b.role for b in (self.user, self.agent) if b is not None and b.moved()]
        if self.agent is None and self.paths.agent_exists:
            out.append("agent")
        return out

    def release_moved(self) -> list[str]:
        """For each brain whose file was replaced: empty the old file's WAL (so the new
        file is read as it is).  Returns the roles whose old WAL another process still
        holds."""
        held: list[str] = []
        for b in (self.user, self.agent):
            if b is not None and b.moved() and not b.release_moved():
                held.append(b.role)
        return held

    def close(self) -> None:
        """Release connections."""
        self.user.dispose()
        if self.agent is not None:
            self.agent.dispose()

    def __enter__(self) -> Project:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
