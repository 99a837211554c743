"""The two-person rule at the decision door (:meth:`brainview.services.session.Session.
decide`, :meth:`~brainview.services.session.Session.lifecycle`).

:func:`plan` reads, before anything is opened for writing, which of a decision's
proposals need a second person (:func:`brainview.core.two_person.rule_of`) and what
this person's vote does (:func:`brainview.core.two_person.step`): ``hold`` — the vote
is recorded (:func:`hold`, one agent-brain transaction) and nothing is applied — or
``final`` — the decision goes through :func:`brainview.services.review.decide_many`
as always, :func:`check_final` re-reading inside its transaction that the other
person's vote still stands (a vote withdrawn meanwhile refuses the whole decision).

Votes live in ``brainview_approval`` (:mod:`brainview.store.approval_rows`),
append-only; :func:`withdraw` appends a withdrawal.  Undoing the second person's
decision leaves the first vote standing, so the proposal is back to "½ accepted by …"
exactly as it was.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Connection

from brainview.core import fsrs_math
from brainview.core import two_person as tp
from brainview.core.authorship import same_identity
from brainview.core.json_strict import loads_stored
from brainview.errors import ConflictError, NotFoundError, RefusedError
from brainview.services import text_guard
from brainview.services.project import Project
from brainview.services.review.one import DecisionResult
from brainview.store import approval_rows as rows
from brainview.store.bv_schema import ensure_schema
from brainview.store.clock_floor import not_before_last
from brainview.store.rows import Row

APPLY_HELD = "held"
"""A vote recorded under the two-person rule: nothing decided or applied yet."""
MAX_REASON = 2_000


@dataclass
class Plan:
    """What one decision call does under the rule."""

    hold: list[tuple[str, str, str | None]] = field(default_factory=list)
    """``(proposal id, kind, rule)`` whose vote is held (``rule`` ``None``: sampled)."""
    final: list[str] = field(default_factory=list)
    check: dict[str, str] = field(default_factory=dict)
    """Final proposals that need another person's standing accept → their rule."""


def _params(raw: str | None) -> dict[str, Any] | None:
    if raw is None:
        return None
    try:
        value = loads_stored(raw)
    except (ValueError, TypeError):
        return None
    return value if isinstance(value, dict) else None


def _votes(found: Sequence[Row]) -> list[tp.Vote]:
    return [tp.Vote(str(v["actor"]), str(v["verdict"]), str(v["at"])) for v in found]


def plan(project: Project, ids: Sequence[str], verdict: str, decider: str, rules: tp.Rules) -> Plan:
    """Which of ``ids`` are held and which decided now (raises RefusedError when the
    decider already voted on one: a second vote must be someone else's)."""
    unique = list(dict.fromkeys(ids))
    out = Plan()
    if project.agent is None or not rules.enabled or verdict == "dismiss":
        out.final = unique
        return out
    with project.agent.read() as conn:
        found = rows.proposals_of(conn, unique)
        votes = rows.open_votes(conn, unique)
    params = {p: _params(v[2]) for p, v in found.items()}
    prunes = tp.prune_items((found[p][0], params[p]) for p in unique if p in found)
    for pid in unique:
        if pid not in found or found[pid][1] != "pending":
            out.final.append(pid)  # the decision itself says why it cannot be decided
            continue
        kind = found[pid][0]
        rule = tp.rule_of(kind, params[pid], prunes, rules)
        standing = _votes(votes.get(pid, []))
        sampled = tp.in_sample(pid, rules)
        try:
            what = tp.step(standing, decider, verdict, two_person=rule is not None, sampled=sampled)
        except ValueError as err:
            raise RefusedError(f"{err} ({pid})") from None
        if what == "hold":
            out.hold.append((pid, kind, rule))
        else:
            out.final.append(pid)
            if rule is not None and verdict == "accept":
                out.check[pid] = rule
    return out


def hold(
    project: Project,
    held: Sequence[tuple[str, str, str | None]],
    verdict: str,
    *,
    decider: str,
    now: datetime,
    reason: str | None = None,
) -> list[DecisionResult]:
    """Record ``decider``'s vote on every held proposal (one transaction): still
    pending, no vote of theirs standing, nobody else's vote turned it final meanwhile."""
    text_guard.name("decider", decider)
    reason = text_guard.optional_text("reason", reason, max_len=MAX_REASON) or None
    if verdict == "accept":
        _refuse_stale(project, [pid for pid, _k, _r in held])
    agent = project.require_agent()
    out: list[DecisionResult] = []
    with agent.write() as conn:
        ensure_schema(conn)
        rows.ensure(conn)
        at = fsrs_math.format_ts(not_before_last(conn, fsrs_math.ensure_utc(now)))
        ids = [pid for pid, _k, _r in held]
        found = rows.proposals_of(conn, ids)
        votes = rows.open_votes(conn, ids)
        for pid, kind, rule in held:
            if pid not in found:
                raise NotFoundError(f"no proposal {pid!r}")
            if found[pid][1] != "pending":
                raise ConflictError(f"{pid} was decided meanwhile ({found[pid][1]})")
            standing = _votes(votes.get(pid, []))
            if any(same_identity(v.actor, decider) for v in standing):
                raise RefusedError(f"{tp.own_vote_line(decider, verdict)} ({pid})")
            if any(v.verdict == verdict for v in standing):
                raise ConflictError(
                    f"{standing[0].actor} voted on {pid} meanwhile: decide it again to apply"
                )
            vote_id = f"apv-{uuid.uuid4().hex[:12]}"
            rows.insert(
                conn,
                {
                    "id": vote_id, "subject": pid, "kind": kind, "event": "vote",
                    "verdict": verdict, "actor": decider, "at": at, "rule": rule,
                    "reason": reason,
                },
            )  # fmt: skip
            out.append(DecisionResult(vote_id, pid, verdict, [], [], None, at, APPLY_HELD))  # type: ignore[arg-type]
    return out


