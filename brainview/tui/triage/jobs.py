"""The service calls of triage, each ``job(session) -> result`` for
:func:`brainview.tui.workers.run_service` (they run in a thread and touch no widget).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from brainview.core.queue_health import QueueHealth
    from brainview.services.presence import Claim, Presence
    from brainview.services.project import Project
    from brainview.services.review import DecisionResult
    from brainview.services.review.detail import ProposalDetail
    from brainview.services.review.flags import Flagged
    from brainview.services.review.queue import QueueRow, QueueSignature
    from brainview.services.review.undo_offer import LastUnit
    from brainview.services.session import Session, Verdict

PAGE = 200


@dataclass(frozen=True)
class QueuePage:
    """The first rows of the queue and what the screen compares later reads with."""

    rows: list[QueueRow]
    total: int
    """Proposals matching the filter."""
    pending: int
    """All pending proposals."""
    signature: QueueSignature
    lifecycle: int
    """:func:`brainview.services.review.flags.lifecycle_mark` as of this read."""
    last: LastUnit | None
    """The project's last decision unit: what ``u`` offers after a restart."""
    query: tuple[str, str]
    """``(sort, filter)`` it was read with: a page for an older query is dropped."""
    decided: tuple[DecidedBy, ...] = ()
    """Rows shown before this read, gone since, decided by someone else."""
    health: QueueHealth | None = None
    """The queue's health as of this read (:mod:`brainview.tui.triage.health_watch`)."""


def read_queue(
    sort: str, needle: str, limit: int, shown: tuple[str, ...] = ()
) -> Callable[[Session], QueuePage]:
    """The first ``limit`` rows for ``(sort, needle)`` with the fingerprints, and who
    else decided any of the ``shown`` rows (a reload after this console's own decision
    may be the first read to see them go: the poll waits while a decision runs)."""

    def job(session: Session) -> QueuePage:
        from brainview.services.review.flags import lifecycle_mark
        from brainview.services.review.queue import page, pending_total, signature, with_titles
        from brainview.services.review.undo_offer import last_unit
        from brainview.tui.triage.health_watch import read_health

        with session.project() as project:
            # the fingerprints first: a change landing after them, while the page is
            # read, moves them again and the next poll reads once more (read after the
            # page, they could already hold a decision the page missed: never re-read)
            mark = lifecycle_mark(project)
            sig = signature(project)
            rows, total = page(project, sort=sort, needle=needle, limit=limit)
            pending = pending_total(project) if needle else total
            rows = with_titles(project, rows)
            last = last_unit(project)
            pending_ids = {r.id for r in rows}
            gone = tuple(pid for pid in shown if pid not in pending_ids)
            decided = _decided_by(session, project, gone) if gone else ()
            health = read_health(session, project)
        return QueuePage(rows, total, pending, sig, mark, last, (sort, needle), decided, health)

    return job


def _decided_by(
    session: Session, project: Project, proposal_ids: tuple[str, ...]
) -> tuple[DecidedBy, ...]:
    """Live decisions on ``proposal_ids`` by someone other than this session's person."""
    from brainview.core.fsrs_math import parse_ts
    from brainview.services.presence import decided_elsewhere

    now = session.clock().timestamp()
    return tuple(
        DecidedBy(
            d.decision_id,
            d.proposal_id,
            d.verdict,
            d.decider,
            max(0, int(now - parse_ts(d.decided_at).timestamp())),
        )
        for d in decided_elsewhere(project, proposal_ids)
        if d.decider != session.decider
    )


def read_more(
    sort: str, needle: str, offset: int
) -> Callable[[Session], tuple[list[QueueRow], int, int]]:
    """The page of the queue starting at ``offset``: ``(rows, total, offset)``."""

    def job(session: Session) -> tuple[list[QueueRow], int, int]:
        from brainview.services.review.queue import page, with_titles

        with session.project() as project:
            rows, total = page(project, sort=sort, needle=needle, offset=offset)
            rows = with_titles(project, rows)
        return rows, total, offset

    return job


def read_detail(proposal_id: str) -> Callable[[Session], ProposalDetail]:
    """Both brains' context for one proposal."""

    def job(session: Session) -> ProposalDetail:
        from brainview.services.review.detail import load

        with session.project() as project:
            return load(project, proposal_id, session.clock())

    return job


@dataclass(frozen=True)
class DecidedBy:
    """A proposal this console still showed, decided by someone else."""

    decision_id: str
    proposal_id: str
    verdict: str
    decider: str
    seconds_ago: int


