"""One entry point from a proposal to its plan, shared by the preview and the apply.

:func:`build_plan` validates the params with :mod:`brainview.core.kinds`, refuses a
brain it cannot change the way Spikuit does (:func:`require_apply_era`), and runs
the kind's planner against a :class:`~brainview.services.apply.view.UserView`.  A
proposal that no longer fits the brain (a neuron retired, a synapse gone) raises
:class:`~brainview.errors.ConflictError` naming the reason.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import datetime
from typing import Any

from brainview.core import fsrs_math
from brainview.core.kinds import ParamError, check_params
from brainview.errors import ConflictError
from brainview.services.apply import kinds_neuron, kinds_synapse
from brainview.services.apply.merge import plan_merge
from brainview.services.apply.plan import TAG_PREFIX, ChangesetInfo, Plan
from brainview.services.apply.view import Builder, Ctx, UserView
from brainview.store.era import Era

Planner = Callable[[Builder, dict[str, Any]], None]

PLANNERS: dict[str, Planner] = {
    "merge_neurons": plan_merge,
    "retire_neuron": kinds_neuron.plan_retire,
    "add_synapse": kinds_synapse.plan_add,
    "remove_synapse": kinds_synapse.plan_remove,
    "set_synapse_weight": kinds_synapse.plan_set_weight,
    "set_domain": kinds_neuron.plan_set_domain,
    "rename_domain": kinds_neuron.plan_rename_domain,
    "merge_domains": kinds_neuron.plan_merge_domains,
    "edit_content": kinds_neuron.plan_edit,
    "note": lambda _b, _p: None,
}

UNSUPPORTED_ERA = (
    "this user brain predates Spikuit 0.7 (no retired_at / changeset / event / "
    "neuron_predecessor): brainview cannot soft-retire or log a change in it the way "
    "Spikuit does; open it once with spkt 0.7+ to upgrade it, or set "
    "review.record_only = true"
)


def apply_era_problem(era: Era) -> str | None:
    """Why brainview cannot apply to a brain of this era (``None``: it can)."""
    needed = {"changeset", "event", "neuron_predecessor"}
    if not era.has_retire or "retired_at" not in era.synapse_cols or not needed <= era.tables:
        return UNSUPPORTED_ERA
    return None


def require_apply_era(era: Era) -> None:
    """Refuse (ConflictError) a brain brainview cannot apply to."""
    problem = apply_era_problem(era)
    if problem:
        raise ConflictError(problem)


def new_changeset_id() -> str:
    """A Spikuit-shaped changeset id (``cs_`` + 12 hex)."""
    return f"cs_{uuid.uuid4().hex[:12]}"


def context(
    proposal_id: str,
    actor: str,
    now: datetime,
    changeset_id: str | None = None,
) -> Ctx:
    """The context of applying one proposal: changeset tag ``brainview:<proposal id>``,
    actor kind ``human``."""
    at = fsrs_math.format_ts(now)
    cs = ChangesetInfo(changeset_id or new_changeset_id(), f"{TAG_PREFIX}{proposal_id}", actor, at)
    return Ctx(fsrs_math.ensure_utc(now), cs)


def build_plan(view: UserView, kind: str, params: dict[str, Any], ctx: Ctx) -> Plan:
    """The plan of one proposal against ``view`` (which also gets its changes staged,
    so the next plan on the same view sees them)."""
    require_apply_era(view.era)
    try:
        check_params(kind, params)
    except ParamError as err:
        raise ConflictError(f"params no longer valid: {err}") from None
    builder = Builder(view, ctx)
    PLANNERS[kind](builder, params)
    return builder.plan(kind, params)
