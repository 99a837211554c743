"""The session's writes beyond proposal decisions, each checked against the role.

Mixed into :class:`brainview.services.session.Session`: reflection lifecycle batches
(challenge, invalidate, reinstate, a blast-radius action, their undo), the
reflection-writing switch, tutor/QABot outcomes, rescue / let-go of fading
reflections, consolidation planning and queueing, finishing interrupted applies and
exporting a view to a file.  Every method first calls :meth:`require` with its
:data:`brainview.core.roles.Action`, so a refused call opens nothing for writing and
writes no row (:mod:`brainview.core.roles` is the table).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from brainview.core import fsrs_math, roles
from brainview.core.identity import Role
from brainview.core.roles import LIFECYCLE_VERBS
from brainview.errors import RefusedError, RoleRefusedError

if TYPE_CHECKING:
    from brainview.config import Config
    from brainview.core.outcomes import OutcomeReport
    from brainview.core.two_person import Rules
    from brainview.services.apply.runner import Outcome
    from brainview.services.consolidate.model import ConsolidationPlan
    from brainview.services.lifecycle import BatchResult, UndoBatchResult
    from brainview.services.lifecycle.blast import BlastAction
    from brainview.services.lifecycle.writing import WritingState
    from brainview.services.outcome.result import OutcomeResult
    from brainview.services.project import Project
    from brainview.services.review.revert import UndoResult
    from brainview.services.review.undo_offer import UndoTarget
    from brainview.store.discovery import BrainPaths


class SessionWrites:
    """The role checks, and the role-checked writes on reflections, outcomes and
    consolidation."""

    if TYPE_CHECKING:
        paths: BrainPaths
        config: Config
        decider: str
        role: Role
        clock: Callable[[], datetime]

        def project(
            self, *, write_agent: bool = False, write_user: bool = False
        ) -> AbstractContextManager[Project]: ...

        def deciding(self, *, user: bool) -> AbstractContextManager[Project]: ...

        def two_person_rules(self) -> Rules: ...

    # -- the role --------------------------------------------------------------------

    def can(self, action: roles.Action) -> bool:
        """Whether this session's role may do ``action``."""
        return roles.allows(self.role, action)

    def require(self, action: roles.Action) -> None:
        """Refuse ``action`` (one line naming the role needed) unless the role allows it."""
        why = roles.refusal(action, self.decider, self.role)
        if why is not None:
            raise RoleRefusedError(why)

    def _require_kinds(self, ids: Sequence[str]) -> None:
        """Deciding a consolidation's proposals needs what consolidating needs."""
        if self.can("decide_consolidation"):
            return
        from brainview.core.kinds import is_agent_kind
        from brainview.store.decision_reads import proposal_kinds

        with self.project() as project:
            if project.agent is None:
                return
            with project.agent.read() as conn:
                kinds = proposal_kinds(conn, list(ids)) or []
        if any(is_agent_kind(k) for k in kinds):
            self.require("decide_consolidation")

    def _require_undo(self, target: UndoTarget) -> None:
        """Undoing needs a reviewer; someone else's decision (any of a bulk's), or a
        consolidation item's, needs a maintainer."""
        self.require("undo_own")
        if any(str(d.get("decider")) != self.decider for d in target.unit):
            self.require("undo_other")
        self._require_kinds([str(d["proposal_id"]) for d in target.unit])

    # -- reflection lifecycle --------------------------------------------------------

    def lifecycle(self, verb: str, ids: Sequence[str], reason: str = "") -> BatchResult:
        """``challenge``, ``invalidate`` or ``reinstate`` reflections as one batch."""
        from brainview.services import lifecycle

        action = LIFECYCLE_VERBS.get(verb)
        self.require(action if action is not None else "invalidate")
        if verb == "invalidate" and self._invalidation_needs_two():
            from brainview.services.review import approvals_invalidate

            with self.project(write_agent=True) as project:
                return approvals_invalidate.invalidate(
                    project, ids, reason=reason, actor=self.decider, now=self.clock()
                )
        with self.project(write_agent=True) as project:
            return lifecycle.run_batch(
                project, verb, ids, reason=reason, actor=self.decider, now=self.clock()
            )

    def blast(self, action: BlastAction) -> BatchResult:
        """A blast-radius action (a verb over reflections plus proposals to flag)."""
        from brainview.services.lifecycle import blast

        verb = LIFECYCLE_VERBS.get(action.verb)
        self.require(verb if verb is not None else "blast")  # named for what it does
        self.require("blast")
        if action.verb == "invalidate" and self._invalidation_needs_two():
            from brainview.services import lifecycle
            from brainview.services.review import approvals_invalidate

            now = self.clock()

            def flags(log: Any, _changed: list[str]) -> list[str]:
                at = fsrs_math.format_ts(now)
                return blast.flag(
                    log, action.flag_proposals, action.reflections, lifecycle.TARGET["invalidate"],
                    action.reason, at,
                )  # fmt: skip

            with self.project(write_agent=True) as project:
                return approvals_invalidate.invalidate(
                    project, action.reflections, reason=action.reason, actor=self.decider,
                    now=now, flags=flags,
                )  # fmt: skip
        with self.project(write_agent=True) as project:
            return blast.apply(project, action, actor=self.decider, now=self.clock())

    def _invalidation_needs_two(self) -> bool:
        from brainview.core.two_person import invalidation_rule

        return invalidation_rule(self.two_person_rules())

    def undo_lifecycle(self, batch_id: str | None = None) -> UndoBatchResult:
        """Revert a lifecycle batch exactly (``None``: the most recent one)."""
        from brainview.services import lifecycle

        self.require("undo_lifecycle")
        with self.project(write_agent=True) as project:
            return lifecycle.undo_batch(project, batch_id, actor=self.decider, now=self.clock())

    # -- the writing switch ----------------------------------------------------------

    def writing(self) -> WritingState:
        """Whether rejections write reflections (the project's switch)."""
        from brainview.services.lifecycle import writing

        with self.project() as project:
            return writing.state(project)

    def set_writing(self, enabled: bool, reason: str | None = None) -> tuple[WritingState, bool]:
        """Pause or resume reflection writing; the new state and whether it changed."""
        from brainview.services.lifecycle import writing

        self.require("writing")
        with self.project(write_agent=True) as project:
            return writing.set_writing(
                project, enabled=enabled, actor=self.decider, now=self.clock(), reason=reason
            )

    def toggle_writing(self) -> WritingState:
        """Pause reflection writing if it runs, resume it if paused; the new state."""
        from brainview.services.lifecycle import writing

        self.require("writing")
        with self.project(write_agent=True) as project:
            paused = writing.state(project).paused
            new, _changed = writing.set_writing(
                project, enabled=paused, actor=self.decider, now=self.clock()
            )
        return new

    # -- outcomes ------------------------------------------------------------------

    def report_outcome(
        self, report: OutcomeReport, *, decider: str | None = None, source: str = "api"
    ) -> OutcomeResult:
        """Record a tutor/QABot outcome (``decider``: else this session's decider)."""
        from brainview.services import outcome

        self.require("outcome")
        with self.project(write_agent=True) as project:
            return outcome.report_outcome(
                project, report, decider=decider or self.decider, now=self.clock(), source=source
            )

    def undo_outcome(self, outcome_id: str) -> UndoResult:
        """Undo a recorded outcome exactly."""
        from brainview.services import outcome

        self.require("outcome")
        with self.project(write_agent=True) as project:
            return outcome.undo_outcome(project, outcome_id, now=self.clock(), actor=self.decider)

    # -- fading reflections --------------------------------------------------------

    def decide_fading(self, reflection_id: str, action: str, *, threshold: float) -> int:
        """Rescue (``rescue``) or let go (``let_go``) a fading reflection; the decision id."""
        from brainview.services.communities.curves import decide_fading

        self.require("fading")
        with self.project(write_agent=True) as project:
            return decide_fading(
                project,
                reflection_id,
                action,
                decider=self.decider,
                now=self.clock(),
                threshold=threshold,
            )

    def undo_fading(self, decision_id: int) -> None:
        """Withdraw a standing rescue / let-go decision."""
        from brainview.services.communities.curves import undo_fading_decision

        self.require("fading")
        with self.project(write_agent=True) as project:
            undo_fading_decision(project, decision_id, actor=self.decider, now=self.clock())

    # -- consolidation -------------------------------------------------------------

    def queue_consolidation(self, plan: ConsolidationPlan) -> list[str]:
        """Store every planned item as a proposal (one transaction); their ids."""
        from brainview.services import consolidate

        self.require("consolidate")
        with self.project(write_agent=True) as project:
            return consolidate.queue(project, plan, now=self.clock())

    # -- housekeeping --------------------------------------------------------------

    def recover(self) -> int:
        """Finish (or roll back) user-brain changes a crash left half-done; how many.
        Nothing to do, or a role that may not write: 0, nothing opened for writing."""
        from brainview.services import apply

        with self.project() as project:
            waiting = apply.open_intents(project)
        if not waiting or not self.can("recover"):
            return 0
        return len(self.recover_all())

    def recover_all(self, *, roll_back: bool = False) -> list[Outcome]:
        """``brainview recover``: finish every interrupted apply or undo (``roll_back``:
        undo the decisions whose user-brain change is not there yet); what happened."""
        from brainview.services import apply

        self.require("recover")
        with self.project() as project:
            if project.agent is None or not apply.open_intents(project):
                return []
        with self.project(write_agent=True, write_user=True) as project:
            return apply.recover(project, now=self.clock(), roll_back_all=roll_back)

    def export_rows(self, rows: Sequence[dict[str, Any]], path: Path) -> int:
        """Write ``rows`` to a new ``.csv`` / ``.json`` file; the count."""
        from brainview.services.readout.view_export import export_rows

        self.require("export")
        if getattr(self, "signed_in", False):  # a served console: never a server path
            raise RefusedError(
                "export: a signed-in console saves by file name into the project's exports/"
            )
        return export_rows(rows, path)

    def export_served(self, rows: Sequence[dict[str, Any]], name: str) -> str:
        """Write ``rows`` to ``exports/NAME`` inside the project (a served console's only
        way out: a plain name, no link followed, nothing replaced); the name as shown."""
        from brainview.services.team.exports import write_served_export

        self.require("export")
        root = self.paths.project_root or self.paths.spikuit_dir.parent
        return write_served_export(rows, root, name)
