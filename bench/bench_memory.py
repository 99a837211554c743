"""Peak RSS of the app on a brain pair, phase by phase (target ≤ 200 MB).

The app runs headless (``run_test``) in a child process that prints its peak RSS
(``ru_maxrss``) after each phase:

1. ``overview`` — every overview worker finished (counts, retention, metrics);
2. ``triage-queue`` — the triage screen shows its first page of proposals;
3. ``triage-settled`` — every triage worker finished (the selected proposal's
   detail with its apply preview, and the prefetch of its neighbour).

A phase that does not finish within ``--deadline`` seconds is reported as such, with
the child's peak RSS read from ``/proc`` at that moment (then the child is killed),
so the bench stays bounded even when one step is not.  ``--no-preview`` (a diagnosis,
not the app as shipped) skips the detail's apply preview to attribute the memory.
One JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import selectors
import subprocess
import sys
import time

from common import brain, installed_env

CHILD = """
import asyncio, contextlib, resource, sys, time
from textual.worker import WorkerError
from brainview.store.discovery import discover
from brainview.tui.app import make_app

def report(phase, t0):
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    print(f"{phase} {peak} {time.perf_counter() - t0:.3f}", flush=True)

async def settle(app, pilot):
    for _ in range(6):
        with contextlib.suppress(WorkerError):
            await app.workers.wait_for_complete()
        await pilot.pause(0.05)

if len(sys.argv) > 2 and sys.argv[2] == "no-preview":  # diagnosis only, see --help
    from brainview.services.review import detail
    detail._attach_plan = lambda *a, **k: None

async def main():
    t0 = time.perf_counter()
    app = make_app(discover(sys.argv[1]), start="overview")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        report("overview", t0)
        await pilot.press("2")
        while not getattr(app.screen, "rows", None):
            await pilot.pause(0.01)
        report("triage-queue", t0)
        await settle(app, pilot)
        report("triage-settled", t0)

asyncio.run(main())
"""

PHASES = ("overview", "triage-queue", "triage-settled")


def _hwm_mb(pid: int) -> int | None:
    """Peak resident set of a live process (``VmHWM``), in MB."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) // 1024
    except OSError:
        return None
    return None


def run_child(root: str, deadline: float, *extra: str) -> dict[str, object]:
    """Run the child; phases reached (peak MB, seconds) and, on timeout, where it stuck."""
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, root, *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=installed_env(),
    )
    assert proc.stdout is not None
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    phases: dict[str, dict[str, float]] = {}
    end = time.monotonic() + deadline
    out: dict[str, object] = {"phases": phases}
    while len(phases) < len(PHASES):
        left = end - time.monotonic()
        if left <= 0 or not sel.select(timeout=left):
            stuck = PHASES[len(phases)]
            out["timed_out_in"] = stuck
            out["peak_rss_mb_at_timeout"] = _hwm_mb(proc.pid)
            proc.kill()
            break
        line = proc.stdout.readline()
        if not line:
            out["exit_code"] = proc.wait()
            break
        name, peak, secs = line.split()
        phases[name] = {"peak_rss_mb": int(peak), "seconds": float(secs)}
    proc.wait()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default="large")
    ap.add_argument("--deadline", type=float, default=120.0, help="seconds for all phases")
    ap.add_argument(
        "--no-preview",
        action="store_true",
        help="diagnosis only: skip the triage detail's apply preview (services.detail."
        "_attach_plan) to attribute memory to it; not the app as shipped",
    )
    args = ap.parse_args()
    root = brain(args.size)
    extra = ("no-preview",) if args.no_preview else ()
    res = run_child(str(root), args.deadline, *extra)
    base = subprocess.run(
        [
            sys.executable,
            "-c",
            "import resource, textual.app; "
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)",
        ],
        check=True,
        capture_output=True,
        text=True,
        env=dict(os.environ),
    ).stdout
    phases = res["phases"]
    assert isinstance(phases, dict)
    peaks = [p["peak_rss_mb"] for p in phases.values()]
    if "peak_rss_mb_at_timeout" in res and res["peak_rss_mb_at_timeout"] is not None:
        peaks.append(res["peak_rss_mb_at_timeout"])  # type: ignore[arg-type]
    print(
        json.dumps(
            {
                "bench": "memory",
                "size": args.size,
                "no_preview_diagnosis": args.no_preview,
                "peak_rss_mb": max(peaks, default=None),
                "bare_textual_import_mb": int(base.strip()),
                "target_mb": 200,
                **res,
            }
        )
    )


if __name__ == "__main__":
    main()
