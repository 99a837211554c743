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

from brainview.core.identity import Identity
from brainview.demo.generator import DEMO_NOW, DemoInfo, DemoSpec, build_project
from brainview.store.discovery import discover
from brainview.tui.app import make_app
from brainview.tui.clock import frozen

OUT = Path(__file__).resolve().parent
SHOTS = [
    ("overview-120x40", "overview", (120, 40), []),
    ("triage-120x40", "triage", (120, 40), []),
    ("triage-80x24", "triage", (80, 24), []),
    ("help-120x40", "triage", (120, 40), ["f1"]),
    ("communities-120x40", "communities", (120, 40), []),
    ("fading-120x40", "communities", (120, 40), ["f"]),
    ("reflection-120x40", "communities", (120, 40), ["@reflection"]),
    ("triage-light-120x40", "triage", (120, 40), ["@light"]),
    ("consolidate-120x40", "communities", (120, 40), ["z"]),
    # Lessons ranked by influence × suspicion, each signal with its reason (key `4`).
    ("suspicious-120x40", "triage", (120, 40), ["4"]),
    # Recall for the proposal under review (triage `w`): ranked lessons, each with why.
    ("recall-120x40", "triage", (120, 40), ["w"]),
    # Signed in (as `brainview serve` runs it): presence marks, "bob is looking at this"
    # and a decision by someone else named.
    ("team-120x40", "triage", (120, 40), ["@team"]),
    # Last: it queues the demo's consolidation.
    ("policy-120x40", "triage", (120, 40), ["@policy"]),
]


async def settle(app, pilot) -> None:  # type: ignore[no-untyped-def]
    for _ in range(6):
        with contextlib.suppress(WorkerError):
            await app.workers.wait_for_complete()
        await pilot.pause(0.1)


def _queue_consolidation(root: Path) -> str:
    from brainview.services import consolidate
    from brainview.services.project import Project

    with Project.open(discover(root), write_agent=True) as p:
        plan = consolidate.plan(p, now=DEMO_NOW, in_process=True)
        ids = consolidate.queue(p, plan, now=DEMO_NOW)
    return next(
        pid for pid, i in zip(ids, plan.items, strict=True) if i.kind == "summarize_community"
    )


async def _team(root: Path, app, pilot) -> None:  # type: ignore[no-untyped-def]
    """Bob and Carol look at two proposals; Bob rejects a third; Alice opens Bob's."""
    from brainview.services.presence import Presence
    from brainview.services.session import Session

    assert app.presence is not None
    rows = [r.id for r in app.screen.rows]
    bob = Presence(app.presence.path, "bob")
    carol = Presence(app.presence.path, "carol")
    bob.look_at(rows[1])
    carol.look_at(rows[3])
    with Session.start(discover(root), clock=lambda: DEMO_NOW, decider="bob") as session:
        session.decide([rows[5]], "reject", reason="duplicate of an existing link")
    app.screen.poll()
    await settle(app, pilot)
    await pilot.press("j")  # Alice opens the proposal Bob is looking at


async def shoot(
    root: Path, info: DemoInfo, name: str, start: str, size: tuple[int, int], keys: list[str]
) -> None:
    identity = None
    if "@team" in keys:
        presence = Path(tempfile.mkdtemp()) / "presence.db"
        identity = Identity("alice", "reviewer", str(presence))
    app = make_app(
        discover(root), clock=frozen(DEMO_NOW), start=start, decider="demo", identity=identity
    )
    # The team shot shows its toasts (the presence notice, the decision named).
    async with app.run_test(size=size, notifications=identity is not None) as pilot:
        await settle(app, pilot)
        for key in keys:
            if key == "@reflection":  # an adversarial one: its markup and escapes stay inert
                app.open_reflection(info.adversarial_ids[0])
            elif key == "@light":
                app.theme = "textual-light"
            elif key == "@team":
                await _team(root, app, pilot)
            elif key == "@policy":  # queue the consolidation, show its first policy
                app.screen.show_only(_queue_consolidation(root))
            else:
                await pilot.press(key)
            await settle(app, pilot)
        app.save_screenshot(str(OUT / f"{name}.svg"))


def main() -> None:
    root = Path(tempfile.gettempdir()) / "brainview-screens" / "demo"
    shutil.rmtree(root.parent, ignore_errors=True)
    info = build_project(root, DemoSpec(history=True))
    try:
        for shot in SHOTS:
            asyncio.run(shoot(root, info, *shot))
            print(f"wrote screenshots/{shot[0]}.svg")
    finally:
        shutil.rmtree(root.parent, ignore_errors=True)


if __name__ == "__main__":
    main()
