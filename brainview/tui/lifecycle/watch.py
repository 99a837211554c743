"""Notice reflections challenged, invalidated or reinstated by any process.

:class:`LifecycleWatch` is an invisible widget a screen mounts once: every second, while
its screen is the one on top, it reads :func:`brainview.services.review.flags.lifecycle_mark`
(one ``MAX(rowid)`` over ``brainview_lifecycle_batch``) in a thread worker, and posts
:class:`LifecycleWatch.Moved` when the mark differs from the one the screen shows.  The
screen then re-reads only what shows a lifecycle state; nothing else is read while the
mark stands still.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.message import Message
from textual.reactive import var
from textual.widget import Widget

from brainview.tui.workers import WorkFailed, run_service

if TYPE_CHECKING:
    from brainview.services.session import Session


class LifecycleWatch(Widget):
    """Polls the lifecycle fingerprint; posts :class:`Moved` when another value appears.

    Screens call :meth:`note` with the mark each of their reads started at (one per
    part of the screen that shows states): the watch compares the poll with the oldest,
    so a change that lands between a read and the first poll is still noticed, and a
    screen that re-read everything after its own lifecycle action is not told again.
    """

    DEFAULT_CSS = """
    LifecycleWatch { display: none; }
    """

    POLL_SECONDS: ClassVar[float] = 1.0

    seen: var[int | None] = var(None)
    """The mark the screen's lifecycle states correspond to (``None`` before any read)."""

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002 - Textual's name
        super().__init__(id=id)
        self._read: dict[str, int] = {}
        """Part of the screen → the mark its last read started at."""

    @dataclass
    class Moved(Message):
        """A lifecycle batch was recorded (or undone) since the states on screen were read."""

        watch: LifecycleWatch
        mark: int

        @property
        def control(self) -> LifecycleWatch:
            """The watch that noticed it."""
            return self.watch

    def on_mount(self) -> None:
        self.set_interval(self.POLL_SECONDS, self.check)
        self._poll()  # the baseline, before the screen's first read lands

    def check(self) -> None:
        """Poll now, unless another screen is on top (it resumes with a check)."""
        if self.screen.is_current:
            self._poll()

    def note(self, mark: int, part: str = "view") -> None:
        """``part`` of the screen was read starting at lifecycle mark ``mark``."""
        self._read[part] = mark
        self.seen = min(self._read.values())

    def _poll(self) -> None:
        run_service(self, _mark, group="lifecycle-watch", done=self._polled)

    @on(WorkFailed)
    def _poll_failed(self, message: WorkFailed) -> None:
        message.stop()  # transient (locked, replaced): the next tick asks again

    def _polled(self, mark: int) -> None:
        if self.seen is None:
            self.seen = mark
        elif mark != self.seen:
            self.seen = mark
            self.post_message(self.Moved(self, mark))


def _mark(session: Session) -> int:
    from brainview.services.review.flags import lifecycle_mark

    with session.project() as project:
        return lifecycle_mark(project)
