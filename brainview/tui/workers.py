"""Service calls off the UI thread: one way to start them, one error path.

Every screen and widget that needs the brains calls :func:`run_service` with a job
``job(session) -> result`` and, usually, a ``done(result)`` callback.  The job runs in
a thread worker owned by the app (so it outlives nothing it should not: groups are
exclusive per caller), with the app's :class:`~brainview.services.session.Session`.

When the worker finishes, the app's single ``Worker.StateChanged`` handler routes it
(:class:`ServiceRunner`):

- success: ``done(result)`` runs on the UI thread, if the caller is still mounted;
- error: :class:`WorkFailed` is posted to the caller and bubbles (screen, then app);
  a caller that needs to react (re-mark a refused bulk, reload) handles it and lets it
  bubble on; the app shows it as one line, never a traceback.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from textual.message import Message
from textual.worker import Worker, WorkerState

from brainview.core.safe_text import one_line

if TYPE_CHECKING:
    from textual.dom import DOMNode

    from brainview.services.session import Session

T = TypeVar("T")


class WorkFailed(Message):
    """A service call failed; ``text`` is one line fit to show."""

    def __init__(self, group: str, text: str, error: BaseException, ids: tuple[str, ...]) -> None:
        super().__init__()
        self.group = group
        self.text = text
        self.error = error
        self.ids = ids


@dataclass
class _Route:
    node: DOMNode
    done: Callable[[Any], None] | None
    ids: tuple[str, ...]


class ServiceRunner:
    """The app's table of running service workers and where each one reports."""

    def __init__(self) -> None:
        self._routes: dict[Worker[Any], _Route] = {}

    def start(
        self,
        node: DOMNode,
        session: Session,
        job: Callable[[Session], T],
        *,
        group: str,
        done: Callable[[T], None] | None = None,
        exclusive: bool = True,
        ids: tuple[str, ...] = (),
    ) -> Worker[T]:
        def call() -> T:
            return job(session)

        if exclusive:
            self._cancel(node, group)
        # The runner, not Textual, cancels the earlier call: a worker cancelled before
        # its task first runs never posts CANCELLED, so a route left to that message
        # would count as "in flight" until the app quits.
        worker: Worker[T] = node.app.run_worker(
            call,
            name=group,
            group=f"{id(node)}:{group}",
            thread=True,
            exclusive=False,
            exit_on_error=False,
        )
        self._routes[worker] = _Route(node, done, ids)
        return worker

    def _cancel(self, node: DOMNode, group: str) -> None:
        """Cancel ``node``'s running calls of ``group`` and forget them (results dropped)."""
        for worker in [w for w, r in self._routes.items() if r.node is node and w.name == group]:
            del self._routes[worker]
            worker.cancel()

    def finished(self, event: Worker.StateChanged) -> bool:
        """Route a finished service worker; ``False`` if it was not one of ours."""
        worker = event.worker
        if event.state not in (WorkerState.SUCCESS, WorkerState.ERROR, WorkerState.CANCELLED):
            return worker in self._routes
        route = self._routes.pop(worker, None)
        if route is None:
            return False
        if not route.node.is_attached:
            return True
        if event.state is WorkerState.SUCCESS and route.done is not None:
            route.done(worker.result)
        elif event.state is WorkerState.ERROR and worker.error is not None:
            err = worker.error
            text = one_line(str(err) or type(err).__name__, 200)
            route.node.post_message(WorkFailed(worker.name, text, err, route.ids))
        return True

    def running(self, *, writes_only: bool = False) -> int:
        """How many service calls are still running, app-wide; ``writes_only``: only
        those that write (:data:`WRITES`: what quitting asks about — a read cut short
        loses nothing)."""
        if not writes_only:
            return len(self._routes)
        return sum(1 for w in self._routes if w.name in WRITES)

    def busy(self, node: DOMNode, group: str | None = None) -> bool:
        """Whether ``node`` has a service call (of ``group``) still running."""
        return any(
            r.node is node and (group is None or w.name == group) for w, r in self._routes.items()
        )


WRITES = frozenset(
    {
        "decide", "communities-decide", "held-back-decide", "lifecycle", "withdraw",
        "export", "recover", "writing",
    }
)  # fmt: skip
"""The service-call groups that write (a brain, or an export file)."""


def run_service(
    node: DOMNode,
    job: Callable[[Session], T],
    *,
    group: str,
    done: Callable[[T], None] | None = None,
    exclusive: bool = True,
    ids: tuple[str, ...] = (),
) -> Worker[T]:
    """Run ``job(session)`` in a thread for ``node``; ``done(result)`` runs on the UI
    thread after; a failure comes back to ``node`` as a bubbling :class:`WorkFailed`.

    ``exclusive`` cancels the same node's earlier call of the same ``group`` (its result
    is dropped).  ``ids`` travel with a failure (the proposals a refused bulk held).
    """
    from brainview.tui.access import brainview_app

    app = brainview_app(node)
    return app.services.start(
        node, app.session, job, group=group, done=done, exclusive=exclusive, ids=ids
    )
