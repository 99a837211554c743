"""Communities screen and reflection view driven through the real app (time frozen)."""

from __future__ import annotations

import sqlite3
import sys

from textual.widgets import DataTable, TabbedContent

from brainview.demo.generator import DEMO_NOW
from brainview.services.communities import cache as community_cache
from brainview.services.communities import runner as clustering_runner
from brainview.store.discovery import discover
from brainview.tui.app import make_app
from brainview.tui.clock import frozen
from brainview.tui.screens.communities import CommunitiesScreen
from brainview.tui.screens.reflection import ReflectionScreen
from brainview.tui.widgets.curve_plots import ForecastPlot, StabilityPlot
from tests.tui_helpers import settle


def _app(root, start: str = "communities"):  # type: ignore[no-untyped-def]
    return make_app(discover(root), clock=frozen(DEMO_NOW), start=start, decider="pilot")


def _agent(root, sql: str, params=()) -> list[tuple]:  # type: ignore[no-untyped-def,type-arg]
    conn = sqlite3.connect(root / ".spikuit" / "agent" / "circuit.db")
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


async def test_lists_communities_and_caches_them(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    app = _app(root, start="overview")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("3")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, CommunitiesScreen) and app.current_mode == "communities"
        assert screen.total == 13 and [r.size for r in screen.rows[:12]] == [13] * 6 + [12] * 6
        singles = screen.rows[-1]
        assert singles.number == -1 and singles.size == len(info.adversarial_ids)
        # The summarised themes show their policy; labels are distinctive words.
        assert sum(1 for r in screen.rows if r.policies) == 2
        assert all(r.label for r in screen.rows[:12])
        table = screen.query_one("#clusters", DataTable)
        assert table.row_count == 13
        assert str(table.get_row_at(0)[1]) == screen.rows[0].label
        members = screen.query_one("#members", DataTable)
        assert members.row_count == 13 and screen.number == 0
    # Cached outside the brain (reading writes no row): a fresh process finds it on disk.
    assert (
        _agent(root, "SELECT name FROM sqlite_master WHERE name LIKE 'brainview_community%'") == []
    )
    community_cache.forget()
    agent_db = root / ".spikuit" / "agent" / "circuit.db"
    part, _ = community_cache.lookup(agent_db, None)
    assert part is not None and community_cache.cache_file(agent_db).exists()
    assert len(part.ids) == len(info.reflection_ids) + len(info.adversarial_ids)


