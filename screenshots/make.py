"""Regenerate the SVG screenshots of the real app on demo brains (time frozen).

Run: python screenshots/make.py
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import tempfile
from pathlib import Path

from textual.worker import WorkerError

from brainview.demo.generator import DEMO_NOW, build_project
from brainview.store.discovery import discover
from brainview.tui.app import make_app
from brainview.tui.clock import frozen

OUT = Path(__file__).resolve().parent
SHOTS = [
    ("overview-120x40", "overview", (120, 40), []),
    ("triage-120x40", "triage", (120, 40), []),
    ("triage-80x24", "triage", (80, 24), []),
    ("help-120x40", "triage", (120, 40), ["f1"]),
]


async def shoot(root: Path, name: str, start: str, size: tuple[int, int], keys: list[str]) -> None:
    app = make_app(discover(root), clock=frozen(DEMO_NOW), start=start, decider="demo")
    async with app.run_test(size=size) as pilot:
        for _ in range(4):
            with contextlib.suppress(WorkerError):
                await app.workers.wait_for_complete()
            await pilot.pause(0.05)
        for key in keys:
            await pilot.press(key)
            await pilot.pause(0.2)
        app.save_screenshot(str(OUT / f"{name}.svg"))


def main() -> None:
    root = Path(tempfile.mkdtemp()) / "demo"
    build_project(root)
    try:
        for shot in SHOTS:
            asyncio.run(shoot(root, *shot))
            print(f"wrote screenshots/{shot[0]}.svg")
    finally:
        shutil.rmtree(root.parent, ignore_errors=True)


if __name__ == "__main__":
    main()
