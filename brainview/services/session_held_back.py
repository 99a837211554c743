"""The session's held-back drafts: the curator's report, the lane, the verdicts and their
undo, each write checked against the role first.

Mixed into :class:`brainview.services.session.Session` beside
:class:`~brainview.services.session_writes.SessionWrites`; the CLI (``brainview
held-back``), the MCP tool ``report_held_back`` and the triage lane all come through
here (:mod:`brainview.services.held_back` does the work).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from brainview.config import Config
    from brainview.core import roles
    from brainview.services.held_back import HeldBackItem
    from brainview.services.project import Project


class SessionHeldBack:
    """Report, list, decide and undo held-back drafts."""

    if TYPE_CHECKING:
        config: Config
        decider: str
        clock: Callable[[], datetime]

        def require(self, action: roles.Action) -> None: ...

        def project(
            self, *, write_agent: bool = False, write_user: bool = False
        ) -> AbstractContextManager[Project]: ...

    def report_held_back(
        self, value: Any, *, source: str = "api", runtime: str | None = None
    ) -> dict[str, Any]:
        """Record a draft the curator withdrew or rewrote after recall (shape checked
        first, with no brain); ``runtime``: the reporting identity when the report names
        none (else this session's decider)."""
        from brainview.services import held_back

        now = self.clock()
        report, draft = held_back.parse_report(value, now)
        self.require("report_held_back")
        with self.project(write_agent=True) as project:
            return held_back.report_held_back(
                project, report, draft, runtime=runtime or self.decider, now=now, source=source
            )

    def held_back_lane(self, *, everything: bool = False, limit: int = 200) -> list[HeldBackItem]:
        """The held-back lane, suspect lessons' drafts first (``everything``: every reported
        draft, newest first)."""
        from brainview.services import held_back
        from brainview.services.influence import settings_of

        with self.project() as project:
            return held_back.lane(
                project, self.config.held_back, everything=everything, limit=limit,
                signals=settings_of(self.config.signals),
            )  # fmt: skip

    def held_back_item(self, held_back_id: str) -> HeldBackItem:
        """One reported draft, its lessons, why the lane shows it and its verdict."""
        from brainview.services import held_back

        with self.project() as project:
            return held_back.show(project, held_back_id, self.config.held_back)

    def decide_held_back(
        self, held_back_id: str, verdict: str, reason: str | None = None
    ) -> dict[str, Any]:
        """``should_have_proposed`` (queued; opposing lessons graded miss) or
        ``rightly_held_back`` (opposing lessons graded strong)."""
        from brainview.services import held_back

        self.require("decide_held_back")
        with self.project(write_agent=True) as project:
            return held_back.decide(
                project, held_back_id, verdict, decider=self.decider, now=self.clock(),
                reason=reason, write_lesson=self.config.review.write_reflections,
            )  # fmt: skip

    def undo_held_back(self, ident: str) -> dict[str, Any]:
        """Undo the standing verdict on a held-back draft (its id or the decision id)
        exactly; someone else's verdict needs the role that undoes others' decisions."""
        from brainview.services import held_back

        self.require("undo_own")
        self.require("decide_held_back")
        with self.project() as project:
            found = held_back.standing_of(project, ident)
        if str(found["decider"]) != self.decider:
            self.require("undo_other")
        with self.project(write_agent=True) as project:
            return held_back.undo(project, ident, actor=self.decider, now=self.clock())
