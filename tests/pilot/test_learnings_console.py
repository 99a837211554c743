"""The ``demo --learnings`` tree in the triage console: accepting a tier move rewrites
HOT.md exactly as decided; undo puts every byte back."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from brainview.demo.generator import DEMO_NOW
from brainview.demo.learnings_gen import build_learnings_project
from brainview.store.discovery import discover
from brainview.tui.app import make_app
from brainview.tui.clock import frozen
from tests.tui_helpers import settle


def _files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".brainview-backups" not in p.parts
    }


async def test_triage_a_promotion_then_undo(tmp_path: Path) -> None:
    demo = build_learnings_project(tmp_path, DEMO_NOW)
    original = _files(demo.root)
    app = make_app(discover(tmp_path), clock=frozen(DEMO_NOW), start="triage", decider="tester")
    async with app.run_test(size=(140, 44)) as pilot:
        await settle(pilot)
        first = app.screen.current_id
        conn = sqlite3.connect(tmp_path / ".spikuit" / "agent" / "circuit.db")
        (params,) = conn.execute(
            "SELECT params_json FROM brainview_proposal WHERE id = ?", (first,)
        ).fetchone()
        conn.close()
        move = json.loads(params)
        await pilot.press("a")
        await settle(pilot)
        after = _files(demo.root)
        changed = {r for r in set(original) | set(after) if original.get(r) != after.get(r)}
        assert changed <= {move["source"], move["target"]} and move["source"] in changed
        assert len(after[move["source"]]) < len(original[move["source"]])
        await pilot.press("u")
        await settle(pilot)
        assert app.screen.current_id == first
    assert _files(demo.root) == original
