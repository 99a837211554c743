"""Helpers for pilot and snapshot tests."""

from __future__ import annotations

import contextlib

from textual.worker import WorkerError

from brainview.tui.widgets.throttled_plot import ThrottledPlot


def _busy(app) -> bool:  # type: ignore[no-untyped-def]
    """Whether a worker is still to finish or a plot waits for its throttle interval."""
    if any(not w.is_finished for w in app.workers):
        return True
    with contextlib.suppress(Exception):  # no screen yet, or one being replaced
        return any(p.pending for p in app.screen.query(ThrottledPlot))
    return False


async def settle(pilot, rounds: int = 4) -> None:  # type: ignore[no-untyped-def]
    """Wait until workers are done, their messages handled and no plot is waiting for
    its throttle interval, ``rounds`` times over (a handled result may start more work).

    Each round waits on conditions, not on the clock: the workers' completion, every
    message queued on the screen and its widgets, then the process going idle
    (``pilot.pause()`` without a delay); a pending plot redraw is waited for in steps
    of its throttle interval.  A worker may be created but not started yet when we
    ask; the next round sees it.
    """
    app = pilot.app
    for _ in range(rounds):
        with contextlib.suppress(WorkerError):
            await app.workers.wait_for_complete()
        await pilot.pause()
        for _ in range(100):
            if not _busy(app):
                break
            with contextlib.suppress(WorkerError):
                await app.workers.wait_for_complete()
            await pilot.pause(ThrottledPlot.THROTTLE / 2)
