"""Overview: paints at once, fills in from workers, reports a missing agent brain."""

from __future__ import annotations

import shutil

from brainview.demo.generator import DEMO_NOW
from brainview.store.discovery import discover
from brainview.tui.app import make_app
from brainview.tui.clock import frozen
from brainview.tui.overview.vitals import Vitals
from brainview.tui.widgets.retention_plot import RetentionPlot
from tests.tui_helpers import settle


async def test_overview_fills_in_counts(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    app = make_app(discover(root), clock=frozen(DEMO_NOW), start="overview")
    async with app.run_test(size=(120, 40)) as pilot:
        user = app.screen.query_one("#user-vitals", Vitals)
        await settle(pilot)
        assert user.data is not None and user.data["neurons"] == 300
        agent = app.screen.query_one("#agent-vitals", Vitals)
        assert agent.proposals is not None and agent.proposals["pending"] == 36
        plot = app.screen.query_one("#agent-retention", RetentionPlot)
        assert plot.summary is not None and sum(plot.summary.counts) > 100


async def test_loading_state_before_workers(demo, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import threading

    from brainview.services.metrics import stats

    root, _ = demo
    gate = threading.Event()
    real = stats.project_stats

    def slow(project):  # type: ignore[no-untyped-def]
        gate.wait(10)
        return real(project)

    monkeypatch.setattr(stats, "project_stats", slow)
    app = make_app(discover(root), clock=frozen(DEMO_NOW), start="overview")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause(0.1)
        vitals = app.screen.query_one("#user-vitals", Vitals)
        # Painted, but nothing counted yet: a loading line instead of numbers.
        assert vitals.data is None
        assert "counting" in str(vitals.render())
        gate.set()
        await settle(pilot)
        assert vitals.data is not None and vitals.data["neurons"] == 300


async def test_no_agent_brain_is_shown_clearly(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    shutil.rmtree(root / ".spikuit" / "agent")
    app = make_app(discover(root), clock=frozen(DEMO_NOW))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.current_mode == "overview"
        agent = app.screen.query_one("#agent-vitals", Vitals)
        assert "No agent brain yet" in agent.missing


async def test_starts_on_triage_when_pending(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    app = make_app(discover(root), clock=frozen(DEMO_NOW))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.current_mode == "triage"
        await pilot.press("1")
        await pilot.pause()
        assert app.current_mode == "overview"


async def test_help_lists_effective_keys(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    app = make_app(discover(root), clock=frozen(DEMO_NOW), start="triage")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("f1")
        await pilot.pause()
        from textual.widgets import DataTable

        table = app.screen.query_one("#help-keys", DataTable)
        actions = [str(table.get_row_at(i)[1]) for i in range(table.row_count)]
        assert "Accept" in actions and "Reject" in actions and "Help" in actions
        await pilot.press("escape")
        await pilot.pause()
        assert app.current_mode == "triage"


async def test_metrics_fill_in_after_decisions(demo) -> None:  # type: ignore[no-untyped-def]
    from textual.widgets import Sparkline

    from brainview.services import review
    from brainview.services.project import Project

    root, info = demo
    fresh = [p for p in info.proposal_ids if p not in info.stale_proposal_ids]
    with Project.open(discover(root), write_agent=True) as project:
        review.decide(
            project, fresh[0], "accept", decider="t", now=DEMO_NOW, seconds_on_screen=12.0
        )
        review.decide(
            project, fresh[1], "reject", decider="t", now=DEMO_NOW, seconds_on_screen=20.0
        )
    app = make_app(discover(root), clock=frozen(DEMO_NOW), start="overview")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        text = str(app.screen.query_one("#metrics-text").render())
        assert "acceptance 50%" in text and "MAC 16.0 s/decision" in text
        assert app.screen.query_one("#spark-acceptance", Sparkline).display


async def test_overview_counts_again_after_triage(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    app = make_app(discover(root), clock=frozen(DEMO_NOW), start="overview", decider="ann")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        agent = app.screen.query_one("#agent-vitals", Vitals)
        assert agent.proposals is not None and agent.proposals["pending"] == 36
        await pilot.press("2")
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        await pilot.press("1")
        await settle(pilot)
        assert agent.proposals["pending"] == 35
        assert agent.proposals["accepted"] == 1
