"""What triage says: notifications, refusals and the empty queue, in one vocabulary
(:mod:`brainview.core.vocabulary`).  Pure functions of what happened."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from brainview.core.safe_text import one_line
from brainview.core.vocabulary import UNDO_MARK, VERDICT_MARK, grade_label

if TYPE_CHECKING:
    from brainview.services.review import DecisionResult
    from brainview.services.review.detail import ProposalDetail
    from brainview.services.review.flags import Flagged
    from brainview.tui.triage.screen import TriageScreen


def decided(verdict: str, results: Sequence[DecisionResult]) -> str:
    """``✓ accepted prop-… · grades fired: 2× █ strong, 1× ▁ miss · 1 new lesson``."""
    ids = {r.proposal_id for r in results}
    what = one_line(results[0].proposal_id, 40) if len(ids) == 1 else f"{len(ids)} proposals"
    counts = Counter(grade for r in results for _rid, _stance, grade in r.grades)
    if counts:
        fired = ", ".join(f"{n}× {grade_label(g)}" for g, n in sorted(counts.items(), reverse=True))
        tail = f" · grades fired: {fired}"
    else:
        tail = " · no grade fired"
    lessons = [r.new_reflection_id for r in results if r.new_reflection_id]
    if lessons:
        tail += f" · {len(lessons)} new lesson(s)"
    if any(r.apply_state == "agent" for r in results):
        tail += " · agent brain changed"
    return f"{VERDICT_MARK.get(verdict, verdict)} {what}{tail}"


def undone(proposal_ids: Sequence[str]) -> str:
    """``↶ undone: prop-… is pending again`` (a bulk: how many)."""
    if len(proposal_ids) == 1:
        return f"{UNDO_MARK}: {one_line(proposal_ids[0], 40)} is pending again"
    return f"{UNDO_MARK}: the bulk decision of {len(proposal_ids)} proposals; all are pending again"


def empty_queue(needle: str, pending: int, nothing: str) -> str:
    """What the proposal pane says when the queue shows no row."""
    if needle and pending:
        return (
            f"No pending proposal matches “{one_line(needle, 30)}”; {pending} others are "
            "pending — escape clears the filter."
        )
    return nothing


def edit_refusal(d: ProposalDetail | None, current: str | None, marked: bool) -> str:
    """Why the policy editor cannot open on the highlighted proposal."""
    if marked:
        return "The policy editor takes one proposal at a time: clear the marks first."
    if d is None or d.id != current:
        return "Still reading this proposal; try again in a moment."
    if d.kind != "summarize_community":
        return f"Only a policy proposal's text can be edited; this is {one_line(d.kind, 30)}."
    if d.stale:
        return "This policy proposal is stale: it cannot be accepted; reject or dismiss it."
    return f"This proposal is {one_line(d.status, 20)}: nothing to edit."


def stale_refusal(reason: str | None) -> str:
    """Why ``a`` does nothing on a stale proposal."""
    return (
        f"Not accepted: this proposal is stale ({one_line(reason or '', 120)}); "
        "reject or dismiss it."
    )


UNDO_REFUSAL = "Nothing to undo: no decision of this project is left to undo."
EMPTY_REFUSAL = "Nothing pending: the queue is empty."


def proposal_json(d: ProposalDetail) -> str:
    """The proposal as JSON for the clipboard (ASCII: control characters escaped)."""
    payload = {
        "id": d.id,
        "skill": d.skill,
        "kind": d.kind,
        "params": d.params,
        "rationale": d.rationale,
        "created_at": d.created_at,
        "status": d.status,
        "consulted": [{"reflection": v.id, "stance": v.stance} for v in d.consulted],
        "retrieved": [v.id for v in d.retrieved],
    }
    return json.dumps(payload, ensure_ascii=True, sort_keys=True)


def flagged_lines(
    screen: TriageScreen, flagged: list[Flagged], titles: dict[str, str] | None = None
) -> list[str]:
    """The flagged-accept dialog's lines, titles where a person reads: the proposal by
    its summary (user neurons named), the lessons it leans on by their first line (from
    ``titles``, read for the dialog, and the details already read; an id only where no
    title is at hand)."""
    from brainview.core.safe_text import first_line
    from brainview.tui.triage.render_proposal import titled

    summaries = {r.id: r.title_summary or r.summary for r in screen.rows}
    lessons: dict[str, str] = dict(titles or {})
    shown = [screen.detail, *(screen.details.get(f.proposal_id) for f in flagged)]
    for d in shown:  # every flagged proposal whose detail was read, not only the open one
        for v in (*d.consulted, *d.retrieved) if d is not None else ():
            lessons[v.id] = first_line(v.display or v.content, 40) or v.id
    return [
        f"{first_line(summaries.get(f.proposal_id, f.proposal_id), 60)}: {titled(why, lessons)}"
        for f in flagged
        for why in f.reasons
    ]
