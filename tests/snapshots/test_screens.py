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
