"""Replay: what past recalls, decisions and held-back drafts a lesson changed.

For each logged recall (``brainview_recall``) whose hits included the lesson, the
ranking is re-run **now**, from the logged query (its words as logged, its neurons,
kind, skill and limit), twice: with the lesson (a quarantined one spared) and
without it (as if it were not in the brain: no score, no seed, no edge into it).
Both runs see the same brain, so the difference is the lesson's alone.  When the
lesson cannot be ranked any more (invalidated, retired), the logged hits stand for
"with".  :mod:`brainview.services.replay.model` says when the difference matters,
and which decisions (proposals that consulted the lesson, with their verdicts) and
held-back drafts would have changed.

Read-only: nothing is logged (``log=False`` ranking), no row of either brain changes,
no file is written beside them.
"""

from __future__ import annotations

import json
from datetime import datetime

from brainview.core.safe_text import one_line
from brainview.errors import InvalidInputError, NotFoundError
from brainview.services.lifecycle import CHALLENGED, LIVE, QUARANTINED, statuses
from brainview.services.lifecycle.blast import ProposalHit, proposals_of
from brainview.services.project import Project
from brainview.services.recall import ranked
from brainview.services.recall.result import MAX_LIMIT, RecallQuery
from brainview.services.replay.model import (
    STANCES,
    DecisionReplay,
    HeldBackReplay,
    RecallReplay,
    Replay,
    linked_recall,
    recall_changes,
    sole,
)
from brainview.store import replay_reads

__all__ = ["Replay", "replay"]

LIMIT = 200
"""Recalls replayed at most (newest first); the total is reported."""
HELD_LIMIT = 500
RANKABLE = (LIVE, CHALLENGED, QUARANTINED)


def replay(project: Project, rid: str, *, now: datetime, limit: int = LIMIT) -> Replay:
    """Replay lesson ``rid`` (NotFoundError when it is not in the agent brain)."""
    if not 1 <= limit <= 10_000:
        raise InvalidInputError("limit: must be between 1 and 10000")
    agent = project.require_agent()
    with agent.read() as conn:
        found = statuses(conn, agent.era, [rid])
        if rid not in found:
            raise NotFoundError(f"no reflection {rid!r} in the agent brain")
        rows, total = replay_reads.recalls_returning(conn, rid, limit)
        consults = [h for h in proposals_of(conn, [rid]) if h.role == "consulted"]
        pids = list(dict.fromkeys(h.proposal_id for h in consults))
        lists = replay_reads.consult_lists(conn, pids)
        received = replay_reads.received(conn, pids)
        held = replay_reads.held_back(conn, rid, [r[0] for r in rows], HELD_LIMIT)
        lessons = replay_reads.held_back_lessons(conn, [h[0] for h in held])
        verdicts = replay_reads.held_back_verdicts(conn, [h[0] for h in held])
    state = found[rid].state
    out = Replay(rid, state, recalls_total=total)
    told = {h[3]: s for h in held for r, s in lessons.get(h[0], []) if r == rid and h[3]}
    for rc, raw, logged, at, skill in rows:
        try:
            query, terms = _query(raw)
        except InvalidInputError as err:
            out.skipped.append(f"{rc}: {err}")
            continue
        again = _rerun(project, query, terms, rid, state in RANKABLE, now)
        with_ids, rank, stance, after = again
        if with_ids is None:  # cannot be ranked now: the logged hits stand for "with"
            with_ids, rank, stance = logged, logged.index(rid) + 1, told.get(rc)
        text = one_line(str(query.text or (query.proposal or {}).get("rationale", "")), 200)
        changes = recall_changes(rank, stance, [s for _r, s in after])
        base = "rerun" if again[0] is not None else "logged"
        out.recalls.append(
            RecallReplay(rc, at, skill, text, base, logged, rank, stance, with_ids,
                         [r for r, _s in after], changes)
        )  # fmt: skip
    out.decisions = _decisions(rid, consults, lists, received, out.recalls)
    by_id = {r.recall_id: r for r in out.recalls}
    for hid, kind, action, recall_id, _skill, at, _why in held:
        mine = lessons.get(hid, [])
        stance = next((s for r, s in mine if r == rid), None)
        changes = sole(stance, [s for r, s in mine if r != rid]) if stance == "oppose" else []
        rec = by_id.get(recall_id or "")
        if rec is not None and rec.matters:
            changes += [f"recall_{c}" for c in rec.changes]
        out.held_back.append(
            HeldBackReplay(hid, kind, action, recall_id, at, stance, verdicts.get(hid), changes)
        )
    return out


def _query(raw: str) -> tuple[RecallQuery, list[str] | None]:
    """The logged query as a recall again (InvalidInputError when it cannot be)."""
    try:
        q = json.loads(raw)
    except ValueError:
        raise InvalidInputError("logged query is not JSON") from None
    if not isinstance(q, dict):
        raise InvalidInputError("logged query is not an object")
    text, kind, skill = q.get("text", ""), q.get("kind"), q.get("skill")
    refs, terms, limit = q.get("refs", []), q.get("terms"), q.get("limit", 10)
    if not isinstance(text, str) or not isinstance(refs, list):
        raise InvalidInputError("logged query has no text or refs")
    if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= MAX_LIMIT:
        limit = 10
    kind = kind if isinstance(kind, str) and kind else None
    skill = skill if isinstance(skill, str) else None
    proposal = {"kind": kind, "rationale": text} if kind else None
    query = RecallQuery("" if kind else text, tuple(str(r) for r in refs), proposal, skill, limit)
    query.check()
    if isinstance(terms, list) and all(isinstance(t, str) for t in terms):
        return query, [str(t) for t in terms]
    return query, None


Rerun = tuple[list[str] | None, int | None, str | None, list[tuple[str, str]]]


def _rerun(
    project: Project,
    query: RecallQuery,
    terms: list[str] | None,
    rid: str,
    rankable: bool,
    now: datetime,
) -> Rerun:
    """``(hits with, its rank, its stance, [(hit, stance)] without)``; ``None`` hits
    with when the lesson cannot be ranked now."""
    lesson = frozenset({rid})
    without, _i, _h = ranked(project, query, now=now, drop=lesson, terms=terms)
    after = [(h.reflection, h.stance) for h in without]
    if not rankable:
        return None, None, None, after
    hits, _i, _h = ranked(project, query, now=now, spare=lesson, terms=terms)
    mine = next((h for h in hits if h.reflection == rid), None)
    ids = [h.reflection for h in hits]
    if mine is None:
        return ids, None, None, after
    return ids, mine.rank, mine.stance, after


def _decisions(
    rid: str,
    consults: list[ProposalHit],
    lists: dict[str, list[tuple[str, str, str | None]]],
    received: dict[str, str],
    recalls: list[RecallReplay],
) -> list[DecisionReplay]:
    out: list[DecisionReplay] = []
    for h in consults:
        stance = h.stance or "support"
        mine = lists.get(h.proposal_id, [])
        others = [s for r, role, s in mine if role == "consulted" and r != rid]
        changes = sole(stance, others)
        link = linked_recall({r for r, _role, _s in mine}, received.get(h.proposal_id), recalls)
        if link is not None and link.matters and stance in STANCES:
            changes += [f"recall_{c}" for c in link.changes]
        out.append(
            DecisionReplay(h.proposal_id, h.kind, h.summary, h.status, h.verdict, h.decider,
                           stance, None if link is None else link.recall_id, changes)
        )  # fmt: skip
    return out
