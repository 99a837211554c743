"""The options of one decision call, checked once (:mod:`brainview.services.review`),
and the agent-brain half of accepting a consolidation item."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from fsrs import Scheduler

from brainview.core import fsrs_math
from brainview.core.kinds_agent import MAX_POLICY_TEXT
from brainview.errors import InvalidInputError
from brainview.services import text_guard
from brainview.services.apply.plan import TAG_PREFIX
from brainview.services.consolidate import apply_agent
from brainview.store.decision_rows import VERDICT_STATUS
from brainview.store.effects import EffectLog
from brainview.store.era import Era
from brainview.store.rows import fetch_row

MAX_REASON = 10_000
APPLY_RECORDED = "recorded"
"""The decision is recorded; nothing is (or will be) applied by brainview."""
APPLY_PENDING = "pending"
"""Accepted with an applier: the user-brain change is still to be applied."""
DEFAULT_SCHEDULER = Scheduler()
Verdict = Literal["accept", "reject", "dismiss"]


@dataclass(frozen=True)
class Options:
    verdict: Verdict
    reason: str | None
    decider: str
    seconds_on_screen: float | None
    now: datetime
    write_reflections: bool
    scheduler: Scheduler
    annotate_grade: int | None
    apply_state: str
    policy_text: str | None = None
    stdp: bool = True
    """``False``: the decision moves no synapse weight (an experiment's switch)."""


def options(
    verdict: str,
    reason: str | None,
    decider: str,
    seconds: float | None,
    now: datetime,
    write_reflections: bool,
    scheduler: Scheduler | None,
    annotate_grade: int | None,
    applier: object,
) -> Options:
    if verdict not in VERDICT_STATUS:
        raise InvalidInputError(f"verdict must be 'accept', 'reject' or 'dismiss', not {verdict!r}")
    if reason is not None and (not isinstance(reason, str) or len(reason) > MAX_REASON):
        raise InvalidInputError(f"reason must be text of at most {MAX_REASON} characters")
    text_guard.optional_text("reason", reason, max_len=MAX_REASON)
    text_guard.name("decider", decider)
    if seconds is not None and not (math.isfinite(seconds) and seconds >= 0):
        raise InvalidInputError("seconds_on_screen must be a finite number ≥ 0")
    if annotate_grade is not None and annotate_grade not in fsrs_math.GRADE_TO_RATING:
        raise InvalidInputError("annotate_grade must be 1..4")
    apply_state = APPLY_PENDING if applier is not None and verdict == "accept" else APPLY_RECORDED
    return Options(
        verdict,  # type: ignore[arg-type]
        reason or None,
        decider,
        seconds,
        fsrs_math.ensure_utc(now),
        write_reflections,
        scheduler or DEFAULT_SCHEDULER,
        annotate_grade,
        apply_state,
    )


def policy_text(value: object, verdict: str, n: int) -> str:
    if verdict != "accept" or n != 1:
        raise InvalidInputError("an edited policy text goes with accepting one proposal")
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_POLICY_TEXT:
        raise InvalidInputError(
            f"policy text must be non-empty text of at most {MAX_POLICY_TEXT} characters"
        )
    return text_guard.text("policy text", value, max_len=MAX_POLICY_TEXT)


def apply_on_agent(
    log: EffectLog, era: Era, proposal: dict[str, Any], decision_id: str, opts: Options
) -> None:
    """Write an accepted agent-brain kind's change through the decision's effect log."""
    params = json.loads(proposal["params_json"])
    if opts.policy_text is not None and opts.policy_text != params.get("text"):
        params = {**params, "text": opts.policy_text, "draft": params.get("text")}
        current = fetch_row(log.conn, "brainview_proposal", (proposal["id"],))
        assert current is not None
        encoded = json.dumps(params, ensure_ascii=False, sort_keys=True)
        log.update("brainview_proposal", [(current, {"params_json": encoded})])
    tag = f"{TAG_PREFIX}{proposal['id']}"
    cs = apply_agent.changeset(tag, opts.decider, opts.now)
    plan = apply_agent.plan_change(log.raw, era, str(proposal["kind"]), params, cs)
    apply_agent.write_plan(log, era, plan)
    del decision_id
