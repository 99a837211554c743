"""Intent rows (``brainview_apply_intent``, agent brain): what brainview is about to do
to the user brain, written *before* it does it.

``action`` is ``apply`` (an accepted proposal) or ``revert`` (the undo of one);
``state`` goes ``pending`` → ``done`` (the user-brain change is in), or →
``rolled_back`` (it could not be made; the agent-brain side was reverted too), or →
``failed`` (neither could be made exactly; a person has to look).  Intents written in
one call share a ``batch_id`` and are carried out in one user-brain transaction.

The decision's ``apply_state`` mirrors it: ``recorded`` (nothing to apply),
``pending``, ``applied``, ``reverting``, ``reverted``, ``rolled_back``, ``failed``.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from sqlalchemy import Connection

from brainview.services.apply import owner
from brainview.services.apply.plan import Plan
from brainview.store import apply_intents as rows

PENDING, DONE, ROLLED_BACK, FAILED = "pending", "done", "rolled_back", "failed"


@dataclass(frozen=True)
class Intent:
    """One stored intent."""

    id: str
    decision_id: str
    proposal_id: str
    action: str
    changeset_id: str
    tag: str
    actor: str
    planned_at: str
    plan_json: str
    state: str
    created_at: str
    finished_at: str | None
    note: str | None
    batch_id: str | None
    owner: str | None = None
    """``host:pid:start`` of the process that wrote it (:mod:`.owner`)."""

    @property
    def plan(self) -> Plan:
        """The planned change."""
        return Plan.from_json(self.plan_json)


def write(
    conn: Connection,
    *,
    decision_id: str,
    proposal_id: str,
    action: str,
    plan: Plan,
    state: str,
    created_at: str,
    batch_id: str,
) -> Intent:
    """Insert one intent (inside the caller's agent-brain transaction)."""
    cs = plan.changeset
    intent = Intent(
        id=f"int-{uuid.uuid4().hex[:12]}",
        decision_id=decision_id,
        proposal_id=proposal_id,
        action=action,
        changeset_id=cs.id,
        tag=cs.tag,
        actor=cs.actor_id,
        planned_at=cs.at,
        plan_json=plan.to_json(),
        state=state,
        created_at=created_at,
        finished_at=created_at if state != PENDING else None,
        note=None,
        batch_id=batch_id,
        owner=owner.process_owner(),
    )
    rows.insert_intent(conn, intent.__dict__)
    return intent


def pending(conn: Connection) -> list[Intent]:
    """Every intent not carried out yet, oldest first."""
    return [Intent(*r) for r in rows.pending_intent_rows(conn)]


def of_decision(conn: Connection, decision_id: str, action: str) -> Intent | None:
    """The latest intent of one kind for a decision."""
    found = rows.decision_intent_rows(conn, decision_id, action)
    return Intent(*found[-1]) if found else None


def of_batch(conn: Connection, batch_id: str) -> list[Intent]:
    """The pending intents written together."""
    return [Intent(*r) for r in rows.pending_batch_rows(conn, batch_id)]


def state_of(conn: Connection, intent_id: str) -> str:
    """One intent's ``state`` now (``missing`` when there is no such intent)."""
    return rows.intent_state(conn, intent_id) or "missing"


def finish(conn: Connection, intent: Intent, state: str, at: str, note: str | None = None) -> None:
    """Close an intent and move its decision's ``apply_state`` along."""
    rows.close_intent(conn, intent.id, state, at, note)
    apply_state = {
        ("apply", DONE): "applied",
        ("revert", DONE): "reverted",
        ("apply", ROLLED_BACK): "rolled_back",
        ("revert", ROLLED_BACK): "applied",
        ("apply", FAILED): "failed",
        ("revert", FAILED): "failed",
    }[(intent.action, state)]
    set_apply_state(conn, intent.decision_id, apply_state)


def set_apply_state(conn: Connection, decision_id: str, state: str) -> None:
    """Set ``brainview_decision.apply_state``."""
    rows.set_decision_apply_state(conn, decision_id, state)
