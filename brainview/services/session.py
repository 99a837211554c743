"""One maintainer's session over a project: the only door both faces use.

A :class:`Session` holds what every use case needs and every face used to wire by hand
— the brains' paths, the typed config, the clock, the decider's name — and keeps one
:class:`~brainview.services.project.Project` per access mode.  The console keeps one
session for its life (workers call it from threads); a CLI command makes one, calls it
and closes it.  Decisions go through :meth:`decide`, :meth:`dismiss` and :meth:`undo`
so the console and ``brainview accept|reject|dismiss|undo`` pass the same arguments to
:mod:`brainview.services.review`; so do reflection lifecycle batches (challenge,
invalidate, reinstate, a blast-radius action, their undo), the reflection-writing
switch and tutor/QABot outcomes.  Reads a face needs for a decision — a queue page, a
proposal's detail, the unit an undo would revert — come through here too.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Literal

from brainview.config import Config
from brainview.config import load as load_config
from brainview.errors import ReadOnlyError
from brainview.services.project import Project
from brainview.store.discovery import BrainPaths

if TYPE_CHECKING:
    from brainview.core.outcomes import OutcomeReport
    from brainview.services.lifecycle import BatchResult, UndoBatchResult
    from brainview.services.lifecycle.blast import BlastAction
    from brainview.services.lifecycle.writing import WritingState
    from brainview.services.outcome.result import OutcomeResult
    from brainview.services.review import DecisionResult
    from brainview.services.review.detail import ProposalDetail
    from brainview.services.review.queue import QueueRow
    from brainview.services.review.revert import UndoResult
    from brainview.services.review.undo_offer import LastUnit, UndoTarget

Clock = Callable[[], datetime]
Verdict = Literal["accept", "reject", "dismiss"]
MovedHandler = Callable[[list[str], set[str]], None]
"""Told which brains changed identity on disk (roles) and which old WALs are held."""


def wall_clock() -> datetime:
    """Now, to the second, in UTC."""
    return datetime.now(UTC).replace(microsecond=0)


def curator_session(paths: BrainPaths, *, runtime: str, now: datetime) -> Session:
    """One curator call's session (MCP): the runtime decides at ``now``, default config."""
    return Session(paths=paths, config=Config(), clock=lambda: now, decider=runtime)


