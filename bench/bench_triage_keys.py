"""Key-to-next-proposal on screen: press ``a`` → the next proposal's detail is drawn.

Runs the real app headless on a demo project and reports medians (ms): from the
accept action starting to the first screen refresh after the proposal pane took the
next proposal's detail (the target is ≤ 50 ms), and to the decision committed and every
worker settled.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from brainview.demo.generator import DEMO_NOW, DemoSpec, build_project
from brainview.store.discovery import discover
from brainview.tui.app import make_app
from brainview.tui.clock import frozen
from brainview.tui.triage.panes import ProposalPane
from tests.tui_helpers import settle


async def measure(root: Path, runs: int) -> dict[str, object]:
    app = make_app(discover(root), clock=frozen(DEMO_NOW), start="triage", decider="bench")
    key_ms: list[float] = []
    commit_ms: list[float] = []
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        pane = screen.query_one(ProposalPane)
        marks: dict[str, float] = {}
        accept, watch = screen.action_accept, pane.watch_detail

        def timed_accept() -> None:
            marks["t0"] = time.perf_counter()
            accept()

        def drawn() -> None:
            marks.setdefault("t1", time.perf_counter())

        def timed_watch(detail) -> None:  # type: ignore[no-untyped-def]
            watch(detail)  # the pane's body now holds the detail; drawn at the next refresh
            if detail is not None and "t0" in marks and detail.id == marks.get("want"):
                app.call_after_refresh(drawn)

        screen.action_accept = timed_accept  # type: ignore[method-assign]
        pane.watch_detail = timed_watch  # type: ignore[method-assign]
        for _ in range(runs):
            while screen.rows and screen.rows[screen.queue.table.cursor_row].stale:
                await pilot.press("s")  # stale proposals refuse "accept"
                await settle(pilot)
            marks.clear()
            marks["want"] = screen.queue.neighbour_id(1)  # type: ignore[assignment]
            await pilot.press("a")
            deadline = time.perf_counter() + 10
            while "t1" not in marks and time.perf_counter() < deadline:
                await asyncio.sleep(0.0005)
            if "t1" not in marks:
                raise SystemExit("the next proposal never appeared")
            key_ms.append((marks["t1"] - marks["t0"]) * 1000)
            await settle(pilot)
            commit_ms.append((time.perf_counter() - marks["t0"]) * 1000)
    return {
        "key_to_next_proposal_ms": statistics.median(key_ms),
        "min_ms": min(key_ms),
        "max_ms": max(key_ms),
        "key_to_committed_and_settled_ms": statistics.median(commit_ms),
        "runs": runs,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=20)
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp()) / "demo"
    build_project(root, DemoSpec(proposals=36))
    try:
        # Stale proposals refuse "accept"; the demo has 33 fresh ones ahead of them.
        res = asyncio.run(measure(root, min(args.runs, 25)))
    finally:
        shutil.rmtree(root.parent, ignore_errors=True)
    print(json.dumps({"bench": "triage_keys", **res}))


if __name__ == "__main__":
    main()
