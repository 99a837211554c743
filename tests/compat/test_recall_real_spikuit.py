"""Recall on an agent brain written by the real Spikuit 0.7.1 engine: it finds lessons by
their neurons and words, follows Spikuit's own adds and retirements, and logging a recall
leaves the brain one Spikuit still opens and agrees with."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path

import pytest

from brainview.services.project import Project
from brainview.services.recall import recall
from brainview.services.recall.result import RecallQuery
from brainview.store.discovery import discover
from brainview.store.recall_handle import close_all
from tests.compat.spikuit_builder import build_spikuit_project

pytestmark = pytest.mark.compat
NOW = datetime.now(UTC).replace(microsecond=0)


@pytest.fixture
def built(tmp_path: Path) -> dict:
    result = build_spikuit_project(tmp_path / "real", hostile=True)
    yield result
    close_all()


async def _with_agent(db: Path, action):  # type: ignore[no-untyped-def]
    from spikuit_core import Circuit

    circuit = Circuit(db_path=db)
    await circuit.connect()
    try:
        return await action(circuit)
    finally:
        await circuit.close()


def test_recall_follows_spikuit_writes(built: dict) -> None:
    from spikuit_core import Neuron

    agent = built["agent"]
    refs = agent["ids"]["refs"]
    rid, users = next((r, u) for r, u in refs.items() if u and r not in
                      (agent["ids"]["dangling_ref"], agent["ids"]["retired_ref"]))  # fmt: skip
    with Project.open(discover(built["root"]), write_agent=True) as p:
        first = recall(p, RecallQuery(refs=(users[0],), limit=20), now=NOW)
        assert rid in {h.reflection for h in first.hits if users[0] in h.refs_direct}

        async def add_and_retire(circuit):  # type: ignore[no-untyped-def]
            await circuit.add_neuron(
                Neuron(id="n-0ab1c2d3e4f5", content="platypus lesson from spikuit",
                       type="reflection", domain="curator")
            )  # fmt: skip
            await circuit.remove_neuron(rid)

        asyncio.run(_with_agent(agent["db_path"], add_and_retire))
        words = recall(p, RecallQuery(text="platypus"), now=NOW)
        assert [h.reflection for h in words.hits] == ["n-0ab1c2d3e4f5"]
        again = recall(p, RecallQuery(refs=(users[0],), limit=20), now=NOW)
        assert rid not in {h.reflection for h in again.hits}

    async def stats(circuit):  # type: ignore[no-untyped-def]
        return await circuit.stats()

    after = asyncio.run(_with_agent(agent["db_path"], stats))
    assert after["neurons"] == agent["stats"]["neurons"]  # one added, one retired
