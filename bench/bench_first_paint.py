"""First paint: process start → first frame of brainview vs a minimal Textual app.

Both run headless in a fresh process and exit right after their first refresh;
the two sides are interleaved and medians compared (target ≤ 1.5×, round two; the
first round's was 2×).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

from common import brain, installed_env, interleave

ENV = installed_env()
TARGET = 1.5


def first_frame(cmd: list[str]):  # type: ignore[no-untyped-def]
    """A side: seconds from process launch to the child's first painted frame."""

    def run() -> float:
        start = time.time()
        out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=ENV).stdout
        return float(out.strip().splitlines()[-1]) - start

    return run


MINIMAL = """
from textual.app import App
from textual.widgets import Static
class Min(App):
    def compose(self):
        yield Static("hello")
    def on_mount(self):
        self.call_after_refresh(painted)
def painted():
    import os, time
    print(time.time(), flush=True)
    os._exit(0)
Min().run(headless=True, size=(120, 40))
"""

BRAINVIEW = """
import sys
from brainview.store.discovery import discover
from brainview.store.light import validate
from brainview.tui.app import make_app
paths = discover(sys.argv[1])
validate(paths)                      # the CLI validates both brains first
app = make_app(paths, start="overview")
def painted():
    import os, time
    print(time.time(), flush=True)
    os._exit(0)
app.call_later(lambda: app.call_after_refresh(painted))
app.run(headless=True, size=(120, 40))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--size", default="demo", choices=["demo", "20k", "large"])
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    root = brain(args.size)
    for cmd in ([sys.executable, "-c", MINIMAL], [sys.executable, "-c", BRAINVIEW, str(root)]):
        first_frame(cmd)()  # warm the bytecode and page caches (not timed)
    res = interleave(
        {
            "minimal textual": first_frame([sys.executable, "-c", MINIMAL]),
            "brainview": first_frame([sys.executable, "-c", BRAINVIEW, str(root)]),
        },
        args.runs,
    )
    ratio = res["brainview"]["median"] / res["minimal textual"]["median"]
    print(
        json.dumps(
            {
                "bench": "first_paint",
                "size": args.size,
                "ratio": round(ratio, 2),
                "target": TARGET,
                "met": ratio <= TARGET,
                **res,
            }
        )
    )


if __name__ == "__main__":
    main()