def _refuse_stale(project: Project, ids: Sequence[str]) -> None:
    from brainview.services.review import _stale_reason

    for pid in ids:
        why = _stale_reason(project, pid)
        if why:
            raise ConflictError(f"{pid} is {why}; it cannot be accepted: reject or dismiss it")


def check_final(conn: Connection, check: dict[str, str], decider: str) -> None:
    """Inside the decision's transaction: every proposal in ``check`` still has another
    person's standing accept (a vote withdrawn meanwhile refuses the decision)."""
    if not check:
        return
    votes = rows.standing_votes(conn, list(check))
    for pid, rule in check.items():
        others = [
            v for v in votes.get(pid, [])
            if v["verdict"] == "accept" and not same_identity(str(v["actor"]), decider)
        ]  # fmt: skip
        if not others:
            raise ConflictError(
                f"{pid} needs two people ({rule}) and its first approval was withdrawn "
                "meanwhile: nothing was decided"
            )


def withdraw(
    project: Project, ident: str, *, actor: str, now: datetime, reason: str | None = None
) -> dict[str, Any]:
    """Withdraw the open vote on ``ident`` (a vote id, or a subject — a proposal id or
    ``invalidate:…`` — whose first open vote is meant); what was withdrawn."""
    text_guard.name("actor", actor)
    reason = text_guard.optional_text("reason", reason, max_len=MAX_REASON) or None
    agent = project.require_agent()
    with agent.write() as conn:
        ensure_schema(conn)
        rows.ensure(conn)
        target = _open_vote(conn, ident)
        at = fsrs_math.format_ts(not_before_last(conn, fsrs_math.ensure_utc(now)))
        wid = f"apw-{uuid.uuid4().hex[:12]}"
        rows.insert(
            conn,
            {
                "id": wid, "subject": target["subject"], "kind": target["kind"],
                "event": "withdraw", "verdict": None, "actor": actor, "at": at,
                "reason": reason, "ref": target["id"],
            },
        )  # fmt: skip
    return {
        "withdrawal_id": wid, "vote_id": target["id"], "subject": target["subject"],
        "kind": target["kind"], "voted_by": target["actor"], "withdrawn_by": actor,
        "at": at,
    }  # fmt: skip


def _open_vote(conn: Connection, ident: str) -> Row:
    one = rows.vote(conn, ident)
    subject = str(one["subject"]) if one is not None and one["event"] == "vote" else ident
    found = rows.open_votes(conn, [subject]).get(subject, [])
    if one is not None and one["event"] == "vote":
        found = [v for v in found if v["id"] == ident]
    if not found:
        raise NotFoundError(f"no open approval for {ident!r}")
    return found[0]


@dataclass(frozen=True)
class OpenApproval:
    """One vote waiting for a second person, as every face lists it."""

    vote_id: str
    subject: str
    kind: str
    verdict: str
    actor: str
    at: str
    rule: str | None
    reason: str | None
    reflections: tuple[str, ...] = ()

    @property
    def line(self) -> str:
        """``½ accepted by ada — needs a second person (policy)``."""
        return tp.waiting_line([tp.Vote(self.actor, self.verdict, self.at)], self.rule)

    def to_json(self) -> dict[str, Any]:
        return {
            "vote_id": self.vote_id, "subject": self.subject, "kind": self.kind,
            "verdict": self.verdict, "voted_by": self.actor, "at": self.at,
            "rule": self.rule, "reason": self.reason, "reflections": list(self.reflections),
            "waiting": self.line,
        }  # fmt: skip


def _approval(row: Row) -> OpenApproval:
    detail = _params(row.get("detail_json")) or {}
    refl = detail.get("reflections")
    return OpenApproval(
        str(row["id"]), str(row["subject"]), str(row["kind"]), str(row["verdict"]),
        str(row["actor"]), str(row["at"]), row["rule"], row["reason"],
        tuple(str(r) for r in refl) if isinstance(refl, list) else (),
    )  # fmt: skip


def open_approvals(project: Project) -> list[OpenApproval]:
    """Every vote waiting for a second person, oldest first."""
    if project.agent is None:
        return []
    with project.agent.read() as conn:
        return [_approval(r) for r in rows.all_open(conn)]


def open_for(project: Project, subjects: Sequence[str]) -> dict[str, OpenApproval]:
    """Subject → its first open vote, for those ``subjects`` that have one."""
    if project.agent is None or not subjects:
        return {}
    with project.agent.read() as conn:
        found = rows.open_votes(conn, subjects)
    return {s: _approval(v[0]) for s, v in found.items() if v}


def detail_json(reflections: Sequence[str], reason: str) -> str:
    return json.dumps({"reflections": sorted(set(reflections)), "reason": reason})
