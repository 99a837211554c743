"""Issue 32's console frictions, each driven through the real app (time frozen)."""

from __future__ import annotations

from brainview.demo.generator import DEMO_NOW
from brainview.store.discovery import discover
from brainview.tui.app import make_app
from brainview.tui.clock import frozen
from brainview.tui.communities import CommunitiesScreen
from tests.tui_helpers import settle


def _app(root, start: str = "triage"):  # type: ignore[no-untyped-def]
    return make_app(discover(root), clock=frozen(DEMO_NOW), start=start, decider="pilot")


class TestNothingInFlightAfterCommunities:
    """A service call cancelled before it ran still leaves the in-flight count."""

    async def test_q_quits_at_once_after_visiting_communities(self, demo) -> None:  # type: ignore[no-untyped-def]
        root, _ = demo
        app = _app(root)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            for _ in range(2):
                await pilot.press("3")
                await pilot.pause()
                await pilot.press("j", "j", "k")
                await pilot.press("1")
                await pilot.pause()
            await pilot.press("3")
            await settle(pilot)
            assert isinstance(app.screen, CommunitiesScreen)
            await pilot.press("1")
            await settle(pilot)
            assert app.services.running() == 0
            await pilot.press("q")
            await pilot.pause()
            assert not app.is_running


def _decisions(root) -> int:  # type: ignore[no-untyped-def]
    import sqlite3

    conn = sqlite3.connect(root / ".spikuit" / "agent" / "circuit.db")
    try:
        return int(conn.execute("SELECT count(*) FROM brainview_decision").fetchone()[0])
    finally:
        conn.close()


class TestNoDecisionFromText:
    """Keys typed on after ``enter`` in the filter are text, never a decision."""

    async def test_text_after_enter_goes_back_into_the_filter(self, demo) -> None:  # type: ignore[no-untyped-def]
        from brainview.tui.triage.filter_bar import FilterBar
        from brainview.tui.triage.screen import TriageScreen
        from brainview.tui.widgets.reason_prompt import ReasonPrompt

        root, _ = demo
        before = _decisions(root)
        app = _app(root)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await pilot.press("slash", *"link", "enter", *"retire", "enter")
            await settle(pilot)
            assert isinstance(app.screen, TriageScreen)  # no reason prompt opened
            bar = app.screen.query_one(FilterBar)
            assert bar.value == "linkretire"
            assert _decisions(root) == before
            # Moving the cursor hands the keys back to the queue: r asks for a reason.
            bar.value = "link"
            await pilot.press("enter", "j", "r")
            await pilot.pause()
            assert isinstance(app.screen, ReasonPrompt) and bar.value == "link"
            await pilot.press("escape")
            await settle(pilot)
            # Another verb (w: recall) acts at once; back from it, r decides again.
            await pilot.press("slash", "enter", "w")
            await settle(pilot)
            assert type(app.screen).__name__ == "RecallScreen"
            await pilot.press("escape")
            await settle(pilot)
            await pilot.press("r")
            await pilot.pause()
            assert isinstance(app.screen, ReasonPrompt) and bar.value == "link"


def screen_text(app) -> str:  # type: ignore[no-untyped-def]
    """The characters on screen now."""
    update = app.screen._compositor.render_update(full=True)
    return "\n".join("".join(s.text for strip in line for s in strip) for line in update.strips)


class TestSmallScreens:
    """80×24 keeps what a decision needs on screen."""

    async def test_a_flagged_proposals_change_table_stays_on_screen(self, demo) -> None:  # type: ignore[no-untyped-def]
        import json
        import sqlite3

        root, info = demo
        conn = sqlite3.connect(root / ".spikuit" / "agent" / "circuit.db")
        try:
            (pid,) = conn.execute(
                "SELECT id FROM brainview_proposal WHERE status = 'pending' "
                "AND kind = 'add_synapse' ORDER BY created_at LIMIT 1"
            ).fetchone()
            flags = [
                {"kind": "blast", "reflection": r, "role": "consulted"}
                for r in info.reflection_ids[:3]
            ]
            conn.execute(
                "UPDATE brainview_proposal SET suspicion = ? WHERE id = ?", (json.dumps(flags), pid)
            )
            conn.commit()
        finally:
            conn.close()
        app = _app(root)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.press("slash", *pid, "enter")
            await settle(pilot)
            assert app.screen.queue.current_id == pid
            shown = screen_text(app)
            assert "suspect" in shown
            assert "synapse ⟦" in shown and " after" in shown, shown

    async def test_a_remapped_accept_key_stays_in_the_footer(self, demo) -> None:  # type: ignore[no-untyped-def]
        from brainview.config import Config
        from brainview.tui.footer import Footer

        root, _ = demo
        app = make_app(
            discover(root),
            clock=frozen(DEMO_NOW),
            start="triage",
            decider="pilot",
            config=Config(keys={"triage.accept": "y", "triage.reject": "n"}),
        )
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            footer = app.screen.query_one(Footer)
            shown = [(k.key_display, k.description) for k in footer.query("FooterKey")]
            keys = [k for k, _d in shown]
            assert ("y", "Accept") in shown and ("n", "Reject") in shown, shown
            assert keys.index("y") < keys.index("n")  # the review verbs lead, as declared

    async def test_communities_at_80x24_labels_plots_and_threshold(self, demo) -> None:  # type: ignore[no-untyped-def]
        import re

        from brainview.tui.widgets.curve_plots import DistributionPlot, ForecastPlot

        root, _ = demo
        app = _app(root, start="communities")
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.pause(0.4)  # past the plots' throttle
            screen = app.screen
            assert isinstance(screen, CommunitiesScreen)
            label = screen.clusters.table.columns[screen.clusters.table.ordered_columns[1].key]
            assert label.width >= 20
            assert screen.query_one(DistributionPlot).size.height >= 6
            forecast = screen.query_one(ForecastPlot)
            assert forecast.size.height >= 6
            shown = screen_text(app)
            # The threshold's line is labelled with the threshold, never a neighbour.
            assert re.search(r"0\.70[┤├─┼]", shown) or "0.70" in shown.split("forecast")[-1]
            assert not re.search(r"0\.80[┤├─┼]─{20,}", shown)


class TestWideScreens:
    """120×40 keeps the counts and the full-screen lessons whole."""

    async def test_the_marked_count_is_on_screen(self, demo) -> None:  # type: ignore[no-untyped-def]
        root, _ = demo
        app = _app(root)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await pilot.press("space", "j", "space", "j", "space")
            await settle(pilot)
            assert len(app.screen.queue.marked) == 3
            assert "3 marked" in screen_text(app)

    async def test_zoomed_lessons_keep_their_border_and_wrap(self, demo) -> None:  # type: ignore[no-untyped-def]
        from brainview.tui.triage.panes import AgentPane

        root, _ = demo
        app = _app(root)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await pilot.press("z")
            await settle(pilot)
            pane = app.screen.query_one(AgentPane)
            assert app.screen.maximized is pane
            assert pane.region.right <= 120 and pane.region.width >= 110
            lines = screen_text(app).splitlines()
            assert lines[0].rstrip().endswith("╮")  # the right border is on screen
