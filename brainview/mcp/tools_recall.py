"""Tools that close the agent side of the loop: recall before drafting, outcomes after."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from brainview.errors import UsageError
from brainview.mcp.registry import Call, tool
from brainview.services import outcome as outcomes
from brainview.services.recall import recall as run_recall
from brainview.services.recall.result import RecallQuery

SOURCE = "mcp"


@tool(title="Recall the lessons that matter for a draft", read_only=False)
def recall(
    call: Call,
    draft: Annotated[
        dict[str, Any] | None,
        Field(
            description="The proposal you are drafting (kind, params, rationale), in the "
            "proposal format; optional if you give text or refs."
        ),
    ] = None,
    text: Annotated[str, Field(description="What the draft is about, in words.")] = "",
    refs: Annotated[
        list[str] | None, Field(description="User neuron ids (n-…) the draft is about.")
    ] = None,
    skill: Annotated[
        str | None, Field(description="Only this skill's lessons, e.g. curator.")
    ] = None,
    limit: Annotated[int, Field(description="Hits to return (1-100).")] = 10,
) -> dict[str, Any]:
    """Rank your live lessons for a draft, each with why; logged, never graded.

    Returns {recall_id, query, hits: [{reflection, rank, score, skill, state (live |
    challenged), text, found_by (cited | lexical | semantic | spreading), components:
    {lexical, bm25, matched_words, spread, retrievability, refs_direct, refs_neighbour,
    overturned_by, semantic, cosine, cited}, stance (suggested: support | oppose |
    annotate), stance_reason}], policies: [{policy, text, members}], excluded:
    {quarantined: n}, semantic: {on, reason, model, ...}} — semantic is off (reason
    says why) without an embedder in the project's Spikuit config. Invalidated,
    retired and quarantined lessons never appear; excluded counts the quarantined ones
    that matched. Pass recall_id to
    `propose` so the hits you did not consult are recorded as retrieved.
    """
    if not 1 <= limit <= 100:
        raise UsageError("limit must be between 1 and 100")
    query = RecallQuery(text=text, refs=tuple(refs or ()), proposal=draft, skill=skill, limit=limit)
    with call.project() as project:
        return run_recall(project, query, now=call.now, runtime=call.runtime).to_json()


@tool(title="Report a tutor hint's or QABot answer's outcome", read_only=False)
def report_outcome(
    call: Call,
    outcome: Annotated[
        dict[str, Any],
        Field(
            description="{id, skill: tutor|qabot, result: success|failure, situation, "
            "consulted: [{reflection, stance, note?}], lesson?} (docs/curator.md)."
        ),
    ],
) -> dict[str, Any]:
    """Record whether a hint or answer worked, grading the lessons it consulted.

    Success grades supporting lessons strong (opposing ones miss); failure grades them
    miss (opposing ones strong) and writes a new lesson linked to them, in one
    transaction. Idempotent by your `id`: the same outcome again returns
    already_recorded true; the same id with other content is a conflict. Returns {id,
    decision_id, grades: [{reflection, stance, grade, grade_name}], skipped, lesson_id,
    already_recorded, ...}.
    """
    report = outcomes.parse_report(outcome)
    with call.session() as session:
        done = session.report_outcome(report, source=SOURCE)
    return done.to_json()
