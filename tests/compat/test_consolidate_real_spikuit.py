"""A consolidation of an agent brain built by the real Spikuit 0.7.1, decided item by
item in brainview, equals the same changes made with Spikuit's own ``Circuit`` calls
(``remove_neuron``, ``set_synapse_weight``, ``remove_synapse``, ``add_neuron``,
``add_synapse``) — and a fresh ``Circuit`` opens the result and agrees."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from brainview.core.consolidation import Settings
from brainview.services import consolidate, review
from brainview.services.project import Project
from tests.compat.spikuit_builder import build_spikuit_project
from tests.project_copy import copy_project

pytestmark = pytest.mark.compat
LATER = timedelta(days=75)
"""Consolidate well after the builder's spikes, so lessons are stale and faded."""


def _agent(root: Path) -> Path:
    return root / ".spikuit" / "agent" / "circuit.db"


def on_agent(root: Path, fn: Callable[[Any], Awaitable[Any]]) -> Any:
    from spikuit_core import Circuit

    async def run() -> Any:
        circuit = Circuit(db_path=_agent(root))
        await circuit.connect()
        try:
            return await fn(circuit)
        finally:
            await circuit.close()

    return asyncio.run(run())


def state(root: Path) -> dict[str, Any]:
    con = sqlite3.connect(_agent(root))
    out = {
        "neuron": sorted(
            con.execute(
                "SELECT id, content, type, domain, retired_at IS NOT NULL FROM neuron"
            ).fetchall()
        ),
        "synapse": sorted(
            con.execute(
                "SELECT pre, post, type, round(weight, 6), confidence, confidence_score, "
                "retired_at IS NOT NULL FROM synapse"
            ).fetchall()
        ),
        "cards": sorted(r[0] for r in con.execute("SELECT neuron_id FROM fsrs_state")),
    }
    con.close()
    return out


def spikuit_does(plan: Any) -> Callable[[Any], Awaitable[None]]:
    """The plan as Spikuit's own calls, in plan order."""
    from spikuit_core import Neuron, SynapseType

    async def run(c: Any) -> None:
        for item in plan.items:
            p = item.params
            if item.kind in ("prune_reflection", "retire_policy"):
                await c.remove_neuron(p.get("reflection") or p["policy"])
            elif item.kind == "decay_synapses":
                for s in p["synapses"]:
                    typ = SynapseType(s["type"])
                    if s["to"] is None:
                        await c.remove_synapse(s["pre"], s["post"], typ)
                    else:
                        await c.set_synapse_weight(s["pre"], s["post"], typ, s["to"])
            else:
                await c.add_neuron(
                    Neuron(
                        id=p["policy"],
                        content=p["text"],
                        type="policy",
                        domain=p["domain"],
                        source="brainview consolidate",
                    )
                )
                if p.get("previous_policy"):
                    await c.remove_neuron(p["previous_policy"])
                for m in p["members"]:
                    await c.add_synapse(p["policy"], m, SynapseType.SUMMARIZES, weight=p["weight"])

    return run


def test_item_by_item_equals_spikuit_and_spikuit_agrees(tmp_path: Path) -> None:
    root = tmp_path / "built"
    build_spikuit_project(root)
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    copy_project(root, ours)
    copy_project(root, theirs)
    now = datetime.now(UTC) + LATER
    with Project.locate(ours, write_agent=True) as p:
        # The builder's agent brain is small: policies for communities of two.
        settings = Settings(min_community=2)
        plan = consolidate.plan(p, now=now, settings=settings, in_process=True)
        counts = plan.counts()
        assert counts["prune_reflection"] and counts["decay_synapses"]
        assert counts["summarize_community"], plan.skipped
        ids = consolidate.queue(p, plan, now=now)
        for pid in ids:
            review.decide(p, pid, "accept", decider="alice", now=now)
    on_agent(theirs, spikuit_does(plan))
    assert state(ours) == state(theirs)
    # A fresh Circuit reads brainview's result: same stats, pruned lessons gone.
    assert on_agent(ours, lambda c: c.stats()) == on_agent(theirs, lambda c: c.stats())
    pruned = [i.params["reflection"] for i in plan.items if i.kind == "prune_reflection"]

    async def check(c: Any) -> None:
        for rid in pruned:
            assert await c.get_neuron(rid) is None
        for item in plan.items:
            if item.kind == "summarize_community":
                got = await c.get_neuron(item.params["policy"])
                assert got is not None and got.type == "policy"
                links = await c.list_synapses(item.params["policy"])
                assert {s.post for s in links} >= set(item.params["members"])

    on_agent(ours, check)
