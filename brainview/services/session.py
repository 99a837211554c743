"""One person's session over a project: the only door both faces use.

A :class:`Session` holds what every use case needs and every face used to wire by hand
— the brains' paths, the typed config, the clock, the decider's name and role — and
keeps one :class:`~brainview.services.project.Project` per access mode.  The console keeps one
session for its life (workers call it from threads); a CLI command makes one, calls it
and closes it.  Decisions go through :meth:`decide`, :meth:`dismiss` and :meth:`undo`
so the console and ``brainview accept|reject|dismiss|undo`` pass the same arguments to
:mod:`brainview.services.review`; so do reflection lifecycle batches (challenge,
invalidate, reinstate, a blast-radius action, their undo), the reflection-writing
switch and tutor/QABot outcomes (:mod:`brainview.services.session_writes`).  Reads a
face needs for a decision — a queue page, a proposal's detail, the unit an undo would
revert — come through here too.

Every write checks the session's role first (:mod:`brainview.core.roles`): a refused
call raises :class:`~brainview.errors.RoleRefusedError` naming the role needed, before
any brain is opened for writing.  A session started by hand is the ``maintainer``; one
started for a signed-in person (:class:`~brainview.core.identity.Identity`) decides
under their name with their role.  A face never opens a brain for writing itself.
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
from brainview.core.identity import Identity, Role
from brainview.errors import ReadOnlyError
from brainview.services.session_held_back import SessionHeldBack
from brainview.services.session_intake import SessionIntake
from brainview.services.session_two_person import SessionTwoPerson
from brainview.services.session_writes import SessionWrites
from brainview.store.discovery import BrainPaths

if TYPE_CHECKING:
    from brainview.services.project import Project
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
class Session(SessionWrites, SessionIntake, SessionHeldBack, SessionTwoPerson):
    """Paths, config, clock, decider and role of one person over one project."""

    paths: BrainPaths
    config: Config
    clock: Clock = wall_clock
    decider: str = "maintainer"
    role: Role = "maintainer"
    signed_in: bool = False
    """Started for a signed-in person (``brainview serve``), not by hand."""
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
        identity: Identity | None = None,
    ) -> Session:
        """A session: config from the project unless given; decider the signed-in
        person's name (``identity``, with their role), else ``decider``, else config
        ``review.decider``, else the OS user — those three as ``maintainer``."""
        cfg = config if config is not None else load_config(paths.config_path)
        clock = clock or wall_clock
        if identity is not None:
            return cls(
                paths=paths,
                config=cfg,
                clock=clock,
                decider=identity.name,
                role=identity.role,
                signed_in=True,
            )
        name = decider or cfg.review.decider or (os_user() if os_user else "maintainer")
        return cls(paths=paths, config=cfg, clock=clock, decider=name)

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
                from brainview.services.project import Project  # SQLAlchemy: not before a paint

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

        self.require("decide")
        self._require_kinds(ids)
        self._refuse_own(ids, verdict)
        plan = self._two_person_plan(ids, verdict, policy_text)
        cfg = self.config.review
        applier = apply.applier_for(self.paths) if verdict == "accept" else None
        results: list[DecisionResult] = []
        if plan is None or plan.final:
            inside = self._second_vote_check(plan)
            with self.deciding(user=applier is not None) as project:
                results = review.decide_many(
                    project,
                    list(ids) if plan is None else plan.final,
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
                    inside=inside,
                )
        if plan is not None and plan.hold:
            results += self._hold_votes(plan, verdict, reason)
        return results

    def _refuse_own(self, ids: Sequence[str], verdict: str) -> None:
        """No self-approval: refuse the whole batch when this decider proposed any of
        ``ids`` (unless ``review.allow_self_approval``); read before any write."""
        if self.config.review.allow_self_approval:
            return
        from brainview.services.review.authorship import refuse_self_approval

        with self.project() as project:
            refuse_self_approval(project, ids, self.decider, verdict)

    def undo(self, decision_id: str | None = None) -> list[UndoResult]:
        """Undo a decision and the rest of its bulk as one unit (``None``: the
        project's last); an applied one is reverted in the user brain too, so the user
        brain is opened writable when it can be."""
        from brainview.services import review

        self.require("undo_own")
        if not self.can("undo_other"):  # whose unit it is: read first, then undo that one
            target = self.undo_target(decision_id)
            self._require_undo(target)
            decision_id = str(target.decision["id"])
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

        self.require("dismiss")
        self._require_kinds([proposal_id])
        self._refuse_own([proposal_id], "dismiss")
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

        self._require_undo(target)
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