@dataclass
class Session:
    """Paths, config, clock and decider of one maintainer over one project."""

    paths: BrainPaths
    config: Config
    clock: Clock = wall_clock
    decider: str = "maintainer"
    on_moved: MovedHandler | None = None
    on_note: Callable[[str], None] | None = None
    """Told one line per side effect worth a word (a crashed apply recovered)."""
    _projects: dict[tuple[bool, bool], Project] = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @classmethod
    def start(
        cls,
        paths: BrainPaths,
        *,
        config: Config | None = None,
        clock: Clock | None = None,
        decider: str | None = None,
        os_user: Callable[[], str] | None = None,
    ) -> Session:
        """A session: config from the project unless given; decider ``decider``, else
        config ``review.decider``, else the OS user."""
        cfg = config if config is not None else load_config(paths.config_path)
        name = decider or cfg.review.decider or (os_user() if os_user else "maintainer")
        return cls(paths=paths, config=cfg, clock=clock or wall_clock, decider=name)

    # -- brains ---------------------------------------------------------------------

    @contextmanager
    def project(self, *, write_agent: bool = False, write_user: bool = False) -> Iterator[Project]:
        """The project for one unit of work, opened once per access mode and kept.

        Engines pool their connections and are thread-safe; every read is its own
        transaction, so nothing goes stale.  A brain replaced or deleted on disk since
        it was opened is reopened (and :attr:`on_moved` told) before it is used.
        """
        key = (write_agent, write_user)
        with self._lock:
            project = self._projects.get(key)
            moved = project.moved() if project is not None else []
            if moved and project is not None:
                held = set(project.release_moved())
                self._close_all()
                if self.on_moved is not None:
                    self.on_moved(moved, held)
                project = None
            if project is None:
                project = Project.open(self.paths, write_agent=write_agent, write_user=write_user)
                self._projects[key] = project
        yield project

    @contextmanager
    def deciding(self, *, user: bool) -> Iterator[Project]:
        """Agent writable, user brain too if ``user`` (open apply intents finished first)."""
        from brainview.services import apply

        with self.project(write_agent=True, write_user=user) as project:
            if user:
                for done in apply.recover(project, now=self.clock()):
                    if self.on_note is not None:
                        self.on_note(f"recovered {done.action} of {done.proposal_id}: {done.state}")
            yield project

    @property
    def open_modes(self) -> list[tuple[bool, bool]]:
        """The access modes (write agent, write user) opened so far."""
        with self._lock:
            return list(self._projects)

    def close(self) -> None:
        """Release every connection (the session can be used again afterwards)."""
        with self._lock:
            self._close_all()

    def _close_all(self) -> None:
        for project in self._projects.values():
            project.close()
        self._projects.clear()

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- decisions ------------------------------------------------------------------

    def decide(
        self,
        ids: Sequence[str],
        verdict: Verdict,
        *,
        reason: str | None = None,
        seconds_on_screen: float | None = None,
        policy_text: str | None = None,
        confirmed_flags: Collection[str] | None = None,
    ) -> list[DecisionResult]:
        """Decide ``ids`` in one agent-brain transaction (all or none) as this
        session's decider, with the project's review settings; an accept applies the
        change to the user brain when its kind has an applier."""
        from brainview.services import apply, review

        cfg = self.config.review
        applier = apply.applier_for(self.paths) if verdict == "accept" else None
        with self.deciding(user=applier is not None) as project:
            return review.decide_many(
                project,
                list(ids),
                verdict,
                reason=reason,
                decider=self.decider,
                seconds_on_screen=seconds_on_screen,
                now=self.clock(),
                applier=applier,
                write_reflections=cfg.write_reflections,
                annotate_grade=cfg.annotate_grade,
                policy_text=policy_text,
                confirmed_flags=confirmed_flags,
            )

    def undo(self, decision_id: str | None = None) -> list[UndoResult]:
        """Undo a decision and the rest of its bulk as one unit (``None``: the
        project's last); an applied one is reverted in the user brain too, so the user
        brain is opened writable when it can be."""
        from brainview.services import review

        with ExitStack() as stack:
            try:
                project = stack.enter_context(self.deciding(user=True))
            except ReadOnlyError:  # a read-only user brain: only agent-side undo works
                project = stack.enter_context(self.project(write_agent=True))
            return review.undo_unit(project, decision_id, now=self.clock(), actor=self.decider)
        raise AssertionError("unreachable")  # pragma: no cover

    def dismiss(self, proposal_id: str, reason: str | None = None) -> DecisionResult:
        """Set one proposal aside (a stale one's reason is recorded when none is given)."""
        from brainview.services import review

        with self.deciding(user=False) as project:
            return review.dismiss(
                project, proposal_id, reason, decider=self.decider, now=self.clock()
            )

    def undo_target(self, ident: str | None = None) -> UndoTarget:
        """What undoing ``ident`` (decision or proposal id; ``None``: the last) reverts."""
        from brainview.services.review.undo_offer import undo_target

        with self.project() as project:
            return undo_target(project, ident)

    def undo_named(self, target: UndoTarget) -> list[UndoResult]:
        """Undo the unit of :meth:`undo_target` (user brain writable only if applied)."""
        from brainview.services import review

        with self.deciding(user=target.applied) as project:
            did = str(target.decision["id"])
            return review.undo_unit(project, did, now=self.clock(), actor=self.decider)

    def last_unit(self) -> LastUnit | None:
        """The decision ``undo --last`` would revert now, with its bulk's size."""
        from brainview.services.review.undo_offer import last_unit

        with self.project() as project:
            return last_unit(project)

    def queue_page(
        self, *, status: str = "pending", sort: str = "age", needle: str = "", offset: int = 0
    ) -> tuple[list[QueueRow], int]:
        """One page of the queue and the total matching."""
        from brainview.services.review import queue

        with self.project() as project:
            return queue.page(project, status=status, sort=sort, needle=needle, offset=offset)

    def detail(self, proposal_id: str) -> ProposalDetail:
        """One proposal with both brains' context, as of this session's clock."""
        from brainview.services.review import detail

        with self.project() as project:
            return detail.load(project, proposal_id, self.clock())

    # -- reflections, outcomes -------------------------------------------------------

    def lifecycle(self, verb: str, ids: Sequence[str], reason: str = "") -> BatchResult:
        """``challenge``, ``invalidate`` or ``reinstate`` reflections as one batch."""
        from brainview.services import lifecycle

        with self.project(write_agent=True) as project:
            return lifecycle.run_batch(
                project, verb, ids, reason=reason, actor=self.decider, now=self.clock()
            )

    def blast(self, action: BlastAction) -> BatchResult:
        """A blast-radius action (a verb over reflections plus proposals to flag)."""
        from brainview.services.lifecycle import blast

        with self.project(write_agent=True) as project:
            return blast.apply(project, action, actor=self.decider, now=self.clock())

    def undo_lifecycle(self, batch_id: str | None = None) -> UndoBatchResult:
        """Revert a lifecycle batch exactly (``None``: the most recent one)."""
        from brainview.services import lifecycle

        with self.project(write_agent=True) as project:
            return lifecycle.undo_batch(project, batch_id, actor=self.decider, now=self.clock())

    def writing(self) -> WritingState:
        """Whether rejections write reflections (the project's switch)."""
        from brainview.services.lifecycle import writing

        with self.project() as project:
            return writing.state(project)

    def set_writing(self, enabled: bool, reason: str | None = None) -> tuple[WritingState, bool]:
        """Pause or resume reflection writing; the new state and whether it changed."""
        from brainview.services.lifecycle import writing

        with self.project(write_agent=True) as project:
            return writing.set_writing(
                project, enabled=enabled, actor=self.decider, now=self.clock(), reason=reason
            )

    def report_outcome(
        self, report: OutcomeReport, *, decider: str | None = None, source: str = "api"
    ) -> OutcomeResult:
        """Record a tutor/QABot outcome (``decider``: else this session's decider)."""
        from brainview.services import outcome

        with self.project(write_agent=True) as project:
            return outcome.report_outcome(
                project, report, decider=decider or self.decider, now=self.clock(), source=source
            )

    def undo_outcome(self, outcome_id: str) -> UndoResult:
        """Undo a recorded outcome exactly."""
        from brainview.services import outcome

        with self.project(write_agent=True) as project:
            return outcome.undo_outcome(project, outcome_id, now=self.clock(), actor=self.decider)
