"""Apply or record only: the project setting, and the applier ``review`` calls.

``review.record_only = true`` in ``.spikuit/brainview.toml`` (or the user config)
makes an accept only record the decision and fire the grades: the team's curator
applies accepted proposals itself.  Otherwise brainview applies them to the user
brain (:class:`UserBrainApplier`), except in a brain older than Spikuit 0.7, which
cannot be changed the way Spikuit does (accepts are then refused with a message).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from brainview import config
from brainview.services.apply import intent as intents
from brainview.services.apply.planner import apply_era_problem
from brainview.services.apply.runner import Outcome, carry_out
from brainview.services.project import Project
from brainview.store.brain import open_brain
from brainview.store.discovery import BrainPaths

MODE_APPLY = "apply"
"""Accepting applies the change to the user brain."""
MODE_RECORD_ONLY = "record-only"
"""Accepting records the decision and grades only (config ``review.record_only``)."""
MODE_UNSUPPORTED = "apply unavailable (user brain predates Spikuit 0.7)"
"""Apply mode is configured but the user brain's schema cannot take it."""


def apply_mode(paths: BrainPaths) -> str:
    """Which of :data:`MODE_APPLY`, :data:`MODE_RECORD_ONLY`, :data:`MODE_UNSUPPORTED`
    is in force, for the screen to show (raises ConfigError on a bad config file)."""
    if config.load(paths.config_path).review.record_only:
        return MODE_RECORD_ONLY
    brain = open_brain(paths.user_db, "user", tutor_db=paths.user_tutor_db)
    try:
        problem = apply_era_problem(brain.era)
    finally:
        brain.dispose()
    return MODE_UNSUPPORTED if problem else MODE_APPLY


class UserBrainApplier:
    """The applier :func:`brainview.services.review.decide` takes to apply accepted
    proposals (open the project with ``write_user=True``)."""

    def __call__(self, project: Project, result: object) -> None:
        """Apply one recorded decision (the generic ``Applier`` seam)."""
        self.apply(project, [str(result.decision_id)])  # type: ignore[attr-defined]

    def apply(
        self, project: Project, decision_ids: Sequence[str], *, now: datetime | None = None
    ) -> list[Outcome]:
        """Carry out the pending apply intents of these decisions, in one user-brain
        transaction (all or none; see :mod:`brainview.services.apply.runner`)."""
        agent = project.require_agent()
        with agent.read() as aconn:
            batch = [
                it
                for d in decision_ids
                if (it := intents.of_decision(aconn, d, "apply")) is not None
                and it.state == intents.PENDING
            ]
        return carry_out(project, batch, now=now)


def applier_for(paths: BrainPaths) -> UserBrainApplier | None:
    """The applier to pass to ``review.decide``: ``None`` in record-only mode."""
    if config.load(paths.config_path).review.record_only:
        return None
    return UserBrainApplier()
