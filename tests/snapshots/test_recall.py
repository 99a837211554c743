"""The recall box at 80×24 and 120×40 with time frozen, dark and light."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.widgets import Input

from brainview.core.refs import parse_refs
from brainview.demo.generator import DEMO_NOW
from brainview.store.discovery import discover
from brainview.store.recall_handle import close_all
from brainview.tui.app import make_app
from brainview.tui.clock import frozen
from tests.tui_helpers import settle


@pytest.fixture(autouse=True)
def _fresh_handles() -> Iterator[None]:
    yield
    close_all()


def _app(root: Path, start: str, theme: str | None = None):  # type: ignore[no-untyped-def]
    app = make_app(discover(root), clock=frozen(DEMO_NOW), start=start, decider="snap")
    if theme:
        app.theme = theme
    return app


async def _still(pilot) -> None:  # type: ignore[no-untyped-def]
    """Workers done; the box's cursor stops blinking (a blink is a coin toss per shot)."""
    await settle(pilot)
    pilot.app.screen.query_one("#recall-input", Input).cursor_blink = False
    await pilot.pause()


async def _for_proposal(pilot) -> None:  # type: ignore[no-untyped-def]
    await settle(pilot)
    await pilot.press("w")
    await _still(pilot)


def _cited(root: Path) -> str:
    """A user neuron that a "keywords overlap" lesson cites."""
    conn = sqlite3.connect(root / ".spikuit" / "agent" / "circuit.db")
    try:
        (content,) = conn.execute(
            "SELECT content FROM neuron WHERE content LIKE '%keywords overlap%' ORDER BY id"
        ).fetchone()
    finally:
        conn.close()
    return parse_refs(str(content))[0]


class TestRecallBox:
    """Opened from triage for the proposal under review, and from communities for words
    and a neuron typed (one that names nothing, searched as a word)."""

    @pytest.mark.parametrize("size", [(80, 24), (120, 40)])
    def test_for_proposal(self, snap_compare, fixed_demo, size) -> None:  # type: ignore[no-untyped-def]
        app = _app(fixed_demo, "triage")
        assert snap_compare(app, terminal_size=size, run_before=_for_proposal)

    def test_for_proposal_light(self, snap_compare, fixed_demo) -> None:  # type: ignore[no-untyped-def]
        app = _app(fixed_demo, "triage", theme="textual-light")
        assert snap_compare(app, terminal_size=(120, 40), run_before=_for_proposal)

    @pytest.mark.parametrize("size", [(80, 24), (120, 40)])
    def test_typed(self, snap_compare, fixed_demo, size) -> None:  # type: ignore[no-untyped-def]
        typed = f"keywords overlap purposes differ {_cited(fixed_demo)} n-gram"

        async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
            await settle(pilot)
            await pilot.press("w")
            await settle(pilot)
            await pilot.press(*typed, "enter")
            await _still(pilot)

        app = _app(fixed_demo, "communities")
        assert snap_compare(app, terminal_size=size, run_before=run_before)
