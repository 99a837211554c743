"""Command palette, remapped keys and config errors."""

from __future__ import annotations

import sqlite3
import subprocess
import sys

import pytest

from brainview.config import Config
from brainview.demo.generator import DEMO_NOW
from brainview.errors import ExitCode
from brainview.store.discovery import discover
from brainview.tui.app import make_app
from brainview.tui.clock import frozen
from tests.tui_helpers import settle


def _status(root, pid: str) -> str:  # type: ignore[no-untyped-def]
    conn = sqlite3.connect(root / ".spikuit" / "agent" / "circuit.db")
    try:
        return conn.execute("SELECT status FROM brainview_proposal WHERE id=?", (pid,)).fetchone()[
            0
        ]
    finally:
        conn.close()


async def test_palette_offers_review_verbs(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    app = make_app(discover(root), clock=frozen(DEMO_NOW), start="triage")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        first = app.screen.current_id
        await pilot.press("ctrl+p")
        await settle(pilot)  # the palette open
        await pilot.press(*"proposal: accept")
        await settle(pilot)  # its search worker done, the matches listed
        await pilot.press("enter")
        await settle(pilot)
        assert _status(root, first) == "accepted"


async def test_remapped_accept_key(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    config = Config(keys={"triage.accept": "y"})
    app = make_app(discover(root), clock=frozen(DEMO_NOW), start="triage", config=config)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        first = app.screen.current_id
        await pilot.press("a")
        await settle(pilot)
        assert _status(root, first) == "pending"
        await pilot.press("y")
        await settle(pilot)
        assert _status(root, first) == "accepted"


@pytest.mark.parametrize(
    ("toml", "needle"),
    [
        ('[keys]\n"triage.nope" = "y"\n', "triage.nope"),
        ('[keys]\n"triage.accept" = "r"\n', "triage.reject"),
        ('[keys]\n"triage.accept" = "ctrl+shift+banana"\n', "ctrl+shift+banana"),
        ("[review]\nrecord_only = 3\n", "review.record_only"),
        ("[ui]\ntheme = 'no-such-theme'\n", "no-such-theme"),
        ("[bogus]\nx = 1\n", "bogus"),
        ("not toml at all [", "not valid TOML"),
    ],
)
def test_bad_config_exits_cleanly(demo, toml: str, needle: str) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    (root / ".spikuit" / "brainview.toml").write_text(toml)
    out = subprocess.run(
        [sys.executable, "-m", "brainview", str(root)],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert out.returncode == int(ExitCode.CONFIG)
    assert needle in out.stderr and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    if toml.startswith("[keys]"):  # key errors name the file they come from
        assert "brainview.toml" in out.stderr


async def test_copy_and_export_queue(demo, tmp_path) -> None:  # type: ignore[no-untyped-def]
    import csv
    import json

    root, _ = demo
    app = make_app(discover(root), clock=frozen(DEMO_NOW), start="triage")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        first = app.screen.current_id
        await pilot.press("c")
        assert app.clipboard == first
        await pilot.press("C")
        data = json.loads(app.clipboard)
        assert data["id"] == first and "params" in data
        out = tmp_path / "queue.csv"
        await pilot.press("e")
        await pilot.pause()
        await pilot.press(*str(out))
        await pilot.press("enter")
        await settle(pilot)
    rows = list(csv.DictReader(out.open()))
    assert len(rows) == 36 and rows[0]["id"] == first


async def test_too_small_terminal_shows_notice(demo) -> None:  # type: ignore[no-untyped-def]
    from brainview.tui.too_small import TooSmallScreen

    root, _ = demo
    app = make_app(discover(root), clock=frozen(DEMO_NOW), start="overview")
    async with app.run_test(size=(50, 12)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, TooSmallScreen)
        await pilot.resize_terminal(100, 30)
        await settle(pilot)
        assert not isinstance(app.screen, TooSmallScreen)


async def test_palette_jumps_to_a_reflection_by_id(demo) -> None:  # type: ignore[no-untyped-def]
    from brainview.tui.reflection import ReflectionScreen

    root, info = demo
    rid = info.reflection_ids[3]
    app = make_app(discover(root), clock=frozen(DEMO_NOW), start="overview")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await settle(pilot)
        await pilot.press(*rid)
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ReflectionScreen) and app.screen.reflection_id == rid
