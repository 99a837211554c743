"""The session's writes that bring new material into the agent brain, role-checked.

Mixed into :class:`brainview.services.session.Session` beside
:class:`~brainview.services.session_writes.SessionWrites`: curator proposals (``propose``,
MCP ``propose``), a ``spkt consolidate --json`` plan, a ``.learnings/`` tree and its tier
moves.  These used to open the agent brain writable from the face; now every face asks
the session, so the role check holds on them too and only :meth:`Session.project`
opens a brain for writing.  A dry run opens nothing writable and takes no role check
beyond reading.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable

    from brainview.core import roles
    from brainview.services.intake import Proposal
    from brainview.services.learnings.importing import ImportResult
    from brainview.services.learnings.planning import PlanResult
    from brainview.services.project import Project


class SessionIntake:
    """Proposals, plans and ``.learnings/`` imports, each checked against the role."""

    if TYPE_CHECKING:
        clock: Callable[[], datetime]

        def require(self, action: roles.Action) -> None: ...

        def project(
            self, *, write_agent: bool = False, write_user: bool = False
        ) -> AbstractContextManager[Project]: ...

    def propose(
        self,
        value: Any,
        *,
        source: str = "cli",
        dry_run: bool = False,
        recall: str | None = None,
    ) -> list[Proposal]:
        """Validate a proposal object or list (shape first, with no brain) and, unless
        ``dry_run``, queue it all or nothing."""
        from brainview.services import intake

        now = self.clock()
        intake.parse_batch(value, now)  # shape errors need no brain: report them first
        if not dry_run:
            self.require("propose")
        with self.project(write_agent=not dry_run) as project:
            return intake.submit(
                project, value, source=source, dry_run=dry_run, now=now, recall=recall
            )

    def import_spkt_plan(self, plan: Any, *, dry_run: bool = False) -> list[Proposal]:
        """A ``spkt consolidate --json`` plan as proposals, one per item, all or none."""
        from brainview.services.intake import spkt_plan

        if not dry_run:
            self.require("propose")
        with self.project(write_agent=not dry_run) as project:
            return spkt_plan.import_plan(
                project, plan, source="spkt-plan", now=self.clock(), dry_run=dry_run
            )

    def import_learnings(self, root: str | Path) -> ImportResult:
        """Import a ``.learnings/`` tree inside the open project into the agent brain."""
        from brainview.services.learnings.importing import import_tree

        self.require("import")
        with self.project(write_agent=True) as project:
            return import_tree(project, root, now=self.clock())

    def queue_tier_moves(self, *, dry_run: bool = False) -> PlanResult:
        """Plan the imported tree's tier moves and (unless ``dry_run``) queue them."""
        from brainview.services.learnings.planning import plan_moves

        if not dry_run:
            self.require("propose")
        with self.project(write_agent=not dry_run) as project:
            return plan_moves(project, now=self.clock(), dry_run=dry_run)
