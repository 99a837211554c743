"""What an applied decision left for Spikuit's embedder to do, in words.

Accepting a merge or a retire on a brain with an embedder deletes the
``neuron_vec_map`` rows Spikuit's ``delete_embedding`` removes
(:func:`~brainview.services.apply.kinds_neuron.drop_vector`); the survivor of a merge
then has no vector until ``spkt embed-all`` re-embeds it.  The accept's output says so.
"""

from __future__ import annotations

from collections.abc import Iterable

from brainview.services.apply import intent as intents
from brainview.services.apply.describe import vector_note
from brainview.services.project import Project


def vector_notes(project: Project, decision_ids: Iterable[str]) -> dict[str, str]:
    """Decision id → what it did to Spikuit's vectors and what is left (only the
    decisions whose applied plan deleted any)."""
    out: dict[str, str] = {}
    if project.agent is None:
        return out
    with project.agent.read() as conn:
        for decision_id in decision_ids:
            intent = intents.of_decision(conn, decision_id, "apply")
            note = vector_note(intent.plan) if intent is not None else None
            if note:
                out[decision_id] = note.removeprefix("; ")
    return out
