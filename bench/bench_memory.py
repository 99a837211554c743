"""Peak RSS of the app on a brain pair, after the overview and triage have loaded."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

from common import brain

CHILD = """
import asyncio, contextlib, resource, sys
from textual.worker import WorkerError
from brainview.store.discovery import discover
from brainview.tui.app import make_app

async def main():
    app = make_app(discover(sys.argv[1]), start="overview")
    async with app.run_test(size=(120, 40)) as pilot:
        for screen in ("overview", "triage"):
            await pilot.press("1" if screen == "overview" else "2")
            for _ in range(6):
                with contextlib.suppress(WorkerError):
                    await app.workers.wait_for_complete()
                await pilot.pause(0.05)
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)

asyncio.run(main())
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--size", default="large")
    args = ap.parse_args()
    root = brain(args.size)
    out = subprocess.run([sys.executable, "-c", CHILD, str(root)], check=True,
                         capture_output=True, text=True).stdout
    base = subprocess.run(
        [sys.executable, "-c", "import resource, textual.app; "
         "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)"],
        check=True, capture_output=True, text=True).stdout
    peak = int(out.strip().splitlines()[-1])
    print(json.dumps({"bench": "memory", "size": args.size, "peak_rss_mb": peak,
                      "bare_textual_import_mb": int(base.strip()), "target_mb": 200}))


if __name__ == "__main__":
    main()
