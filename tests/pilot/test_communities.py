"""Communities screen and reflection view driven through the real app (time frozen)."""

from __future__ import annotations

import sqlite3
import sys

from textual.widgets import TabbedContent

from brainview.demo.generator import DEMO_NOW
from brainview.services.communities import cache as community_cache
from brainview.services.communities import runner as clustering_runner
from brainview.store.discovery import discover
from brainview.tui.app import make_app
from brainview.tui.clock import frozen
from brainview.tui.communities import CommunitiesScreen
from brainview.tui.reflection import ReflectionScreen
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
        clusters = screen.clusters
        assert clusters.total == 13 and [r.size for r in clusters.rows[:12]] == [13] * 6 + [12] * 6
        singles = clusters.rows[-1]
        assert singles.number == -1 and singles.size == len(info.adversarial_ids)
        # The summarised themes show their policy; labels are distinctive words.
        assert sum(1 for r in clusters.rows if r.policies) == 2
        assert all(r.label for r in clusters.rows[:12])
        table = clusters.table
        assert table.row_count == 13
        shown = str(table.get_row_at(0)[1]).rstrip("…")
        assert shown and clusters.rows[0].label.startswith(shown)
        members = screen.member_list.table
        assert members.row_count == 13 and clusters.number == 0
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
        clusters, members = screen.clusters, screen.member_list
        assert clusters.number == clusters.rows[2].number
        first_member = members.members[0]
        assert members.table.get_row_at(0)[0].plain == first_member.title
        r = [m.r_now for m in members.members]
        assert r == sorted(r)  # weakest first
        await pilot.press("o")
        await settle(pilot)
        assert clusters.sort == "fading"
        means = [row.mean_r for row in clusters.rows]
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
        pane = screen.fading_pane
        assert pane.fading is not None and pane.fading.rows
        first = pane.fading.rows[0].id
        await pilot.press("K")
        await settle(pilot)
        second = pane.fading.rows[1].id
        await pilot.press("L")
        await settle(pilot)
        decided = {r.id: r.decision for r in pane.fading.rows}
        assert decided[first] == "rescue" and decided[second] == "let_go"
        assert "kept" in pane.table.get_row_at(0)[5].plain
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
        assert {r.id: r.decision for r in pane.fading.rows}[second] is None


async def test_enter_opens_reflection_view_and_escape_returns(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    app = _app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        communities = app.screen
        wanted = communities.member_list.members[0].id
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
        line = screen.clustering
        assert line.running and line.job is not None
        assert line.display
        assert "detecting communities · esc cancels" in str(progress.render())
        proc = line.job._proc
        await pilot.press("f")  # the UI answers while the child works
        await pilot.pause(0.1)
        assert screen.query_one("#communities-tabs", TabbedContent).active == "fading-tab"
        await pilot.press("escape")
        await settle(pilot)
        assert not line.running and line.display is False
        assert proc is not None and proc.poll() is not None
    # Cancelled: nothing was cached (in memory or on disk).
    assert community_cache.lookup(root / ".spikuit" / "agent" / "circuit.db", None) == (None, False)


async def test_invalidate_on_the_fading_list_targets_the_highlighted_row(demo) -> None:  # type: ignore[no-untyped-def]
    from brainview.tui.lifecycle import InvalidateScreen

    root, _ = demo
    app = _app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("f")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, CommunitiesScreen)
        pane = screen.fading_pane
        assert pane.fading and pane.fading.rows
        await pilot.press("down")
        expected = pane.fading.rows[pane.table.cursor_row].id
        await pilot.press("x")
        await settle(pilot)
        modal = app.screen
        assert isinstance(modal, InvalidateScreen) and modal.targets == [expected]
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("f")  # back on the clusters table: the whole community
        await settle(pilot)
        screen.clusters.table.focus()
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
        assert screen.clusters.data is not None and pruned in screen.clusters.data.ids
        await pilot.press("2")
        await settle(pilot)
        app.screen.show_only(ids[k])
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        await pilot.press("3")
        await settle(pilot, rounds=8)
        data = screen.clusters.data
        assert app.screen is screen and data is not None
        assert pruned not in data.ids


async def test_the_queue_fingerprint_is_read_before_the_communities(demo, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Back from triage the screen reads again only if the queue's fingerprint moved
    since its last read; that fingerprint must be older than the communities it read
    (read after, a decision landing between the two would never be read)."""
    from brainview.tui.communities import screen as communities_screen
    from brainview.tui.communities.screen import ClusteringLine

    root, _ = demo
    order: list[str] = []
    real_signature, real_start = communities_screen._queue_signature, ClusteringLine.start

    def signature(session):  # type: ignore[no-untyped-def]
        order.append("fingerprint")
        return real_signature(session)

    def start(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        order.append("communities")
        return real_start(self, *args, **kwargs)

    monkeypatch.setattr(communities_screen, "_queue_signature", signature)
    monkeypatch.setattr(ClusteringLine, "start", start)
    app = _app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert order[:2] == ["fingerprint", "communities"]
        order.clear()
        app.screen.action_reload()
        await settle(pilot)
        assert order[:2] == ["fingerprint", "communities"]
