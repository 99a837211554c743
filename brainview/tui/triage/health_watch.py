"""Queue health in the triage title, kept cheap.

The alert (``◷ 3 waiting >7d · +12 in 7d``, :meth:`brainview.core.queue_health.
QueueHealth.short`) is read with every queue page (:func:`read_health` inside
:func:`brainview.tui.triage.jobs.read_queue`: the reload each decision and each arrival
already cause) and, since a proposal also turns stale by the clock alone, once every
:data:`HEALTH_SECONDS` from the screen's one-second poll.  Never on a key press.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from brainview.tui.workers import run_service

if TYPE_CHECKING:
    from brainview.core.queue_health import QueueHealth
    from brainview.services.project import Project
    from brainview.services.session import Session
    from brainview.tui.triage.screen import TriageScreen

HEALTH_SECONDS = 60.0
"""How often the poll reads the queue's health when nothing else made it read."""


def read_health(session: Session, project: Project) -> QueueHealth | None:
    """The queue's health now, with the project's ``[queue]`` settings (``None`` when it
    cannot be read: the title then keeps what it said)."""
    from brainview.errors import BrainviewError
    from brainview.services.metrics.queue_health import queue_health

    try:
        return queue_health(project, session.clock(), session.config.queue)
    except BrainviewError:
        return None


def _job(session: Session) -> QueueHealth | None:
    with session.project() as project:
        return read_health(session, project)


class HealthWatch:
    """Shows the health a read brought, and reads it again when it is old."""

    def __init__(self, screen: TriageScreen) -> None:
        self.screen = screen
        self.read_at = -HEALTH_SECONDS
        """``time.monotonic()`` of the last health shown (or asked for)."""

    def show(self, health: QueueHealth | None) -> None:
        """Put ``health``'s alert in the queue's title (``None``: leave it)."""
        if health is None:
            return
        self.read_at = time.monotonic()
        self.screen.queue.health = health.short()

    def tick(self) -> None:
        """From the poll: read the health again when the last read is old."""
        if time.monotonic() - self.read_at < HEALTH_SECONDS:
            return
        self.read_at = time.monotonic()
        run_service(self.screen, _job, group="health", done=self.show)
