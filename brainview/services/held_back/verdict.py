"""A maintainer's verdict on a held-back draft, and its exact undo.

One ``BEGIN IMMEDIATE`` transaction on the agent brain, through the decision machinery
(:func:`brainview.store.decision_rows.fire_listed`: spikes, cards, STDP,
``brainview_grade`` rows, all in an :class:`~brainview.store.effects.EffectLog`
flushed under the verdict's decision id):

* **should have been proposed** — the draft enters the queue as a normal pending
  proposal, id ``p-<held-back id>``, after intake's own checks against both brains
  (:func:`brainview.services.intake.check_against_brains`; a draft whose neurons are
  gone since is refused naming the field) and suspicion flags; its lessons are graded
  as if the draft had been accepted (an opposing lesson *miss*, a supporting one
  *strong*) and left out of the queued proposal's ``consulted`` (graded once, here);
  and, as a rejection writes a lesson against, it writes one on the draft's side
  (:func:`brainview.core.held_back.overruled_lesson`, linked to the lessons it graded),
  so the next draft like it recalls a lesson that says it was wanted;
* **rightly held back** — the lessons graded as if it had been rejected (opposing
  *strong*, supporting *miss*); nothing is queued.

A draft holds one standing verdict: a second one is a ConflictError (checked inside the
transaction, so two maintainers cannot both decide it).  :func:`undo` reverts every row
the verdict wrote — refused, writing nothing, when one changed since (the queued
proposal was decided: undo that first) — and marks the verdict undone; the draft is
back in the lane.
"""

from __future__ import annotations

import sqlite3
import uuid
from datetime import datetime
from typing import Any

from fsrs import Scheduler

from brainview.core import fsrs_math
from brainview.core.held_back import check_verdict, grade_of, overruled_lesson, proposal_id_for
from brainview.core.params import ParamError
from brainview.errors import ConflictError, InvalidInputError, NotFoundError
from brainview.services import intake, text_guard
from brainview.services.audit import agent_log
from brainview.services.project import Project
from brainview.services.review.call import DEFAULT_SCHEDULER
from brainview.services.review.one import REFLECTION_LINK_WEIGHT
from brainview.store import held_back_rows as rows
from brainview.store.brain_check import translate_sqlite
from brainview.store.bv_schema import ensure_schema
from brainview.store.clock_floor import not_before_last
from brainview.store.decision_rows import Fired, fire_listed
from brainview.store.effects import EffectLog, revert_effects
from brainview.store.era import Era
from brainview.store.proposal_rows import CONSULT_COLUMNS, PROPOSAL_COLUMNS
from brainview.store.rows import Row

MAX_REASON = 2_000
SOURCE = "held-back"
"""The queued proposal's ``source``."""


def decide(
    project: Project,
    held_back_id: str,
    verdict: str,
    *,
    decider: str,
    now: datetime,
    reason: str | None = None,
    scheduler: Scheduler | None = None,
    write_lesson: bool = True,
) -> dict[str, Any]:
    """Record a verdict (module docstring); returns what it did as plain JSON.

    ``write_lesson``: "should have been proposed" writes a lesson on the draft's side
    (the ``[review] write_reflections`` switch, as a rejection's lesson)."""
    try:
        name = check_verdict(verdict)
    except ParamError as err:
        raise InvalidInputError(str(err)) from None
    text_guard.name("decider", decider)
    reason = text_guard.optional_text("reason", reason, max_len=MAX_REASON) or None
    agent = project.require_agent()
    now = fsrs_math.ensure_utc(now)
    with agent.read() as conn:
        row = _item(conn, held_back_id)
    batch = _draft_batch(project, row, now) if name == "should_have_proposed" else []
    decision_id = f"hbv-{uuid.uuid4().hex[:12]}"
    with agent.write() as conn:
        try:
            ensure_schema(conn)
            rows.ensure(conn)
            _item(conn, held_back_id)
            standing = rows.standing_verdicts(conn, [held_back_id]).get(held_back_id)
            if standing is not None:
                raise ConflictError(
                    f"held-back draft {held_back_id} was already decided "
                    f"({standing['verdict']} by {standing['decider']} at "
                    f"{standing['decided_at']}); undo that first"
                )
            at = not_before_last(conn, now)
            at_s = fsrs_math.format_ts(at)
            log = EffectLog(conn)
            if batch:
                intake.flag_suspicion(conn, agent.era, batch)
                _queue(log, batch, at_s)
            fired = fire_listed(
                log, agent.era, rows.lessons_live(conn, agent.era, held_back_id), decision_id,
                f"brainview:held-back:{held_back_id}", lambda stance: grade_of(name, stance),
                lambda stance: f"{stance}: no event", at, scheduler or DEFAULT_SCHEDULER,
            )  # fmt: skip
            pid = batch[0].id if batch else None
            new_id = None
            if batch and write_lesson:
                new_id = _write_lesson(log, agent.era, row, batch[0], reason, decider, at, fired)
            rows.insert_verdict(
                conn,
                {
                    "decision_id": decision_id, "held_back_id": held_back_id, "verdict": name,
                    "reason": reason, "decider": decider, "decided_at": at_s,
                    "proposal_id": pid, "new_reflection_id": new_id,
                },
            )  # fmt: skip
            log.flush(decision_id)
        except sqlite3.Error as err:  # raw driver statements: translate, roll back
            raise translate_sqlite(err, agent.path) from None
    return {
        "held_back_id": held_back_id, "decision_id": decision_id, "verdict": name,
        "decider": decider, "decided_at": at_s, "reason": reason, "proposal_id": pid,
        "new_reflection_id": new_id,
        "grades": [{"reflection": r, "stance": s, "grade": g} for r, s, g in fired.grades],
        "skipped": [{"reflection": r, "why": why} for r, why in fired.skipped],
    }  # fmt: skip


