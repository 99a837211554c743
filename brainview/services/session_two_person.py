"""The session's two-person rule: votes held, withdrawn, listed, and agreement.

Mixed into :class:`brainview.services.session.Session`.  :meth:`Session.decide` asks
:meth:`_two_person_plan` which proposals a vote only holds; the invalidation door is
:meth:`~brainview.services.session_writes.SessionWrites.lifecycle` (and ``blast``).
Every write here checks the role first, like every other session write.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import TYPE_CHECKING, Any

from brainview.core import roles
from brainview.errors import InvalidInputError

if TYPE_CHECKING:
    from brainview.config import Config
    from brainview.core.two_person import Rules
    from brainview.services.project import Project
    from brainview.services.review import DecisionResult
    from brainview.services.review.approvals import OpenApproval, Plan
    from brainview.store.discovery import BrainPaths


class SessionTwoPerson:
    """Votes under the two-person rule, and the agreement they measure."""

    if TYPE_CHECKING:
        paths: BrainPaths
        config: Config
        decider: str
        clock: Callable[[], datetime]

        def project(
            self, *, write_agent: bool = False, write_user: bool = False
        ) -> AbstractContextManager[Project]: ...

        def require(self, action: roles.Action) -> None: ...

        def _require_kinds(self, ids: Sequence[str]) -> None: ...

    def two_person_rules(self) -> Rules:
        """The project's rules now (``[two_person]``; on by default with 2+ people)."""
        from brainview.services.team.two_person import rules_for

        return rules_for(self.paths, self.config.two_person)

    def _two_person_plan(
        self, ids: Sequence[str], verdict: str, policy_text: str | None = None
    ) -> Plan | None:
        """``None`` when the rule is off (the decision goes through as always).  An
        edited policy text goes with the accept that applies it (the second person's):
        refused, nothing written, on a vote that would only be held."""
        rules = self.two_person_rules()
        if not rules.enabled or verdict == "dismiss":
            return None
        from brainview.services.review.approvals import plan

        with self.project() as project:
            found = plan(project, ids, verdict, self.decider, rules)
        if found.hold and policy_text is not None:
            raise InvalidInputError(
                "this policy needs two people: accept the draft as the first, and the "
                "second person, whose accept applies it, may edit its text"
            )
        return found if found.hold or found.check else None

    def _second_vote_check(self, plan: Plan | None) -> Callable[[Any], None] | None:
        """What the decision's transaction re-reads first: the other person's vote on
        each two-person proposal still stands (``None``: nothing to check)."""
        if plan is None or not plan.check:
            return None
        from brainview.services.review.approvals import check_final

        check, decider = dict(plan.check), self.decider

        def inside(conn: Any) -> None:
            check_final(conn, check, decider)

        return inside

    def _hold_votes(self, plan: Plan, verdict: str, reason: str | None) -> list[DecisionResult]:
        from brainview.services.review.approvals import hold

        with self.project(write_agent=True) as project:
            return hold(
                project, plan.hold, verdict, decider=self.decider, now=self.clock(), reason=reason
            )

    def withdraw_approval(self, ident: str, reason: str | None = None) -> dict[str, Any]:
        """Withdraw an open vote (by vote id, proposal id or ``invalidate:…``): its
        author or anyone who may decide the subject; what was withdrawn."""
        from brainview.services.review.approvals import withdraw

        self.require("decide")
        if ident.startswith("invalidate:"):
            self.require("invalidate")
        else:
            with self.project() as project:
                from brainview.services.review.approvals import open_for

                found = open_for(project, [ident])
            if ident in found and found[ident].kind == "invalidate":
                self.require("invalidate")
            elif ident in found:
                self._require_kinds([ident])
        with self.project(write_agent=True) as project:
            return withdraw(project, ident, actor=self.decider, now=self.clock(), reason=reason)

    def open_approvals(self) -> list[OpenApproval]:
        """Every vote waiting for a second person (read)."""
        from brainview.services.review.approvals import open_approvals

        with self.project() as project:
            return open_approvals(project)

    def approvals_for(self, subjects: Sequence[str]) -> dict[str, OpenApproval]:
        """Subject → its open vote, for a page of the queue (read)."""
        from brainview.services.review.approvals import open_for

        with self.project() as project:
            return open_for(project, subjects)

    def agreement(self) -> dict[str, Any]:
        """Agreement of the people who decided the same items (read)."""
        from brainview.services.metrics.agreement import agreement

        with self.project() as project:
            return agreement(project)
