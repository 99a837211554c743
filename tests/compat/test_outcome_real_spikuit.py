"""Tutor / QABot outcomes on an agent brain built by the real Spikuit 0.7.1: real
Spikuit opens it after the outcomes and agrees on the lesson, its links, the spikes
and the cards; after undo it sees exactly the brain it built."""

from __future__ import annotations

import asyncio
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fsrs import Scheduler

from brainview.services import outcome
from brainview.services.outcome import OutcomeReport
from brainview.services.project import Project
from tests.compat.spikuit_builder import build_spikuit_project

pytestmark = pytest.mark.compat

NOW = datetime(2027, 1, 10, 9, 0, tzinfo=UTC)
NOFUZZ = Scheduler(enable_fuzzing=False)


def spikuit_view(db: Path, ids: list[str]) -> dict[str, Any]:
    """What real Spikuit sees: stats, and per neuron its row, links, spikes and card."""
    from spikuit_core import Circuit

    async def read() -> dict[str, Any]:
        c = Circuit(db_path=db)
        await c.connect()
        try:
            out: dict[str, Any] = {"stats": await c.stats()}
            for rid in ids:
                neuron = await c.get_neuron(rid)
                card = c.get_card(rid)
                out[rid] = {
                    "neuron": neuron,
                    "synapses": sorted(
                        (s.pre, s.post, s.type.value) for s in await c.list_synapses(neuron_id=rid)
                    ),
                    "spikes": sorted(
                        (s.grade.value, s.fired_at.isoformat())
                        for s in await c._db.get_spikes_for(rid, limit=1000)
                    ),
                    "card": card.to_dict() if card is not None else None,
                }
            return out
        finally:
            await c.close()

    return asyncio.run(read())


def test_real_spikuit_agrees_on_outcomes_and_their_undo(tmp_path: Path) -> None:
    built = build_spikuit_project(tmp_path / "proj", n_neurons=20, anchor=NOW - timedelta(days=1))
    db = Path(built["agent"]["db_path"])
    a, b, c = built["agent"]["ids"]["all"][:3]
    before = spikuit_view(db, [a, b, c])
    failure = OutcomeReport(
        "hint-1", "tutor", "failure", "the hint on fractions confused the student",
        [(a, "support", None), (b, "oppose", "warned about it")],
    )  # fmt: skip
    success = OutcomeReport("ans-1", "qabot", "success", "correct answer", [(c, "support", None)])
    with Project.locate(tmp_path / "proj", write_agent=True) as p:
        bad = outcome.report_outcome(p, failure, decider="tutor", now=NOW, scheduler=NOFUZZ)
        good = outcome.report_outcome(
            p, success, decider="qabot", now=NOW + timedelta(minutes=1), scheduler=NOFUZZ
        )
    lesson = bad.lesson_id
    assert lesson is not None and good.lesson_id is None
    seen = spikuit_view(db, [a, b, c, lesson])
    assert seen["stats"]["neurons"] == before["stats"]["neurons"] + 1
    assert seen["stats"]["cards_loaded"] == before["stats"]["cards_loaded"] + 1
    new = seen[lesson]
    assert new["neuron"] is not None and new["neuron"].type == "reflection"
    assert new["neuron"].domain == "tutor"
    assert set(new["synapses"]) == {
        (x, y, "relates_to") for r in (a, b) for x, y in ((lesson, r), (r, lesson))
    }
    fired = {a: 1, b: 4, c: 4}  # support+failure miss, oppose+failure strong, success strong
    for rid, grade in fired.items():
        added = sorted(set(seen[rid]["spikes"]) - set(before[rid]["spikes"]))
        assert [g for g, _at in added] == [grade], rid
        assert seen[rid]["card"] != before[rid]["card"]
        assert seen[rid]["card"]["last_review"] is not None
    with Project.locate(tmp_path / "proj", write_agent=True) as p:
        outcome.undo_outcome(p, "ans-1", now=NOW + timedelta(minutes=2), actor="ann")
        outcome.undo_outcome(p, "hint-1", now=NOW + timedelta(minutes=3), actor="ann")
    after = spikuit_view(db, [a, b, c, lesson])
    assert after["stats"] == before["stats"]
    assert after[lesson]["neuron"] is None
    for rid in (a, b, c):
        assert after[rid] == before[rid], rid
    conn = sqlite3.connect(db)
    try:
        ops = [
            op
            for (op,) in conn.execute(
                "SELECT e.op FROM event e JOIN changeset c ON c.id = e.changeset_id "
                "WHERE e.target_id = ? ORDER BY c.committed_at, e.seq",
                (lesson,),
            )
        ]
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    finally:
        conn.close()
    assert ops == ["neuron.add", "neuron.delete"]
