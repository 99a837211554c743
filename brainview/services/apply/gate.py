"""The user-brain side of an accept, inside the decision's agent-brain transaction.

:class:`AcceptGate` is opened by :func:`brainview.services.review.decide_many` for
every accept.  For each proposal it refuses a stale one (ConflictError naming the
reason, so the whole decision writes nothing) and — when the decision applies to the
user brain — computes the plan (the same code as the preview) and writes the intent
row in the same agent-brain transaction as the decision.  Plans of one batch are
computed one after another on one view of the user brain, so the second sees the
first's changes — except a streamed plan (a domain too big to plan row by row,
:mod:`.stream_plan`), which must be the only plan of its decision; its chunks are
stored with its intent.  Lock order is always agent brain, then user brain.
"""

from __future__ import annotations

import json
import uuid
from contextlib import ExitStack
from datetime import datetime
from typing import Any

from sqlalchemy import Connection

from brainview.core import fsrs_math
from brainview.errors import ConflictError
from brainview.services.apply import intent as intents
from brainview.services.apply.plan import Plan
from brainview.services.apply.planner import build_plan, context, require_apply_era
from brainview.services.apply.stale import QueuedRef, stale_all
from brainview.services.apply.stream_plan import plan_stream, streams
from brainview.services.apply.view import Ctx, UserView
from brainview.services.project import Project
from brainview.store.apply_chunks import insert_chunk
from brainview.store.bv_schema import ensure_apply_schema
from brainview.store.rows import driver

APPLIED, PENDING = "applied", "pending"


class AcceptGate:
    """Stale check, and (when ``applying``) plan + intent, for each accepted proposal."""

    def __init__(self, project: Project, *, applying: bool, decider: str, now: datetime) -> None:
        self.project = project
        self.applying = applying
        self.decider = decider
        self.now = fsrs_math.ensure_utc(now)
        self.batch_id = f"batch-{uuid.uuid4().hex[:12]}"
        self._stack = ExitStack()
        self._uconn: Connection | None = None
        self._view: UserView | None = None
        self._planned: list[tuple[str, bool]] = []
        """``(proposal id, streamed?)`` of every plan made so far."""

    def __enter__(self) -> AcceptGate:
        if self.applying:
            require_apply_era(self.project.user.era)
        self._uconn = self._stack.enter_context(self.project.user.read())
        if self.applying:  # refused here, before the decision is written to the agent brain
            self.project.user.refuse_unsafe_schema(self._uconn)
        self._view = UserView(driver(self._uconn), self.project.user.era)
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.close()

    def admit(self, conn: Connection, proposal: dict[str, Any], decision_id: str) -> str | None:
        """Check one claimed proposal; with ``applying``, plan it and write its intent.

        Returns the decision's ``apply_state`` (``pending``, or ``applied`` when there is
        nothing to change, e.g. a note) or ``None`` when not applying.
        """
        assert self._uconn is not None and self._view is not None
        pid = str(proposal["id"])
        ref = QueuedRef(pid, proposal["kind"], proposal["params_json"], proposal["created_at"])
        user = self.project.user
        reason = stale_all(self._uconn, user.era, conn, [ref], path=user.path).get(pid)
        if reason:
            raise ConflictError(
                f"proposal {pid} is stale ({reason}): it cannot be accepted; reject or dismiss it"
            )
        if not self.applying:
            return None
        ctx = context(pid, self.decider, self.now)
        ensure_apply_schema(conn)
        try:
            params = json.loads(proposal["params_json"])
            plan = self._plan(conn, pid, str(proposal["kind"]), params, ctx)
        except ConflictError as err:
            raise ConflictError(f"proposal {pid} cannot be applied: {err}") from None
        if not plan.empty:
            self._planned.append((pid, plan.stream is not None))
        intents.write(
            conn,
            decision_id=decision_id,
            proposal_id=pid,
            action="apply",
            plan=plan,
            state=intents.DONE if plan.empty else intents.PENDING,
            created_at=ctx.at,
            batch_id=self.batch_id,
        )
        return APPLIED if plan.empty else PENDING

    def _plan(
        self, conn: Connection, pid: str, kind: str, params: dict[str, Any], ctx: Ctx
    ) -> Plan:
        """The in-memory plan on the shared view, or a streamed one (a big domain) with
        its chunks stored next to the intent.  A streamed plan is applied alone (notes
        aside): the view cannot lay 200,000 staged rows over the brain for the plans
        after it, nor can the stream see rows staged by the plans before it."""
        assert self._view is not None
        if not streams(self._view.raw, kind, params):
            plan = build_plan(self._view, kind, params, ctx)
            streamed = [p for p, s in self._planned if s]
            if streamed and not plan.empty:
                raise ConflictError(_ALONE.format(pid=streamed[0]))
            return plan
        if self._planned:
            raise ConflictError(_ALONE.format(pid=pid))

        def sink(seq: int, move: int, ids: list[str], digest: str) -> None:
            insert_chunk(conn, ctx.changeset.id, seq, move, ids, digest)

        return plan_stream(self._view.raw, self._view.era, kind, params, ctx, sink)


_ALONE = (
    "proposal {pid} changes a domain too big to plan row by row; it is applied on its "
    "own: accept it alone"
)
