"""Reflection view: the text with ``[user:…]`` references resolved, the FSRS card, the
stability history replayed with py-fsrs, and the forgetting-curve forecast.

Another part of the app mounts the audit trail and the lifecycle actions into the
``#reflection-audit`` container through :meth:`ReflectionScreen.mount_audit`; until
then that container stays hidden.  A :class:`LifecycleWatch` notices the reflection
challenged, invalidated or reinstated by any process (``brainview reflect`` in a shell,
another console): the card and the audit trail are read again, the scroll stays.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import ScrollableContainer, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Header, Static

from brainview.core.safe_text import one_line
from brainview.tui.app import STYLES
from brainview.tui.footer import Footer
from brainview.tui.screens.invalidate import LIFECYCLE_BINDINGS, LifecycleActions
from brainview.tui.widgets.audit_view import AuditView
from brainview.tui.widgets.curve_plots import ForecastPlot, StabilityPlot
from brainview.tui.widgets.lifecycle_watch import LifecycleWatch
from brainview.tui.widgets.reflection_view import render_card, render_content, render_refs

if TYPE_CHECKING:
    from brainview.services.communities.curves import ReflectionDetail


@dataclass
class ReflectionLoaded(Message):
    """One reflection's detail is ready."""

    detail: ReflectionDetail
    mark: int
    """The lifecycle fingerprint read just before the detail."""


@dataclass
class ReflectionFailed(Message):
    """Reading the reflection failed; ``text`` is one line."""

    text: str


class ReflectionScreen(LifecycleActions, Screen[None]):
    """One reflection: what it says, how well it holds, and when it will fade.

    | Key | Action |
    |-----|--------|
    | `escape` | Back |
    | `m` | Show the whole text / fold it again |
    | `ctrl+r` | Read again |
    """

    CSS_PATH = [STYLES / "communities.tcss"]
    BINDINGS = [
        Binding(
            "escape,backspace", "back", "Back", id="reflection.back", tooltip="Previous screen"
        ),
        Binding("m", "more", "More", id="reflection.more", tooltip="Whole text / fold it"),
        Binding("ctrl+r,f5", "reload", "Reload", id="reflection.reload", tooltip="Read again"),
        *LIFECYCLE_BINDINGS,
    ]

    def __init__(self, reflection_id: str) -> None:
        super().__init__()
        self.reflection_id = reflection_id
        self.detail: ReflectionDetail | None = None
        self.show_all = False

    def compose(self) -> ComposeResult:
        yield Header()
        with ScrollableContainer(id="reflection-body"):
            with VerticalScroll(id="reflection-left"):
                yield Static(Text("loading…", style="dim italic"), id="reflection-text")
                yield Static(Text("references", style="bold underline"), classes="section")
                yield Static("", id="reflection-refs")
                yield Vertical(id="reflection-audit")
            with Vertical(id="reflection-right"):
                yield Static("", id="reflection-card")
                yield StabilityPlot(id="stability-plot")
                yield ForecastPlot(id="forecast-plot")
        yield LifecycleWatch(id="lifecycle-watch")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#reflection-left").border_title = "reflection"
        self.query_one("#reflection-right").border_title = "FSRS card"
        self.query_one("#reflection-audit").display = False
        audit = AuditView(id="audit")
        self.mount_audit(audit)
        audit.reflection_id = self.reflection_id
        self.query_one("#stability-plot", StabilityPlot).set_history(None)
        self.query_one("#forecast-plot", ForecastPlot).set_forecast(
            None, threshold=self.threshold, crossing=None
        )
        self.call_after_refresh(self.action_reload)

    @property
    def threshold(self) -> float:
        """The pruning threshold from the config."""
        return float(self.app.config.reflections.pruning_threshold)  # type: ignore[attr-defined]

    # -- the hook for the audit trail and lifecycle actions ----------------------------

    def mount_audit(self, *widgets: Widget) -> None:
        """Mount the audit trail / lifecycle widgets into ``#reflection-audit`` and show it."""
        box = self.query_one("#reflection-audit", Vertical)
        box.mount(*widgets)
        box.display = True

    def lifecycle_targets(self) -> list[str]:
        """The reflection that lifecycle actions on this screen apply to."""
        return [self.reflection_id]

    def lifecycle_done(self, _result: Any) -> None:
        """A lifecycle action changed this reflection: read it and its audit trail again."""
        self.action_reload()
        self.query_one("#audit", AuditView).reload()

    @on(LifecycleWatch.Moved)
    def _lifecycle_moved(self, _message: LifecycleWatch.Moved) -> None:
        """Some process changed a reflection's state: this one's card and trail may be
        out of date (one reflection's reads; the scroll position stays)."""
        self.lifecycle_done(None)

    @on(AuditView.Loaded)
    def _audit_loaded(self, message: AuditView.Loaded) -> None:
        self.query_one(LifecycleWatch).note(message.mark, "audit")

    def on_screen_resume(self) -> None:
        # Back from another screen: a change made meanwhile shows now, not at the next tick.
        self.query_one(LifecycleWatch).check()

    # -- loading and showing ----------------------------------------------------------

    def action_reload(self) -> None:
        """Read the reflection again."""
        self.load(self.reflection_id)

    @work(thread=True, exclusive=True, group="reflection-load")
    def load(self, reflection_id: str) -> None:
        """Card, replayed history, forecast and references (thread)."""
        from brainview.services.communities.curves import reflection_detail
        from brainview.services.review.flags import lifecycle_mark

        try:
            with self.app.open_project() as project:  # type: ignore[attr-defined]
                mark = lifecycle_mark(project)  # first: a later change is noticed again
                detail = reflection_detail(
                    project,
                    reflection_id,
                    self.app.now(),  # type: ignore[attr-defined]
                    threshold=self.threshold,
                )
        except Exception as err:  # noqa: BLE001 - shown in the UI
            self.post_message(ReflectionFailed(one_line(str(err), 200)))
            return
        self.post_message(ReflectionLoaded(detail, mark))

    @on(ReflectionLoaded)
    def show(self, message: ReflectionLoaded) -> None:
        d = self.detail = message.detail
        self.query_one(LifecycleWatch).note(message.mark, "detail")
        self.sub_title = one_line(d.neuron.id, 60)
        self._show_text()
        self.query_one("#reflection-refs", Static).update(render_refs(d.refs))
        self.query_one("#reflection-card", Static).update(
            render_card(d, self.app.now())  # type: ignore[attr-defined]
        )
        self.query_one("#stability-plot", StabilityPlot).set_history(d.history)
        self.query_one("#forecast-plot", ForecastPlot).set_forecast(
            d.forecast, threshold=d.threshold, crossing=d.crossing
        )

    def _show_text(self) -> None:
        if self.detail is not None:
            body = render_content(
                self.detail.neuron.content, self.detail.refs, show_all=self.show_all
            )
            self.query_one("#reflection-text", Static).update(body)

    @on(ReflectionFailed)
    def failed(self, message: ReflectionFailed) -> None:
        self.query_one("#reflection-text", Static).update(Text(message.text, style="bold"))
        self.notify(
            message.text, title="Could not read the reflection", severity="error", markup=False
        )

    def action_more(self) -> None:
        """Show the whole text, or fold it again."""
        self.show_all = not self.show_all
        self._show_text()

    def action_back(self) -> None:
        """Back to the screen underneath."""
        self.dismiss(None)