def standing_of(project: Project, ident: str) -> Row:
    """The standing verdict named by a held-back id or a verdict's decision id."""
    agent = project.require_agent()
    with agent.read() as conn:
        return _standing(conn, ident)


def undo(project: Project, ident: str, *, actor: str, now: datetime) -> dict[str, Any]:
    """Revert a standing verdict exactly (``ident``: the held-back id or the decision id)."""
    text_guard.name("actor", actor)
    agent = project.require_agent()
    with agent.write() as conn:
        try:
            found = _standing(conn, ident)
            did = str(found["decision_id"])
            at = fsrs_math.format_ts(not_before_last(conn, fsrs_math.ensure_utc(now)))
            restored = revert_effects(conn, did)
            # the lesson it wrote, if any: Spikuit's log says it went (nothing when none)
            agent_log.log_undo(
                conn, agent.era, did, str(found["proposal_id"] or found["held_back_id"]),
                actor=actor, now=fsrs_math.parse_ts(at),
            )  # fmt: skip
            rows.mark_undone(conn, did, at=at, by=actor)
        except sqlite3.Error as err:
            raise translate_sqlite(err, agent.path) from None
    return {
        "held_back_id": found["held_back_id"], "decision_id": did, "verdict": found["verdict"],
        "proposal_id": found["proposal_id"], "rows_restored": restored, "undone_at": at,
        "undone_by": actor,
    }  # fmt: skip


def _standing(conn: Any, ident: str) -> Row:
    found = rows.verdict(conn, ident)
    if found is not None and found["undone_at"] is not None:
        raise ConflictError(
            f"verdict {ident} was already undone at {found['undone_at']} by {found['undone_by']}"
        )
    if found is None:
        found = rows.standing_verdicts(conn, [ident]).get(ident)
    if found is None:
        raise NotFoundError(f"no standing verdict on held-back draft {ident!r}")
    return found


def _item(conn: Any, held_back_id: str) -> Row:
    row = rows.item(conn, held_back_id)
    if row is None:
        raise NotFoundError(f"no held-back draft {held_back_id!r}")
    return row


def _draft_batch(project: Project, row: Row, now: datetime) -> list[intake.Proposal]:
    """The draft as the proposal to queue, through intake's parse and brain checks."""
    import json

    hid = str(row["id"])
    draft = dict(json.loads(str(row["draft_json"])))
    with project.require_agent().read() as conn:
        graded = {r for r, _s in rows.lessons_of(conn, [hid])[hid]}
    draft.pop("recall", None)
    draft["id"] = proposal_id_for(hid)
    draft.setdefault("runtime", row["runtime"])
    consulted = draft.get("consulted", [])
    if isinstance(consulted, list):  # the held-back lessons are graded by the verdict
        draft["consulted"] = [c for c in consulted if _reflection(c) not in graded]
    try:
        batch = intake.parse_batch(draft, now)
        intake.check_against_brains(project, batch)
    except InvalidInputError as err:
        raise InvalidInputError(
            str(err).replace("proposal[0]", "held_back.draft", 1)
            + " (the draft cannot be queued as it is; rightly-held-back still can be said)"
        ) from None
    return batch


def _write_lesson(
    log: EffectLog,
    era: Era,
    row: Row,
    draft: intake.Proposal,
    reason: str | None,
    decider: str,
    at: datetime,
    fired: Fired,
) -> str:
    """The lesson of a draft that should have been proposed, linked to its lessons that
    are still live (through ``log``: the verdict's undo removes it)."""
    opposing = [r for r, stance, _g in fired.grades if stance == "oppose"]
    new_id = f"r-{uuid.uuid4().hex[:12]}"
    content = overruled_lesson(
        str(row["id"]), draft.kind, draft.summary, list(draft.refs.neurons),
        draft.rationale or "", reason, opposing,
    )  # fmt: skip
    agent_log.write_lesson(
        log, era, proposal_id=draft.id, decider=decider, neuron_id=new_id, content=content,
        skill=str(row["skill"] or "curator"), link_to=[r for r, _s, _g in fired.grades],
        weight=REFLECTION_LINK_WEIGHT, now=at,
    )  # fmt: skip
    return new_id


def _reflection(item: object) -> object:
    return item.get("reflection") if isinstance(item, dict) else item


def _queue(log: EffectLog, batch: list[intake.Proposal], at: str) -> None:
    """Insert the proposal and its consult rows through the effect log (undo removes them)."""
    import json

    p = batch[0]
    values = (
        p.id, p.skill, p.kind,
        json.dumps(p.params, ensure_ascii=False, sort_keys=True, allow_nan=False),
        p.rationale, p.created_at, at, "pending", p.runtime, SOURCE, p.summary,
        len(p.consulted), p.suspicion,
    )  # fmt: skip
    log.insert("brainview_proposal", [dict(zip(PROPOSAL_COLUMNS, values, strict=True))])
    consults = [
        (p.id, rid, "consulted", stance, note, q)
        for q, (rid, stance, note) in enumerate(p.consulted)
    ] + [(p.id, rid, "retrieved", None, None, q) for q, rid in enumerate(p.retrieved)]
    log.insert("brainview_consult", [dict(zip(CONSULT_COLUMNS, c, strict=True)) for c in consults])
