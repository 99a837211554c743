"""Provenance on an agent brain built by the real Spikuit 0.7.1: real Spikuit opens it
after a rejection and agrees on the new reflection, its links, its card and its log;
undo is exact for Spikuit too; an imported reflection's origin survives a reinstate."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fsrs import Scheduler

from brainview.services import audit, intake, lifecycle, review
from brainview.services.project import Project
from tests.compat.spikuit_builder import build_spikuit_project

pytestmark = pytest.mark.compat

NOW = datetime(2027, 1, 10, 9, 0, tzinfo=UTC)


def spikuit_view(db: Path, rid: str) -> dict[str, Any]:
    """What real Spikuit sees of the agent brain and of ``rid``."""
    from spikuit_core import Circuit

    async def read() -> dict[str, Any]:
        c = Circuit(db_path=db)
        await c.connect()
        try:
            neuron = await c.get_neuron(rid)
            return {
                "stats": await c.stats(),
                "neuron": neuron,
                "synapses": sorted(
                    (s.pre, s.post, s.type.value) for s in await c.list_synapses(neuron_id=rid)
                ),
                "events": await c._db.list_events(target_id=rid),
            }
        finally:
            await c.close()

    return asyncio.run(read())


def test_real_spikuit_agrees_on_a_rejection_lesson_and_its_undo(tmp_path: Path) -> None:
    built = build_spikuit_project(tmp_path / "proj", n_neurons=20)
    db = Path(built["agent"]["db_path"])
    consulted = built["agent"]["ids"]["all"][:2]
    before = spikuit_view(db, "r-none")["stats"]
    raw = {"id": "p-1", "skill": "curator", "kind": "note", "params": {},
           "consulted": [{"reflection": r, "stance": "support"} for r in consulted],
           "created_at": NOW.isoformat()}  # fmt: skip
    with Project.locate(tmp_path / "proj", write_agent=True) as p:
        intake.submit(p, [raw], now=NOW)
        res = review.decide(p, "p-1", "reject", reason="no", decider="ann", now=NOW,
                            scheduler=Scheduler(enable_fuzzing=False))  # fmt: skip
    new = res.new_reflection_id
    assert new is not None
    seen = spikuit_view(db, new)
    assert seen["neuron"] is not None and seen["neuron"].type == "reflection"
    assert seen["stats"]["neurons"] == before["neurons"] + 1
    assert seen["stats"]["cards_loaded"] == before["cards_loaded"] + 1
    assert seen["stats"]["synapses"] == before["synapses"] + 2 * len(consulted)
    links = {(a, b, "relates_to") for r in consulted for a, b in ((new, r), (r, new))}
    assert set(seen["synapses"]) == links
    assert [e["op"] for e in seen["events"]] == ["neuron.add"]
    with Project.locate(tmp_path / "proj", write_agent=True) as p:
        review.undo(p, res.decision_id, now=NOW + timedelta(minutes=1), actor="ann")
    gone = spikuit_view(db, new)
    assert gone["neuron"] is None and gone["stats"] == before
    assert [e["op"] for e in gone["events"]] == ["neuron.add", "neuron.delete"]


def test_imported_origin_survives_invalidate_and_reinstate(tmp_path: Path) -> None:
    built = build_spikuit_project(tmp_path / "proj", n_neurons=20)
    rid = built["agent"]["ids"]["all"][0]
    with Project.locate(tmp_path / "proj", write_agent=True) as p:
        origin = audit.trail(p, rid).origin
        lifecycle.invalidate(p, [rid], reason="planted", actor="root", now=NOW)
        lifecycle.reinstate(p, [rid], actor="root", now=NOW + timedelta(minutes=1))
        after = audit.trail(p, rid)
    assert origin.kind == "imported" and origin.actor == "system (system)"
    assert after.origin == origin
    seen = spikuit_view(Path(built["agent"]["db_path"]), rid)
    assert seen["neuron"] is not None
    assert [e["op"] for e in seen["events"]] == ["neuron.add", "neuron.retire", "neuron.add"]
