"""Tools on the proposal queue: propose (dry run or queue), read decisions back, and the
queue's health."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from brainview.mcp.registry import Call, tool
from brainview.services.audit import decision_feed
from brainview.services.intake.proposing import submit_value
from brainview.services.metrics import queue_health as metrics_queue_health

SOURCE = "mcp"
"""Recorded as the proposals' ``source`` (the CLI records ``cli``)."""


@tool(title="Propose changes (dry run or queue)", read_only=False)
def propose(
    call: Call,
    proposals: Annotated[
        dict[str, Any] | list[Any],
        Field(
            description="One proposal object or a list of them, in the proposal format "
            "(resource brainview://schema/proposal.schema.json): kind, params, rationale, "
            "consulted (reflection ids with stance support|oppose|annotate), retrieved."
        ),
    ],
    dry_run: Annotated[
        bool, Field(description="Validate against both brains only; write nothing.")
    ] = False,
    recall_id: Annotated[
        str | None,
        Field(
            description="The recall_id `recall` returned: its hits you did not consult "
            "are recorded as each proposal's retrieved."
        ),
    ] = None,
) -> dict[str, Any]:
    """Validate curator proposals and queue them for the maintainer, all or nothing.

    The same checks as `brainview propose`: the error names the proposal and field
    (`invalid_input: proposal[0].params: user neuron n-… is retired`) and nothing is
    written. Proposals without a `runtime` are recorded with this curator's runtime.
    Returns {dry_run, count, proposals: [{id, kind, skill, summary, created_at,
    consulted, retrieved}]}. Choose your own stable `id` so a retry cannot queue a
    duplicate (`already queued`).
    """
    return submit_value(
        call.paths, proposals, source=SOURCE, runtime=call.runtime, dry_run=dry_run,
        now=call.now, recall=recall_id,
    )  # fmt: skip


@tool(title="Decisions since", read_only=True, idempotent=True)
def decisions_since(
    call: Call,
    since: Annotated[
        str | None,
        Field(description="ISO 8601 date/time (naive = UTC) or an age such as 12h, 7d."),
    ] = None,
    cursor: Annotated[
        str | None,
        Field(description="The next_cursor of your previous call: only what changed after it."),
    ] = None,
    skills: Annotated[
        list[str] | None,
        Field(description='Only decisions on proposals of these skills, e.g. ["curator"].'),
    ] = None,
    limit: Annotated[int, Field(description="At most this many decisions (1-1000).")] = 100,
) -> dict[str, Any]:
    """What the maintainer decided (accept, reject, dismiss) since a time or a cursor.

    Oldest change first. Each decision: decision_id, proposal_id, kind, skill, summary,
    proposal_status, verdict, reason, decider, decided_at, apply_state,
    new_reflection_id (the lesson a rejection wrote), undone (undone_at, undone_by),
    changed_at, and grades: [{reflection, stance, grade, grade_name, fired_at}] fired
    into the reflections the proposal consulted. A decision undone later comes back
    once more with undone true (its grades were then taken back). Keep next_cursor and
    pass it next time; while `more` is true there is another page now. A project without
    an agent brain yet is `not_found`, as for every other tool.
    """
    query = decision_feed.FeedQuery(
        since=since, cursor=cursor, skills=tuple(skills or ()), limit=limit
    )
    with call.project() as project:
        project.require_agent()
        return decision_feed.decisions_since(project, query, now=call.now)


@tool(title="Queue health", read_only=True, idempotent=True)
def queue_health(call: Call) -> dict[str, Any]:
    """Whether the proposal queue is being looked after, with the project's [queue] settings.

    Returns {pending, stale (pending proposals created more than stale_after_days ago),
    stale_after_days, oldest_age_days, window_days, arrivals and decisions over the
    window, net_growth, growth_min, alert, stale_alert, growth_alert, reasons: one line
    per alert}. When the queue is stale or growing, expect your new proposals to wait:
    propose fewer, better ones. A project without an agent brain yet is `not_found`.
    """
    with call.project() as project:
        project.require_agent()
    return metrics_queue_health.health_at(call.paths, call.now)


@tool(title="Approvals and agreement", read_only=True, idempotent=True)
def approvals(call: Call) -> dict[str, Any]:
    """What waits for a second maintainer under the two-person rule, and how often they agree.

    Returns {two_person: {enabled, rules, prune_above, agreement_sample, waiting,
    approvals: [{vote_id, subject, kind, verdict, voted_by, at, rule, reason,
    reflections, waiting}]}, agreement: {overall, by_kind, by_person: {items, agreed,
    share_agreed, raters, method (cohen_kappa | krippendorff_alpha), value}}}. A proposal
    listed here is not decided yet: nothing it proposes has happened. A project without
    an agent brain yet is `not_found`.
    """
    from brainview.services.metrics.team import team_at

    return team_at(call.paths)
