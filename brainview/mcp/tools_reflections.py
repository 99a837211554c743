"""Tools on the agent brain's reflections (the curator's own lessons)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from brainview.errors import UsageError
from brainview.mcp.registry import Call, tool
from brainview.services.readout.reflections import inspect

MAX_ITEMS = 1_000
CARD_KEYS = ("stability", "difficulty", "retrievability", "due", "last_review", "state", "source")


def _last(items: list[Any], n: int) -> list[Any]:
    return items[-n:] if n > 0 else []


@tool(title="Inspect a reflection", read_only=True, idempotent=True)
def inspect_reflection(
    call: Call,
    reflection_id: Annotated[str, Field(description="The reflection's id (r-…).")],
    recent: Annotated[
        int, Field(description="How many of the latest grades, links and proposals (0-1000).")
    ] = 20,
) -> dict[str, Any]:
    """One reflection: its text, state, FSRS card, recent grades, links and trail.

    state is live, challenged (a maintainer doubts it: say so if you consult it),
    invalidated or retired (never consult those). card: stability (days),
    retrievability (R now, 0-1), due, last_review — null when never reviewed.
    recent_grades: the latest spikes, each with the decision behind it (verdict,
    proposal, stance, decider) or via "outside brainview"; grade_history: grades
    decisions fired into it, undone ones marked (fate). links: its synapses to other
    reflections; refs: the [user:…] neurons it names, resolved; influenced: proposals
    that consulted or retrieved it; origin: how it was written; lifecycle_history.
    """
    if not 0 <= recent <= MAX_ITEMS:
        raise UsageError(f"recent must be between 0 and {MAX_ITEMS}")
    with call.project() as project:
        data = inspect(project, reflection_id, call.now, spikes=recent)
    card = data["card"]
    links = data["synapses"]
    return {
        "id": data["id"],
        "type": data["type"],
        "skill": data["skill"],
        "state": data["state"],
        "content": data["content"],
        "created_at": data["created_at"],
        "retired_at": data["retired_at"],
        "card": None if card is None else {k: card[k] for k in CARD_KEYS},
        "spikes": data["spikes"],
        "recent_grades": data["recent_spikes"],
        "grade_history": _last(data["grade_history"], recent),
        "grade_history_total": data["grade_history_total"],
        "links": _last(links, recent),
        "links_total": len(links),
        "refs": data["refs"],
        "influenced": _last(data["influenced"], recent),
        "influenced_total": len(data["influenced"]),
        "origin": data["origin"],
        "lifecycle_history": data["lifecycle_history"],
        "now": call.now.isoformat(),
    }
