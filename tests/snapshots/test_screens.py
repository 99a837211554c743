"""Key screens at 80×24 and 120×40 with time frozen, dark and light."""

from __future__ import annotations

import pytest

from brainview.demo.generator import DEMO_NOW
from brainview.store.discovery import discover
from brainview.tui.app import make_app
from brainview.tui.clock import frozen
from tests.tui_helpers import settle


async def _settle(pilot) -> None:  # type: ignore[no-untyped-def]
    await settle(pilot)


def _app(root, start: str, theme: str | None = None):  # type: ignore[no-untyped-def]
    app = make_app(discover(root), clock=frozen(DEMO_NOW), start=start, decider="snap")
    if theme:
        app.theme = theme
    return app


class TestOverview:
    """The overview: both brains' vital signs and retention plots."""

    @pytest.mark.parametrize("size", [(80, 24), (120, 40)])
    def test_overview(self, snap_compare, fixed_demo, size) -> None:  # type: ignore[no-untyped-def]
        assert snap_compare(_app(fixed_demo, "overview"), terminal_size=size, run_before=_settle)


class TestTriage:
    """The triage console on the demo queue."""

    @pytest.mark.parametrize("size", [(80, 24), (120, 40)])
    def test_triage(self, snap_compare, fixed_demo, size) -> None:  # type: ignore[no-untyped-def]
        assert snap_compare(_app(fixed_demo, "triage"), terminal_size=size, run_before=_settle)

    def test_triage_light(self, snap_compare, fixed_demo) -> None:  # type: ignore[no-untyped-def]
        app = _app(fixed_demo, "triage", theme="textual-light")
        assert snap_compare(app, terminal_size=(120, 40), run_before=_settle)


class TestConsole:
    """Palette, help and a remapped key."""

    def test_help(self, snap_compare, fixed_demo) -> None:  # type: ignore[no-untyped-def]
        async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
            await settle(pilot)
            await pilot.press("f1")
            await settle(pilot)

        app = _app(fixed_demo, "triage")
        assert snap_compare(app, terminal_size=(120, 40), run_before=run_before)

    def test_palette(self, snap_compare, fixed_demo) -> None:  # type: ignore[no-untyped-def]
        async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
            await settle(pilot)
            await pilot.press("ctrl+p")
            await pilot.pause(0.2)
            await pilot.press(*"proposal")
            await pilot.pause(0.5)
            from textual.widgets import Input

            for box in pilot.app.screen.query(Input):  # no blinking cursor in a snapshot
                box.cursor_blink = False
                box.refresh()
            await pilot.pause(0.1)

        app = _app(fixed_demo, "triage")
        assert snap_compare(app, terminal_size=(120, 40), run_before=run_before)

    def test_remapped_accept_key_in_footer(self, snap_compare, fixed_demo) -> None:  # type: ignore[no-untyped-def]
        from brainview.config import Config

        app = make_app(
            discover(fixed_demo),
            clock=frozen(DEMO_NOW),
            start="triage",
            decider="snap",
            config=Config(keys={"triage.accept": "y", "triage.reject": "n"}),
        )
        assert snap_compare(app, terminal_size=(120, 40), run_before=_settle)
