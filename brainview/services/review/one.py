"""One decision inside the batch's transaction (:func:`brainview.services.review.
decide_many` opens it): claim, record, grade, STDP, the rejection lesson, the
agent-brain change of a consolidation item, and the effect log for undo."""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlalchemy import Connection

from brainview.core import fsrs_math
from brainview.core.grading import grade_for
from brainview.core.kinds import is_agent_kind, is_learning_kind
from brainview.errors import ConflictError, InvalidInputError
from brainview.services.apply.gate import AcceptGate
from brainview.services.audit import agent_log
from brainview.services.consolidate import apply_agent
from brainview.services.learnings import apply as learning_apply
from brainview.services.project import Project
from brainview.services.review.call import APPLY_RECORDED, Options, Verdict, apply_on_agent
from brainview.store import decision_reads
from brainview.store.decision_rows import (
    claim,
    fire_consulted,
    insert_decision,
    rejection_text,
)
from brainview.store.effects import EffectLog
from brainview.store.era import Era
from brainview.store.writers import StdpStep

APPLY_APPLIED = "applied"
"""Accepted and applied to the user brain (or nothing to apply, e.g. a note)."""
APPLY_AGENT = "agent"
"""Accepted agent-brain kind: applied to the agent brain inside the decision itself."""
REFLECTION_LINK_WEIGHT = 0.5


@dataclass(frozen=True)
class DecisionResult:
    """What one decision wrote."""

    decision_id: str
    proposal_id: str
    verdict: Verdict
    grades: list[tuple[str, str, int]]
    """``(reflection_id, stance, grade)`` in consulted order."""
    stdp: list[StdpStep]
    """``(pre, post, type, before, after)`` for every weight step, in processing order."""
    new_reflection_id: str | None
    decided_at: str = ""
    apply_state: str = APPLY_RECORDED
    skipped: list[tuple[str, str]] = field(default_factory=list)
    """Consulted reflections that got nothing: ``(reflection_id, why)``."""

    @property
    def weight_changes(self) -> dict[tuple[str, str, str], tuple[float, float]]:
        """Net ``(before, after)`` per synapse over all steps."""
        out: dict[tuple[str, str, str], tuple[float, float]] = {}
        for pre, post, typ, before, after in self.stdp:
            first = out.get((pre, post, typ), (before, after))[0]
            out[(pre, post, typ)] = (first, after)
        return out


def decide_in(
    conn: Connection,
    era: Era,
    proposal_id: str,
    opts: Options,
    gate: AcceptGate | None,
    paused: bool = False,
) -> DecisionResult:
    now_s = fsrs_math.format_ts(opts.now)
    log = EffectLog(conn)
    proposal = claim(conn, log, proposal_id, opts.verdict)
    decision_id = f"dec-{uuid.uuid4().hex[:12]}"
    apply_state = opts.apply_state
    kind = str(proposal["kind"])
    on_agent = is_agent_kind(kind) and opts.verdict == "accept"
    learning = is_learning_kind(kind) and opts.verdict == "accept"
    if opts.policy_text is not None and kind != "summarize_community":
        raise InvalidInputError(f"proposal {proposal_id} is not a policy: no text to edit")
    if on_agent:
        params = json.loads(proposal["params_json"])
        stale = apply_agent.stale_reason(conn, era, kind, params)
        if stale:
            raise ConflictError(
                f"proposal {proposal_id} is stale ({stale}): it cannot be accepted; "
                "reject or dismiss it"
            )
        apply_state = APPLY_AGENT
    elif learning:  # a .learnings tier move: files and tier row written below
        apply_state = APPLY_AGENT
    elif gate is not None:
        apply_state = gate.admit(conn, proposal, decision_id) or apply_state
    reject_note = opts.verdict == "reject" and opts.write_reflections and not paused
    new_id = f"r-{uuid.uuid4().hex[:12]}" if reject_note else None
    insert_decision(
        conn,
        {
            "id": decision_id,
            "proposal_id": proposal_id,
            "verdict": opts.verdict,
            "reason": opts.reason,
            "decider": opts.decider,
            "decided_at": now_s,
            "seconds_on_screen": opts.seconds_on_screen,
            "new_reflection_id": new_id,
            "apply_state": apply_state,
        },
    )
    verdict = opts.verdict

    agent_item = is_agent_kind(kind)

    def grade_of(stance: str) -> int | None:
        # A consolidation item is about its reflections, not advice they gave: deciding
        # it grades nobody (so items stay independent of one another).
        if verdict == "dismiss" or agent_item:
            return None
        return grade_for(stance, verdict, annotate_grade=opts.annotate_grade)

    def no_event(stance: str) -> str:
        if agent_item:
            return "consolidation item: no grades"
        return "dismissed: no event" if verdict == "dismiss" else f"{stance}: no event"

    fired = fire_consulted(
        log, era, proposal_id, decision_id, grade_of, no_event, opts.now, opts.scheduler,
        with_stdp=opts.stdp,
    )  # fmt: skip
    if on_agent:
        apply_on_agent(log, era, proposal, decision_id, opts)
    if learning:
        learning_apply.apply_in(log, proposal, decision_id, opts.now)
    if new_id is not None:
        agent_log.write_lesson(
            log, era, proposal_id=proposal_id, decider=opts.decider, neuron_id=new_id,
            content=rejection_text(proposal, opts.reason), skill=str(proposal["skill"]),
            link_to=fired.live, weight=REFLECTION_LINK_WEIGHT, now=opts.now,
        )  # fmt: skip
    log.flush(decision_id)
    return DecisionResult(
        decision_id=decision_id,
        proposal_id=proposal_id,
        verdict=opts.verdict,
        grades=fired.grades,
        stdp=fired.stdp,
        new_reflection_id=new_id,
        decided_at=now_s,
        apply_state=apply_state,
        skipped=fired.skipped,
    )


def only_agent_kinds(project: Project, ids: Sequence[str]) -> bool:
    """Whether every proposal named is an agent-brain kind (unknown ids: no)."""
    with project.require_agent().read() as conn:
        kinds = decision_reads.proposal_kinds(conn, ids)
    if kinds is None:  # no queue yet
        return False
    return len(kinds) == len(ids) and all(is_agent_kind(k) or is_learning_kind(k) for k in kinds)
