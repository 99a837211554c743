"""Applying accepted proposals to the user brain exactly as Spikuit 0.7.1 would.

Layout (each module small, one job):

* :mod:`.plan` — a :class:`Plan`: the rows one proposal changes (before → after) and
  its Spikuit change log (one ``changeset``, its ``event`` rows); its inverse.
* :mod:`.view` — the user brain as a planner reads it, with staged changes on top.
* :mod:`.kinds_synapse`, :mod:`.kinds_neuron`, :mod:`.merge` — one planner per
  kind, following ``spikuit_core.Circuit`` row for row; :mod:`.planner` — the
  registry and :func:`build_plan`, the one code path of preview *and* apply.
* :mod:`.describe` — a plan as preview lines.
* :mod:`.execute` — writing a plan in one user-brain transaction, idempotently.
* :mod:`.stream_plan`, :mod:`.stream_exec` — a domain rename or merge too big to plan
  row by row (over 2,000 live neurons): counted for the preview, digested chunk by
  chunk at accept, written and undone chunk by chunk in one transaction.
* :mod:`.intent`, :mod:`.gate`, :mod:`.runner` — the crash-safe protocol across the
  two files: intent row with the decision, user-brain change, intent done;
  :func:`recover` finishes or rolls back what a crash interrupted.
* :mod:`.mode` — record-only or apply; :mod:`.state_hash` — Spikuit's graph hash;
  :mod:`.hooks` — named protocol steps (crash tests).
"""

from __future__ import annotations

import importlib
from datetime import datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from brainview.services.apply.describe import log_summary, preview_lines
    from brainview.services.apply.mode import (
        MODE_APPLY,
        MODE_RECORD_ONLY,
        MODE_UNSUPPORTED,
        UserBrainApplier,
        applier_for,
        apply_mode,
    )
    from brainview.services.apply.plan import ChangesetInfo, EventRow, Plan, RowChange
    from brainview.services.apply.runner import Outcome, open_intents, recover
    from brainview.services.project import Project

# The package's names are loaded on first use (PEP 562), not when any submodule is
# imported: an eager ``__init__`` made every ``from brainview.services.apply import
# hooks`` import the whole package cycle, and two console workers doing that at once
# could see a half-initialised module ("cannot import name … partially initialized").
_LAZY = {
    "log_summary": "describe",
    "preview_lines": "describe",
    "MODE_APPLY": "mode",
    "MODE_RECORD_ONLY": "mode",
    "MODE_UNSUPPORTED": "mode",
    "UserBrainApplier": "mode",
    "applier_for": "mode",
    "apply_mode": "mode",
    "ChangesetInfo": "plan",
    "EventRow": "plan",
    "Plan": "plan",
    "RowChange": "plan",
    "build_plan": "planner",
    "context": "planner",
    "Outcome": "runner",
    "open_intents": "runner",
    "recover": "runner",
    "UserView": "view",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


__all__ = [
    "MODE_APPLY",
    "MODE_RECORD_ONLY",
    "MODE_UNSUPPORTED",
    "ChangesetInfo",
    "EventRow",
    "Outcome",
    "Plan",
    "RowChange",
    "UserBrainApplier",
    "applier_for",
    "apply_mode",
    "build_plan",
    "log_summary",
    "open_intents",
    "plan_for",
    "preview_lines",
    "recover",
]


def plan_for(
    project: Project,
    proposal_id: str,
    kind: str,
    params: dict[str, Any],
    *,
    now: datetime,
    actor: str = "preview",
) -> Plan:
    """What accepting this proposal now would change (ConflictError: it cannot)."""
    from brainview.services.apply.planner import build_plan, context
    from brainview.services.apply.stream_plan import preview_stream, streams
    from brainview.services.apply.view import UserView
    from brainview.store.rows import driver

    with project.user.read() as uconn:
        raw, era = driver(uconn), project.user.era
        ctx = context(proposal_id, actor, now)
        if streams(raw, kind, params):  # a big domain: counted (the preview's form)
            return preview_stream(raw, era, kind, params, ctx)
        return build_plan(UserView(raw, era), kind, params, ctx)
