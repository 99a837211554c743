"""Metrics split by decider: each person's decisions, verdicts and seconds on screen, in
``stats --json`` and on the Overview once two or more people decided."""

from __future__ import annotations

import json
from pathlib import Path

from test_cli import cli
from test_metrics_panel import PanelApp, render, text_of

from brainview.core.identity import Identity
from brainview.demo.generator import DEMO_NOW, DemoInfo
from brainview.services.metrics import agent_metrics
from brainview.services.session import Session
from brainview.store.discovery import discover


def _as(root: Path, name: str) -> Session:
    ident = Identity(name, "reviewer")
    return Session.start(discover(root), clock=lambda: DEMO_NOW, identity=ident)


def _fresh(root: Path, n: int) -> list[str]:
    with _as(root, "reader") as s:
        rows, _ = s.queue_page()
    return [r.id for r in rows if not r.stale][:n]


def test_stats_split_decisions_by_decider(demo: tuple[Path, DemoInfo]) -> None:
    root, _ = demo
    p1, p2, p3, p4 = _fresh(root, 4)
    with _as(root, "alice") as alice, _as(root, "bob") as bob:
        alice.decide([p1], "reject", seconds_on_screen=4.0)
        alice.decide([p2], "reject", seconds_on_screen=10.0)
        alice.dismiss(p3)  # not timed
        bob.decide([p4], "reject", seconds_on_screen=30.0)
        bob.undo()  # undone: not a standing decision
        bob.decide([p4], "reject", seconds_on_screen=6.0)
        with alice.project() as project:
            rows = agent_metrics(project, DEMO_NOW, threshold=0.5, days=14).by_decider
    got = {r.decider: r.to_json() for r in rows}
    assert got["alice"] == {
        "decider": "alice",
        "decisions": 3,
        "accepted": 0,
        "rejected": 2,
        "dismissed": 1,
        "rate": 0.0,
        "mean_seconds": 7.0,
        "median_seconds": 7.0,
    }
    assert (got["bob"]["decisions"], got["bob"]["mean_seconds"]) == (1, 6.0)
    out = cli("stats", str(root), "--json")
    assert out.returncode == 0, out.stderr
    split = json.loads(out.stdout)["agent_metrics"]["by_decider"]
    assert [(r["decider"], r["decisions"]) for r in split] == [("alice", 3), ("bob", 1)]


def test_the_overview_lists_deciders_once_two_decided() -> None:
    base = {"acceptance": [], "decision_time": [], "policies_per_week": {}, "at_risk": None}
    alice = {"decider": "alice", "decisions": 3, "accepted": 1, "rejected": 1, "dismissed": 1}
    alice |= {"rate": 0.5, "mean_seconds": 7.0, "median_seconds": 7.0}
    bob = {"decider": "bob", "decisions": 1, "accepted": 0, "rejected": 1, "dismissed": 0}
    bob |= {"rate": 0.0, "mean_seconds": None, "median_seconds": None}

    async def two(app: PanelApp) -> None:
        lines = text_of(app).splitlines()
        assert any(line.startswith("by decider") for line in lines)
        rows = [line.split() for line in lines if line.startswith(("alice", "bob"))]
        assert rows == [["alice", "1/2", "50%", "7.0", "s", "3"], ["bob", "0/1", "0%", "—", "1"]]

    async def one(app: PanelApp) -> None:
        assert "by decider" not in text_of(app)

    render(base | {"by_decider": [alice, bob]}, two)
    render(base | {"by_decider": [alice]}, one)
