"""The two-person rule on invalidating reflections (a lifecycle batch or a blast radius).

The subject is the *set* of reflections (:func:`brainview.core.two_person.
invalidation_subject`): the first maintainer's invalidate records a vote and changes
nothing (the result lists every reflection as unchanged, "held"); a second, different
maintainer invalidating the same set runs the batch, and the batch's own transaction
appends the ``final`` event naming it — after re-reading that the first vote still
stands — so the two are one unit.  Undoing the batch (``undo_lifecycle``) opens the
vote again: nothing in ``brainview_approval`` is changed.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from datetime import datetime

from brainview.core import fsrs_math
from brainview.core import two_person as tp
from brainview.core.authorship import same_identity
from brainview.errors import ConflictError, InvalidInputError, NotFoundError, RefusedError
from brainview.services import lifecycle, text_guard
from brainview.services.project import Project
from brainview.services.review.approvals import detail_json
from brainview.store import approval_rows as rows
from brainview.store.bv_schema_lifecycle import BatchLog, ensure_lifecycle_schema
from brainview.store.clock_floor import not_before_last

Flags = Callable[[BatchLog, list[str]], list[str]]


def invalidate(
    project: Project,
    ids: Sequence[str],
    *,
    reason: str,
    actor: str,
    now: datetime,
    flags: Flags | None = None,
) -> lifecycle.BatchResult:
    """Hold the first person's invalidation, carry out the second's (module docstring)."""
    unique = list(dict.fromkeys(ids))
    if not unique:
        raise InvalidInputError("give at least one reflection id")
    text_guard.name("actor", actor)
    subject = tp.invalidation_subject(unique)
    agent = project.require_agent()
    with agent.read() as conn:
        standing = rows.open_votes(conn, [subject]).get(subject, [])
    votes = [tp.Vote(str(v["actor"]), str(v["verdict"])) for v in standing]
    try:
        what = tp.step(votes, actor, tp.INVALIDATE, two_person=True, sampled=False)
    except ValueError as err:
        raise RefusedError(str(err)) from None
    if what == "hold":
        return _hold(project, subject, unique, reason, actor, now)

    def extra(log: BatchLog, changed: list[str]) -> list[str]:
        conn = log.conn
        found = rows.open_votes(conn, [subject]).get(subject, [])
        if not any(not same_identity(str(v["actor"]), actor) for v in found):
            raise ConflictError(
                "invalidating these reflections needs two people and the first approval "
                "was withdrawn meanwhile: nothing was changed"
            )
        at = fsrs_math.format_ts(not_before_last(conn, fsrs_math.ensure_utc(now)))
        rows.insert(
            conn,
            {
                "id": f"apf-{uuid.uuid4().hex[:12]}", "subject": subject,
                "kind": tp.INVALIDATE, "event": "final", "verdict": tp.INVALIDATE,
                "actor": actor, "at": at, "rule": tp.INVALIDATE, "reason": reason or None,
                "detail_json": detail_json(unique, reason), "ref": log.batch_id,
            },
        )  # fmt: skip
        return flags(log, changed) if flags is not None else []

    return lifecycle.run_batch(
        project, "invalidate", unique, reason=reason, actor=actor, now=now, extra=extra
    )


def _hold(
    project: Project, subject: str, ids: list[str], reason: str, actor: str, now: datetime
) -> lifecycle.BatchResult:
    if not (reason or "").strip():
        raise InvalidInputError("invalidating needs a reason")
    text_guard.optional_text("reason", reason, max_len=lifecycle.MAX_REASON)
    agent = project.require_agent()
    with agent.write() as conn:
        ensure_lifecycle_schema(conn)
        rows.ensure(conn)
        found = lifecycle.statuses(conn, agent.era, ids)
        missing = [r for r in ids if r not in found]
        if missing:
            raise NotFoundError(f"no reflection {missing[0]!r} in the agent brain")
        if rows.open_votes(conn, [subject]).get(subject):
            raise ConflictError("someone approved invalidating these meanwhile: run it again")
        at = fsrs_math.format_ts(not_before_last(conn, fsrs_math.ensure_utc(now)))
        vote_id = f"apv-{uuid.uuid4().hex[:12]}"
        rows.insert(
            conn,
            {
                "id": vote_id, "subject": subject, "kind": tp.INVALIDATE, "event": "vote",
                "verdict": tp.INVALIDATE, "actor": actor, "at": at, "rule": tp.INVALIDATE,
                "reason": reason, "detail_json": detail_json(ids, reason),
            },
        )  # fmt: skip
    why = f"held: {actor} approved; a second, different person must invalidate them ({subject})"
    unchanged = [(r, why) for r in ids]
    return lifecycle.BatchResult(vote_id, "invalidate", at, [], unchanged, held_vote=vote_id)
