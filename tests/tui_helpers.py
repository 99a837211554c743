"""Helpers for pilot and snapshot tests."""

from __future__ import annotations

import contextlib

from textual.worker import WorkerError


async def settle(pilot, rounds: int = 4) -> None:  # type: ignore[no-untyped-def]
    """Wait until workers are done and their messages handled (several rounds).

    A worker may be created but not started yet when we ask; then we just pause.
    """
    for _ in range(rounds):
        with contextlib.suppress(WorkerError):
            await pilot.app.workers.wait_for_complete()
        await pilot.pause(0.05)
