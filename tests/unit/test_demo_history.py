"""The demo's seeded past (``brainview demo``): real decisions and a consolidation, so
the Overview's metrics show something on first open — and the queue keeps its meaning."""

from __future__ import annotations

import sqlite3

from brainview.demo.generator import DEMO_NOW, DemoSpec
from brainview.services import metrics
from brainview.services.metrics.stats import project_stats
from brainview.services.project import Project
from brainview.store.discovery import discover


def test_history_feeds_every_metric_and_leaves_the_queue(make_demo) -> None:  # type: ignore[no-untyped-def]
    root, info = make_demo(DemoSpec(history=True), name="hist")
    with Project.open(discover(root)) as p:
        stats = project_stats(p)
        m = metrics.agent_metrics(p, DEMO_NOW, threshold=0.7, days=14).to_json()
    assert stats["proposals"]["pending"] == 36
    assert stats["proposals"]["stale"] == 3
    runtimes = {r["runtime"]: r for r in m["by_runtime"]}
    a, b = runtimes["curator-model-a"], runtimes["curator-model-b"]
    assert a["decisions"] == b["decisions"] == 15
    assert a["rate"] > b["rate"]
    (cons,) = m["consolidations"]
    assert cons["pending"] == 0 and cons["n_items"] == cons["accepted"] + cons["rejected"]
    assert sum(m["policies_accepted_per_week"].values()) == 1
    weeks = [w["median_seconds"] for w in m["decision_time"]]
    assert len(weeks) >= 6 and weeks[0] > weeks[-1]
    conn = sqlite3.connect(root / ".spikuit" / "agent" / "circuit.db")
    applied = conn.execute(
        "SELECT DISTINCT apply_state FROM brainview_decision d JOIN brainview_proposal p "
        "ON p.id = d.proposal_id WHERE p.source = 'demo-history'"
    ).fetchall()
    stale = set(info.stale_proposal_ids)
    conn.close()
    assert applied == [("recorded",)]
    assert len(stale) == 3
