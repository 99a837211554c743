"""The first frame needs neither SQLAlchemy nor numpy nor plotext: they load in the
workers that read the brains, after the frame is out (first paint, quality.md).  And
the first screen is the start mode's own, never a blank default screen first."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = """
import json, sys
from brainview.store.discovery import discover
from brainview.tui.app import make_app
from brainview.tui.overview.screen import OverviewScreen
from brainview.tui.triage import TriageScreen

OverviewScreen.load_stats = lambda self: None  # no reads: only what the frame needs
TriageScreen.reload = lambda self, keep=None: None
heavy = ("sqlalchemy", "numpy", "plotext", "brainview.services.project")
app = make_app(discover(sys.argv[1]), start=sys.argv[2])
made = [m for m in heavy if m in sys.modules]
screens = []

def painted():
    import os
    print(json.dumps({
        "made": made,
        "painted": [m for m in heavy if m in sys.modules],
        "modes": sorted(app._screen_stacks),
        "screen": type(app.screen).__name__,
    }), flush=True)
    os._exit(0)

app.call_later(lambda: app.call_after_refresh(painted))
app.run(headless=True, size=(120, 40))
"""


def _first_frame(root: Path, start: str) -> dict[str, object]:
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(root), start],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def test_the_overview_paints_before_any_heavy_module_loads(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    got = _first_frame(root, "overview")
    assert got == {"made": [], "painted": [], "modes": ["overview"], "screen": "OverviewScreen"}


def test_the_triage_screen_loads_no_heavy_module_before_its_workers(demo) -> None:  # type: ignore[no-untyped-def]
    """Triage's modules (the queue, the panes, the suspicion marks) import none of them:
    its workers load them, in their threads, once the screen is up."""
    root, _ = demo
    got = _first_frame(root, "triage")
    assert got["made"] == [] and got["modes"] == ["triage"] and got["screen"] == "TriageScreen"