@dataclass(frozen=True)
class Watch:
    """What the poll compares: the queue, the lifecycle and the writing switch — and,
    signed in, who else looks at what and who decided what this console showed."""

    signature: QueueSignature
    lifecycle: int
    paused: bool
    claims: dict[str, Claim] | None = None
    """Proposal id → another person's live claim (``None``: no presence here)."""
    decided: tuple[DecidedBy, ...] = ()
    """Shown proposals decided by someone else since the last read (signature moved)."""


def watch(
    presence: Presence | None = None,
    seen: QueueSignature | None = None,
    shown: tuple[str, ...] = (),
) -> Callable[[Session], Watch]:
    """The cheap fingerprints polled every second; when the queue's moved from ``seen``,
    also who decided which of the ``shown`` proposals (not this session's person)."""

    def job(session: Session) -> Watch:
        from brainview.services.lifecycle import writing
        from brainview.services.review.flags import lifecycle_mark
        from brainview.services.review.queue import signature

        decided: tuple[DecidedBy, ...] = ()
        with session.project() as project:
            # the lifecycle first: a decision landing between the two reads is then seen
            # in the signature (named below) before the lifecycle branch reloads
            mark, paused = lifecycle_mark(project), writing.state(project).paused
            sig = signature(project)
            if seen is not None and sig != seen and shown:
                decided = _decided_by(session, project, shown)
        claims = None
        if presence is not None:
            presence.heartbeat()
            claims = presence.others()
        return Watch(sig, mark, paused, claims, decided)

    return job


def look_at(presence: Presence, proposal_id: str | None) -> Callable[[Session], dict[str, Claim]]:
    """Claim the proposal shown now (``None``: withdraw); everyone else's claims."""

    def job(_session: Session) -> dict[str, Claim]:
        presence.look_at(proposal_id)
        return presence.others()

    return job


@dataclass(frozen=True)
class Opening:
    """Read once when triage opens."""

    mode: str
    """``apply`` or ``record-only``."""
    paused: bool
    recovered: int
    """Interrupted user-brain changes finished (or rolled back) just now."""


def recover(session: Session) -> Opening:
    """Finish user-brain changes a crash left half-done; read the apply mode."""
    from brainview.services import apply

    mode = apply.apply_mode(session.paths)
    paused = session.writing().paused
    return Opening(mode, paused, session.recover())


@dataclass(frozen=True)
class Decided:
    """What a decide call came back with: results, or flags nobody confirmed."""

    verdict: str
    results: list[DecisionResult]
    unconfirmed: list[Flagged]
    """Flagged since the queue was read: nothing was written; ask first."""


def decide(
    ids: list[str],
    verdict: Verdict,
    *,
    reason: str | None,
    seconds: float,
    policy_text: str | None = None,
    confirmed: frozenset[str] = frozenset(),
) -> Callable[[Session], Decided]:
    """Decide ``ids`` in one transaction (all or none); an accept first checks for
    flags nobody confirmed (and writes nothing if there are)."""

    def job(session: Session) -> Decided:
        from brainview.services.review import flags

        if verdict == "accept":
            with session.project() as project:
                found = flags.flagged_now(project, ids)
            if any(f.proposal_id not in confirmed for f in found):
                return Decided(verdict, [], found)
        results = session.decide(
            ids,
            verdict,
            reason=reason,
            seconds_on_screen=seconds / max(1, len(ids)),
            policy_text=policy_text,
            # re-checked inside the transaction: flagged since → refused
            confirmed_flags=confirmed if verdict == "accept" else None,
        )
        return Decided(verdict, list(results), [])

    return job


def undo(decision_id: str) -> Callable[[Session], list[str]]:
    """Revert a decision and the rest of its bulk; the proposals pending again."""

    def job(session: Session) -> list[str]:
        return [r.proposal_id for r in session.undo(decision_id)]

    return job


def ref_titles(text: str) -> Callable[[Session], dict[str, str]]:
    """Titles of the user neurons ``text`` refers to (``[user:…]``)."""

    def job(session: Session) -> dict[str, str]:
        from brainview.services.review.detail import user_titles

        with session.project() as project:
            return user_titles(project, text)

    return job


def lesson_titles(ids: Sequence[str]) -> Callable[[Session], dict[str, str]]:
    """``id → title`` of the lessons ``ids`` (the flagged-accept dialog's names)."""

    def job(session: Session) -> dict[str, str]:
        from brainview.services.readout.named import lesson_titles as titles

        with session.project() as project:
            return titles(project, ids)

    return job
