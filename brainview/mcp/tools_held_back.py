"""Tools on held-back drafts: the curator says what it withdrew or rewrote after recall."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from brainview.mcp.registry import Call, tool
from brainview.services.intake.proposing import check_value

SOURCE = "mcp"
"""Recorded as the report's ``source`` (the CLI records ``cli``)."""


@tool(title="Report a draft held back after recall", read_only=False)
def report_held_back(
    call: Call,
    report: Annotated[
        dict[str, Any],
        Field(
            description="{id?, action: withdrawn|rewritten, draft: <the proposal object you "
            "did not send>, rewritten_as?: <the proposal id it became>, recall: <recall_id>, "
            "lessons: [{reflection, stance: oppose|support|annotate}], reason?, "
            "confidence?: 0..1 (how sure you were the lessons were right; the closest calls "
            "are shown first)} (docs/curator.md). At least one lesson must oppose the draft."
        ),
    ],
) -> dict[str, Any]:
    """Tell the maintainer about a draft you withdrew or rewrote because recalled lessons
    opposed it, so a person can judge whether those lessons were right.

    Nothing is graded now: the report is kept (append-only) and may be shown in the
    maintainer's held-back lane; their verdict later grades the lessons (should have
    been proposed: the opposing lessons miss and the draft is queued; rightly held
    back: they are confirmed). Report every withdrawal and every rewrite. Idempotent by
    your `id`: the same report again returns already_reported true; the same id with
    other content is a conflict. The draft is checked as a proposal (errors name
    held_back.draft.<field>). Returns {id, already_reported, kind, action,
    rewritten_as, recall_id, runtime, reported_at, lessons}.
    """
    check_value(report)
    with call.session() as session:
        return session.report_held_back(report, source=SOURCE, runtime=call.runtime)