async def test_cursor_and_sort_drive_members_and_plots(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    app = _app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        await pilot.press("down", "down")
        await settle(pilot)
        assert screen.number == screen.rows[2].number
        first_member = screen.members[0]
        assert screen.query_one("#members", DataTable).get_row_at(0)[0].plain == first_member.title
        r = [m.r_now for m in screen.members]
        assert r == sorted(r)  # weakest first
        await pilot.press("o")
        await settle(pilot)
        assert screen.sort == "fading"
        means = [row.mean_r for row in screen.rows]
        assert means == sorted(means)
        forecast = screen.query_one("#cluster-forecast", ForecastPlot)
        assert forecast._drawn >= 1 and not forecast.pending


async def test_fading_rescue_let_go_and_undo(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    app = _app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        await pilot.press("f")
        await settle(pilot)
        assert screen.query_one("#communities-tabs", TabbedContent).active == "fading-tab"
        assert screen.fading is not None and screen.fading.rows
        first = screen.fading.rows[0].id
        await pilot.press("K")
        await settle(pilot)
        second = screen.fading.rows[1].id
        await pilot.press("L")
        await settle(pilot)
        decided = {r.id: r.decision for r in screen.fading.rows}
        assert decided[first] == "rescue" and decided[second] == "let_go"
        table = screen.query_one("#fading", DataTable)
        assert "kept" in table.get_row_at(0)[5].plain
        rows = _agent(
            root,
            "SELECT reflection_id, action, decider, undone_at FROM brainview_fading_decision "
            "ORDER BY id",
        )
        assert rows == [(first, "rescue", "pilot", None), (second, "let_go", "pilot", None)]
        await pilot.press("u")
        await settle(pilot)
        undone = _agent(root, "SELECT undone_at FROM brainview_fading_decision ORDER BY id")
        assert undone[0][0] is None and undone[1][0] is not None
        assert {r.id: r.decision for r in screen.fading.rows}[second] is None


async def test_enter_opens_reflection_view_and_escape_returns(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    app = _app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        communities = app.screen
        wanted = communities.members[0].id
        await pilot.press("tab", "enter")
        await settle(pilot)
        await pilot.pause(0.3)
        view = app.screen
        assert isinstance(view, ReflectionScreen) and view.reflection_id == wanted
        assert view.detail is not None and view.detail.neuron.id == wanted
        assert view.query_one("#reflection-audit").display is True  # audit trail mounted
        assert view.query_one("#audit").reflection_id == wanted
        stability = view.query_one("#stability-plot", StabilityPlot)
        assert stability._drawn >= 2 and not stability.pending
        text = view.query_one("#reflection-text").render()
        assert "[user:" not in str(text) and "⟦" in str(text)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is communities


async def test_hostile_reflection_text_is_inert(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    app = _app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.open_reflection(info.adversarial_ids[0])
        await settle(pilot)
        shown = str(app.screen.query_one("#reflection-text").render())
        assert "[@click=app.quit]Click here[/]" in shown and "[bold red]IMPORTANT" in shown
        app.open_reflection(info.adversarial_ids[1])
        await settle(pilot)
        shown = str(app.screen.query_one("#reflection-text").render())
        assert "\x1b" not in shown and "␛]52;c;" in shown
        app.open_reflection(info.adversarial_ids[-1])  # 30k characters: folded
        await settle(pilot)
        view = app.screen
        assert "m shows all" in str(view.query_one("#reflection-text").render())
        await pilot.press("m")
        await pilot.pause()
        assert "m shows all" not in str(view.query_one("#reflection-text").render())


async def test_heavy_run_shows_progress_stays_responsive_and_cancels(demo, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A child that reports a stage then takes its time: the UI keeps working, esc kills it."""
    root, _ = demo
    slow = (
        "import json, sys, time\n"
        "print(json.dumps({'stage': 'detecting communities', 'fraction': 0.5}), flush=True)\n"
        "time.sleep(60)\n"
    )
    monkeypatch.setattr(clustering_runner, "SUBPROCESS_MIN", 0)
    monkeypatch.setattr(
        clustering_runner.ClusteringJob, "child_command", lambda self: [sys.executable, "-c", slow]
    )
    app = _app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        progress = screen.query_one("#progress-text")
        for _ in range(200):  # the child starts, then reports its stage
            await pilot.pause(0.05)
            if "detecting" in str(progress.render()):
                break
        assert screen.running and screen.job is not None
        assert screen.query_one("#progress-line").display
        assert "detecting communities · esc cancels" in str(progress.render())
        proc = screen.job._proc
        await pilot.press("f")  # the UI answers while the child works
        await pilot.pause(0.1)
        assert screen.query_one("#communities-tabs", TabbedContent).active == "fading-tab"
        await pilot.press("escape")
        await settle(pilot)
        assert not screen.running and screen.query_one("#progress-line").display is False
        assert proc is not None and proc.poll() is not None
    # Cancelled: nothing was cached (in memory or on disk).
    assert community_cache.lookup(root / ".spikuit" / "agent" / "circuit.db", None) == (None, False)


async def test_invalidate_on_the_fading_list_targets_the_highlighted_row(demo) -> None:  # type: ignore[no-untyped-def]
    from brainview.tui.screens.invalidate import InvalidateScreen

    root, _ = demo
    app = _app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("f")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, CommunitiesScreen) and screen.fading and screen.fading.rows
        await pilot.press("down")
        expected = screen.fading.rows[screen.query_one("#fading", DataTable).cursor_row].id
        await pilot.press("x")
        await settle(pilot)
        modal = app.screen
        assert isinstance(modal, InvalidateScreen) and modal.targets == [expected]
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("f")  # back on the clusters table: the whole community
        await settle(pilot)
        screen.query_one("#clusters", DataTable).focus()
        await pilot.press("c")
        await settle(pilot)
        assert isinstance(app.screen, InvalidateScreen) and len(app.screen.targets) > 1


async def test_communities_read_again_after_a_prune_in_triage(demo) -> None:  # type: ignore[no-untyped-def]
    from brainview.services import consolidate
    from brainview.services.project import Project

    root, _ = demo
    with Project.open(discover(root), write_agent=True) as p:
        plan = consolidate.plan(p, now=DEMO_NOW, in_process=True)
        ids = consolidate.queue(p, plan, now=DEMO_NOW)
    k = next(k for k, i in enumerate(plan.items) if i.kind == "prune_reflection")
    pruned = plan.items[k].params["reflection"]
    app = _app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert screen.data is not None and pruned in screen.data.ids
        await pilot.press("2")
        await settle(pilot)
        app.screen.show_only(ids[k])
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        await pilot.press("3")
        await settle(pilot, rounds=8)
        assert app.screen is screen and screen.data is not None
        assert pruned not in screen.data.ids
