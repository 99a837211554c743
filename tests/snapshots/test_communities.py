"""Communities and reflection view at 80×24 and 120×40, dark and light, time frozen."""

from __future__ import annotations

import pytest
from textual.widgets import Input

from brainview.demo.generator import DEMO_NOW
from brainview.store.discovery import discover
from brainview.tui.app import make_app
from brainview.tui.clock import frozen
from brainview.tui.widgets.throttled_plot import ThrottledPlot
from tests.tui_helpers import settle


async def _settled(pilot) -> None:  # type: ignore[no-untyped-def]
    """Workers done, messages handled and no plot waiting for its throttle interval."""
    await settle(pilot)
    for _ in range(40):
        if not any(p.pending for p in pilot.app.screen.query(ThrottledPlot)):
            break
        await pilot.pause(0.05)
    await pilot.pause(0.1)


def _app(root, theme: str | None = None):  # type: ignore[no-untyped-def]
    app = make_app(discover(root), clock=frozen(DEMO_NOW), start="communities", decider="snap")
    if theme:
        app.theme = theme
    return app


class TestCommunities:
    """Cluster list, the first cluster's members and its R plots."""

    @pytest.mark.parametrize("size", [(80, 24), (120, 40)])
    def test_communities(self, snap_compare, fixed_demo, size) -> None:  # type: ignore[no-untyped-def]
        assert snap_compare(_app(fixed_demo), terminal_size=size, run_before=_settled)

    def test_communities_light(self, snap_compare, fixed_demo) -> None:  # type: ignore[no-untyped-def]
        app = _app(fixed_demo, theme="textual-light")
        assert snap_compare(app, terminal_size=(120, 40), run_before=_settled)

    @pytest.mark.parametrize("size", [(80, 24), (120, 40)])
    def test_fading_list(self, snap_compare, fixed_demo, size) -> None:  # type: ignore[no-untyped-def]
        async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
            await _settled(pilot)
            await pilot.press("f")
            await _settled(pilot)

        assert snap_compare(_app(fixed_demo), terminal_size=size, run_before=run_before)


class TestReflectionView:
    """The weakest member of the first cluster: text, card, history and forecast."""

    @pytest.mark.parametrize("size", [(80, 24), (120, 40)])
    def test_reflection(self, snap_compare, fixed_demo, size) -> None:  # type: ignore[no-untyped-def]
        async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
            await _settled(pilot)
            await pilot.press("tab", "enter")
            await _settled(pilot)

        assert snap_compare(_app(fixed_demo), terminal_size=size, run_before=run_before)


class TestInvalidateDialog:
    """Invalidate from the reflection view: reason, blast radius with ⟦titles⟧, count."""

    @pytest.mark.parametrize("size", [(80, 24), (120, 40)])
    def test_invalidate(self, snap_compare, fixed_demo, size) -> None:  # type: ignore[no-untyped-def]
        async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
            await _settled(pilot)
            await pilot.press("tab", "enter")
            await _settled(pilot)
            await pilot.press("x")
            await _settled(pilot)
            for box in pilot.app.screen.query(Input):  # no blinking cursor in a snapshot
                box.cursor_blink = False
            await pilot.pause()

        assert snap_compare(_app(fixed_demo), terminal_size=size, run_before=run_before)
