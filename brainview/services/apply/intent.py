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

from sqlalchemy import Connection, text

from brainview.services.apply import owner
from brainview.services.apply.plan import Plan
from brainview.store.bv_schema import ensure_intent_owner, intent_has_owner
from brainview.store.readmodel import table_exists

PENDING, DONE, ROLLED_BACK, FAILED = "pending", "done", "rolled_back", "failed"

_COLS = (
    "id, decision_id, proposal_id, action, changeset_id, tag, actor, planned_at, "
    "plan_json, state, created_at, finished_at, note, batch_id"
)
_OWNER = ", owner"
"""Schema 5 (read as ``NULL`` from tables without it: see :mod:`.owner`)."""


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
    ensure_intent_owner(conn)
    conn.execute(
        text(
            f"INSERT INTO brainview_apply_intent ({_COLS}{_OWNER}) VALUES (:id, :decision_id, "
            ":proposal_id, :action, :changeset_id, :tag, :actor, :planned_at, :plan_json, "
            ":state, :created_at, :finished_at, :note, :batch_id, :owner)"
        ),
        intent.__dict__,
    )
    return intent


def _select(conn: Connection, where: str, args: dict[str, object]) -> list[Intent]:
    if not table_exists(conn, "brainview_apply_intent"):
        return []
    own = _OWNER if intent_has_owner(conn) else ", NULL"
    rows = conn.execute(
        text(
            f"SELECT {_COLS}{own} FROM brainview_apply_intent WHERE {where} "
            "ORDER BY created_at, rowid"
        ),
        args,
    )
    return [Intent(*r) for r in rows]


def pending(conn: Connection) -> list[Intent]:
    """Every intent not carried out yet, oldest first."""
    return _select(conn, "state = 'pending'", {})


def of_decision(conn: Connection, decision_id: str, action: str) -> Intent | None:
    """The latest intent of one kind for a decision."""
    found = _select(conn, "decision_id = :d AND action = :a", {"d": decision_id, "a": action})
    return found[-1] if found else None


def of_batch(conn: Connection, batch_id: str) -> list[Intent]:
    """The pending intents written together."""
    return _select(conn, "batch_id = :b AND state = 'pending'", {"b": batch_id})


def finish(conn: Connection, intent: Intent, state: str, at: str, note: str | None = None) -> None:
    """Close an intent and move its decision's ``apply_state`` along."""
    conn.execute(
        text(
            "UPDATE brainview_apply_intent SET state = :s, finished_at = :at, note = :n "
            "WHERE id = :id AND state = 'pending'"
        ),
        {"s": state, "at": at, "n": note, "id": intent.id},
    )
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
    conn.execute(
        text("UPDATE brainview_decision SET apply_state = :s WHERE id = :id"),
        {"s": state, "id": decision_id},
    )
