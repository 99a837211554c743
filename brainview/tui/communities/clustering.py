"""Reading the communities: the cached partition at once, then (if the graph changed)
a fresh clustering with a progress line that ``escape`` cancels.

:class:`ClusteringLine` owns the run: it starts the read through the session, shows the
stages the job reports and posts :class:`ClusteringLine.Page` (a sorted page of
communities, cached first, then fresh) and :class:`ClusteringLine.Stopped`.  A child
process runs big clusterings (igraph holds the GIL); cancelling kills it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.reactive import var
from textual.widgets import ProgressBar, Static

from brainview.core.safe_text import one_line
from brainview.tui.workers import WorkFailed, run_service

if TYPE_CHECKING:
    from brainview.services.communities import CommunityData, CommunityRow
    from brainview.services.communities.runner import ClusteringJob
    from brainview.services.project import Project
    from brainview.services.session import Session

NO_AGENT = "No agent brain yet: no reflections to cluster in this project."


class ProgressText(Static):
    """The stage a clustering run reached."""


class ClusteringLine(Horizontal):
    """The progress of a clustering run (hidden when none runs)."""

    DEFAULT_CSS = """
    ClusteringLine { display: none; }
    ClusteringLine.-running { display: block; }
    """

    running: var[bool] = var(False)
    """A fresh clustering is running (``escape`` cancels it)."""

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002 - Textual's name
        super().__init__(id=id)
        self.job: ClusteringJob | None = None
        """The running job (handed over by the worker; cancelled from the UI thread)."""

    @dataclass
    class Page(Message):
        """The partition's data and one sorted page of communities."""

        data: CommunityData
        rows: list[CommunityRow]
        total: int
        sort: str

    @dataclass
    class Started(Message):
        """A fresh clustering started (``job`` can be cancelled)."""

        job: ClusteringJob

    @dataclass
    class Progress(Message):
        """A clustering run reached a stage (bursts collapse: only the latest counts)."""

        stage: str
        fraction: float

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, ClusteringLine.Progress)

    @dataclass
    class Stopped(Message):
        """Reading ended: ``outcome`` is ``done``, ``cancelled``, ``no-agent`` or an
        error line; ``replaced``: a stale partition was on screen before."""

        outcome: str
        replaced: bool = False

    def compose(self) -> ComposeResult:
        yield ProgressText("", id="progress-text")
        yield ProgressBar(id="cluster-progress", total=100, show_eta=False)

    def watch_running(self, running: bool) -> None:
        self.set_class(running, "-running")

    def start(self, *, sort: str, threshold: float) -> None:
        """Read the communities (cached first, then a fresh clustering if stale)."""

        def load(session: Session) -> bool:
            from brainview.core.fsrs_math import format_ts
            from brainview.services import communities as svc
            from brainview.services.communities.runner import ClusteringJob

            now = session.clock()
            with session.project() as project:
                if project.agent is None:
                    self.post_message(self.Stopped("no-agent"))
                    return False
                part, fresh = svc.load_partition(project)
                if part is not None:
                    self._post_page(
                        project, svc.load_data(project, part, fresh, now), sort, threshold
                    )
                if fresh:
                    return False
                job = ClusteringJob(
                    project.agent.path, now_iso=format_ts(now), progress=self._report
                )
                self.post_message(self.Started(job))
                self.post_message(self.Progress("starting", 0.0))
                part_now = job.run()
                svc.store_partition(project, part_now)
                self._post_page(
                    project, svc.load_data(project, part_now, True, now), sort, threshold
                )
            return part is not None

        run_service(self, load, group="communities-load", done=self._finished)

    def _report(self, stage: str, fraction: float) -> None:
        """The clustering run's progress callback (from its worker thread)."""
        self.post_message(self.Progress(stage, fraction))

    def resort(self, data: CommunityData, *, sort: str, threshold: float) -> None:
        """Sort the communities again (labels for the new first page)."""

        def page(session: Session) -> None:
            with session.project() as project:
                self._post_page(project, data, sort, threshold)

        run_service(self, page, group="communities-rows")

    def _post_page(
        self, project: Project, data: CommunityData, sort: str, threshold: float
    ) -> None:
        """Sort and label a page and post it (worker thread; messages are thread-safe)."""
        from brainview.services.communities import community_rows

        rows, total = community_rows(project, data, threshold=threshold, sort=sort)
        self.post_message(self.Page(data, rows, total, sort))

    @on(Started)
    def _started(self, message: Started) -> None:
        self.job = message.job
        self.running = True

    @on(Progress)
    def _progress(self, message: Progress) -> None:
        if not self.running:
            return
        self.query_one(ProgressText).update(
            Text(f"clustering: {one_line(message.stage, 70)} · esc cancels")
        )
        self.query_one(ProgressBar).update(progress=100 * message.fraction)

    def _finished(self, replaced_stale: bool) -> None:
        was_running = self.running
        self.job, self.running = None, False
        if was_running:
            self.post_message(self.Stopped("done", replaced=replaced_stale))

    @on(WorkFailed)
    def _failed(self, message: WorkFailed) -> None:
        from brainview.services.communities.runner import ClusteringCancelled

        if message.group != "communities-load":
            return  # a failed re-sort: the app says it
        message.stop()  # the screen says it (Stopped), once
        self.job, self.running = None, False
        cancelled = isinstance(message.error, ClusteringCancelled)
        self.post_message(self.Stopped("cancelled" if cancelled else message.text))

    def cancel(self) -> None:
        """Cancel the running clustering (a child process is killed)."""
        if self.job is not None:
            self.job.cancel()
            self.query_one(ProgressText).update(Text("cancelling…"))

    def on_unmount(self) -> None:
        # Leaving the app mid-run must not leave a child process behind.
        if self.job is not None:
            self.job.cancel()
