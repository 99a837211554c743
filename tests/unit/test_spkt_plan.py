"""Spikuit consolidation plans as proposals, on brains built by the real Spikuit 0.7.1.

* our state hash is Spikuit's ``_graph_state_hash``;
* a plan (the all-kinds example, and a real ``spkt consolidate --json``) imports as
  one proposal per item, in Spikuit's apply order;
* accepting every item one by one leaves the same live neurons, synapses and weights
  as ``spkt consolidate apply`` on a copy;
* items go stale when the brain changes outside brainview, not when brainview
  applies (or undoes) items of the same plan.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import subprocess
import sys
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from brainview.errors import ConflictError, InvalidInputError
from brainview.services import apply, review
from brainview.services.apply.stale import QueuedRef, stale_for
from brainview.services.intake import spkt_plan
from brainview.services.project import Project
from brainview.services.review.queue import page
from tests.compat.spikuit_builder import build_spikuit_project
from tests.project_copy import copy_project

pytestmark = pytest.mark.compat
EXAMPLE = Path(__file__).resolve().parents[1] / "compat" / "data" / "consolidate_plan_example.json"
SPKT = Path(sys.executable).parent / "spkt"


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("plan") / "proj"
    build_spikuit_project(root, seed=7, n_neurons=40)
    return root


@pytest.fixture
def clock(template: Path) -> datetime:
    """Now, taken after the template brain was built (Spikuit stamps its own wall-clock
    times, and a proposal older than a neuron's last change would be stale)."""
    return datetime.now(UTC) + timedelta(seconds=1)


@pytest.fixture
def brain(template: Path, tmp_path: Path) -> Path:
    root = tmp_path / "ours"
    copy_project(template, root)
    return root


def copy_of(template: Path, tmp_path: Path) -> Path:
    root = tmp_path / "theirs"
    copy_project(template, root)
    return root


def circuit(root: Path, fn: Any) -> Any:
    from spikuit_core import Circuit

    async def run() -> Any:
        c = Circuit(db_path=root / ".spikuit" / "circuit.db")
        await c.connect()
        try:
            return await fn(c)
        finally:
            await c.close()

    return asyncio.run(run())


def spkt(*args: str) -> str:
    done = subprocess.run([str(SPKT), *args], capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    return done.stdout


def live_state(root: Path) -> tuple[set[str], set[tuple[Any, ...]]]:
    conn = sqlite3.connect(root / ".spikuit" / "circuit.db")
    neurons = {r[0] for r in conn.execute("SELECT id FROM neuron WHERE retired_at IS NULL")}
    synapses = set(
        conn.execute(
            "SELECT pre, post, type, weight, confidence, confidence_score FROM synapse "
            "WHERE retired_at IS NULL"
        )
    )
    conn.close()
    return neurons, synapses


def import_plan(root: Path, plan: Any, now: datetime | None = None) -> list[Any]:
    with Project.locate(root, write_agent=True) as p:
        return spkt_plan.import_plan(p, plan, now=now or datetime.now(UTC))


def accept_all(root: Path, now: datetime) -> list[review.DecisionResult]:
    """Accept every pending proposal, one at a time, in queue order."""
    out = []
    with Project.locate(root, write_agent=True, write_user=True) as p:
        rows, _total = page(p, limit=10_000)
        applier = apply.applier_for(p.paths)
        for row in rows:
            assert row.stale is None, (row.id, row.stale)
            out.append(review.decide(p, row.id, "accept", decider="ann", now=now, applier=applier))
    return out


def stale_now(root: Path) -> dict[str, str]:
    with Project.locate(root) as p, p.require_agent().read() as conn:
        refs = [
            QueuedRef(*r)
            for r in conn.exec_driver_sql(
                "SELECT id, kind, params_json, created_at FROM brainview_proposal "
                "WHERE status = 'pending'"
            )
        ]
        return stale_for(p, refs, agent_conn=conn)


# -- the hash ---------------------------------------------------------------------------


def test_state_hash_is_spikuits(brain: Path) -> None:
    theirs = circuit(brain, lambda c: asyncio.sleep(0, c._graph_state_hash()))
    with Project.locate(brain) as p:
        ours = spkt_plan.current_hash(p)
    assert ours == theirs == json.loads(EXAMPLE.read_text())["state_hash"]

    async def change(c: Any) -> str:
        from spikuit_core import SynapseType

        (s,) = [x for x in await c.list_synapses(type=SynapseType.REQUIRES)][:1]
        await c.set_synapse_weight(s.pre, s.post, s.type, 0.123)
        return c._graph_state_hash()

    after = circuit(brain, change)
    with Project.locate(brain) as p:
        assert spkt_plan.current_hash(p) == after != ours


# -- importing ----------------------------------------------------------------------------


def test_example_plan_imports_one_proposal_per_item_in_apply_order(brain: Path) -> None:
    batch = import_plan(brain, EXAMPLE.read_bytes())
    kinds = [p.kind for p in batch]
    assert Counter(kinds) == {
        "note": 16,  # 6 REM near-duplicates + 10 forget candidates: advisory
        "add_synapse": 5,
        "set_synapse_weight": 58,
        "remove_synapse": 3,  # 4 prunable rows, one relates_to pair counted once
        "retire_neuron": 1,
    }
    order = ["note", "add_synapse", "set_synapse_weight", "remove_synapse", "retire_neuron"]
    assert [k for k, _n in Counter(kinds).items()] == order
    add = next(p for p in batch if p.kind == "add_synapse")
    assert add.params["confidence"] == "inferred" and 0.85 <= add.params["confidence_score"] <= 1
    assert all(p.id.startswith("spkt-") and p.consulted == [] for p in batch)
    conn = sqlite3.connect(brain / ".spikuit" / "agent" / "circuit.db")
    hashes = {r[0] for r in conn.execute("SELECT state_hash FROM brainview_plan_item")}
    conn.close()
    assert hashes == {"afa14b87863e0d3f"}


def test_import_refusals_write_nothing(brain: Path) -> None:
    plan = json.loads(EXAMPLE.read_text())
    with pytest.raises(InvalidInputError, match="not valid JSON"):
        import_plan(brain, b"{nope")
    with pytest.raises(InvalidInputError, match="state_hash"):
        import_plan(brain, {"sws": {}})
    with pytest.raises(InvalidInputError, match="changed since this plan was made"):
        import_plan(brain, {**plan, "state_hash": "0000000000000000"})
    with pytest.raises(InvalidInputError, match="unknown action"):
        import_plan(brain, {**plan, "shy": {**plan["shy"], "decayed": [{"action": "boom"}]}})
    conn = sqlite3.connect(brain / ".spikuit" / "agent" / "circuit.db")
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    conn.close()
    assert "brainview_proposal" not in tables
    import_plan(brain, plan)
    with pytest.raises(InvalidInputError, match="already queued"):
        import_plan(brain, plan)


# -- accepting every item == spkt consolidate apply ---------------------------------------


def test_accepting_every_example_item_equals_spkt_consolidate_apply(
    brain: Path, template: Path, tmp_path: Path, clock: datetime
) -> None:
    theirs = copy_of(template, tmp_path)
    spkt("consolidate", "apply", str(EXAMPLE), "--brain", str(theirs))
    import_plan(brain, EXAMPLE.read_text(), clock)
    results = accept_all(brain, clock)
    assert len(results) == 83 and {r.apply_state for r in results} == {"applied"}
    assert live_state(brain) == live_state(theirs)
    stats = [circuit(r, lambda c: c.stats()) for r in (brain, theirs)]
    assert stats[0] == stats[1]


def test_a_real_spkt_plan_imports_and_applies_like_spkt(
    brain: Path, template: Path, tmp_path: Path, clock: datetime
) -> None:
    plan_text = spkt("consolidate", "--json", "--brain", str(brain))
    plan = json.loads(plan_text)
    assert plan["summary"]["weight_decays"] > 0 and plan["sws"]["latent_synapses"] == []
    theirs = copy_of(template, tmp_path)
    (theirs / "plan.json").write_text(plan_text)
    spkt("consolidate", "apply", str(theirs / "plan.json"), "--brain", str(theirs))
    batch = import_plan(brain, plan_text, clock)
    assert {p.kind for p in batch} >= {"set_synapse_weight", "remove_synapse", "note"}
    accept_all(brain, clock)
    assert live_state(brain) == live_state(theirs)


# -- staleness ------------------------------------------------------------------------------


def test_own_items_keep_the_rest_fresh_outside_changes_make_them_stale(
    brain: Path, clock: datetime
) -> None:
    now = clock
    batch = import_plan(brain, EXAMPLE.read_bytes(), now)
    weights = [p.id for p in batch if p.kind == "set_synapse_weight"]
    with Project.locate(brain, write_agent=True, write_user=True) as p:
        applier = apply.applier_for(p.paths)
        first = review.decide(p, weights[0], "accept", decider="ann", now=now, applier=applier)
        review.decide(p, weights[1], "accept", decider="ann", now=now, applier=applier)
        review.undo(p, first.decision_id, now=now, actor="ann")
    assert stale_now(brain) == {}

    async def outside(c: Any) -> None:  # someone runs spkt on the brain meanwhile
        from spikuit_core import SynapseType

        await c.add_synapse(batch[0].params["neurons"][0], batch[-1].params["neuron"],
                            SynapseType.REQUIRES)  # fmt: skip

    circuit(brain, outside)
    reasons = stale_now(brain)
    assert set(reasons) == {p.id for p in batch} - {weights[1]}
    assert all("changed since the spkt plan was made" in r for r in reasons.values())
    with Project.locate(brain, write_agent=True, write_user=True) as p:
        with pytest.raises(ConflictError, match="spkt plan"):
            review.decide(p, weights[2], "accept", decider="ann", now=now,
                          applier=apply.applier_for(p.paths))  # fmt: skip
        dismissed = review.dismiss(p, weights[2], decider="ann", now=now)
    assert dismissed.verdict == "dismiss"
