"""Reflection view: the text with ``[user:…]`` references resolved, the FSRS card, the
stability history replayed with py-fsrs, the forgetting-curve forecast, the audit trail
and the lifecycle actions.

A :class:`~brainview.tui.lifecycle.LifecycleWatch` notices the reflection challenged,
invalidated or reinstated by any process (``brainview reflect`` in a shell, another
console): the card and the audit trail are read again, the scroll stays.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import ScrollableContainer, Vertical, VerticalScroll
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import Header, Static

from brainview.core.safe_text import one_line
from brainview.tui.access import pruning_threshold, session_of
from brainview.tui.footer import Footer
from brainview.tui.lifecycle import LIFECYCLE_BINDINGS, LifecycleActions, LifecycleWatch
from brainview.tui.reflection.influence import InfluencePanel
from brainview.tui.reflection.parts import FsrsCard, References, ReflectionText
from brainview.tui.reflection.render import render_refs
from brainview.tui.role_gate import allowed
from brainview.tui.styles_dir import STYLES
from brainview.tui.widgets.audit_view import AuditView
from brainview.tui.widgets.curve_plots import ForecastPlot, StabilityPlot
from brainview.tui.workers import WorkFailed, run_service

if TYPE_CHECKING:
    from brainview.services.communities.curves import ReflectionDetail
    from brainview.services.session import Session


class ReflectionScreen(Screen[None]):
    """One reflection: what it says, how well it holds, and when it will fade.

    | Key | Action |
    |-----|--------|
    | `escape` | Back |
    | `m` | Show the whole text / fold it again |
    | `ctrl+r` | Read again |
    | `x` / `c` | Invalidate… / challenge… (blast radius) |
    | `R` / `U` | Reinstate / undo this session's last lifecycle action |
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

    detail: var[ReflectionDetail | None] = var(None, always_update=True)
    """What was read last (``None`` while loading)."""

    def __init__(self, reflection_id: str) -> None:
        super().__init__()
        self.reflection_id = reflection_id

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # a lifecycle verb the person's role cannot use is hidden (the session refuses it)
        return allowed(self, action, parameters)

    def compose(self) -> ComposeResult:
        yield Header()
        left = VerticalScroll(id="reflection-left")
        left.border_title = "reflection"
        right = Vertical(id="reflection-right")
        right.border_title = "FSRS card"
        with ScrollableContainer(id="reflection-body"):
            with left:
                yield ReflectionText(id="reflection-text")
                yield Static(Text("references", style="bold underline"), classes="section")
                yield References(id="reflection-refs")
                yield Static(Text("influence", style="bold underline"), classes="section")
                yield InfluencePanel(id="reflection-influence")
                with Vertical(id="reflection-audit"):
                    yield AuditView(id="audit")
            with right:
                yield FsrsCard(id="reflection-card")
                yield StabilityPlot(id="stability-plot")
                yield ForecastPlot(id="forecast-plot")
        yield LifecycleActions()
        yield LifecycleWatch(id="lifecycle-watch")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(AuditView).reflection_id = self.reflection_id
        self.query_one(StabilityPlot).set_history(None)
        self.query_one(ForecastPlot).set_forecast(
            None, threshold=pruning_threshold(self), crossing=None
        )
        self.call_after_refresh(self.action_reload)

    # -- lifecycle ---------------------------------------------------------------------

    def action_lifecycle(self, verb: str) -> None:
        """Invalidate or challenge this reflection (the dialog shows its blast radius)."""
        self.query_one(LifecycleActions).open(verb, [self.reflection_id])

    def action_lifecycle_reinstate(self) -> None:
        """Reinstate this reflection (a live one: said at once, no reason asked)."""
        trail = self.query_one(AuditView).trail
        if trail is not None and trail.status.state == "live":
            self.notify("Nothing to reinstate: this reflection is live.", markup=False)
            return
        self.query_one(LifecycleActions).reinstate([self.reflection_id])

    def action_lifecycle_undo(self) -> None:
        """Undo this session's last lifecycle batch."""
        self.query_one(LifecycleActions).undo()

    @on(LifecycleActions.Applied)
    @on(LifecycleWatch.Moved)
    def _lifecycle_moved(self) -> None:
        """This console or another process changed a reflection's state: this one's
        card and trail may be out of date (one reflection's reads; the scroll stays)."""
        self.action_reload()
        self.query_one(AuditView).reload()

    @on(AuditView.Loaded)
    def _audit_loaded(self, message: AuditView.Loaded) -> None:
        self.query_one(LifecycleWatch).note(message.mark, "audit")

    def on_screen_resume(self) -> None:
        # Back from another screen: a change made meanwhile shows now, not at the next tick.
        self.query_one(LifecycleWatch).check()

    # -- loading and showing ----------------------------------------------------------

    def action_reload(self) -> None:
        """Read the reflection again."""
        rid, threshold = self.reflection_id, pruning_threshold(self)

        def read(session: Session) -> tuple[ReflectionDetail, int, dict[str, Any]]:
            from brainview.services.communities.curves import reflection_detail
            from brainview.services.influence import reflection_signals, settings_of
            from brainview.services.review.flags import lifecycle_mark

            with session.project() as project:
                mark = lifecycle_mark(project)  # first: a later change is noticed again
                detail = reflection_detail(project, rid, session.clock(), threshold=threshold)
                signals = reflection_signals(project, rid, settings_of(session.config.signals))
                return detail, mark, signals

        run_service(self, read, group="reflection-load", done=self._loaded)

    def _loaded(self, result: tuple[ReflectionDetail, int, dict[str, Any]]) -> None:
        detail, mark, signals = result
        self.query_one(InfluencePanel).data = signals
        self.detail = detail
        self.query_one(LifecycleWatch).note(mark, "detail")
        self.sub_title = one_line(detail.neuron.id, 60)
        self.query_one(ReflectionText).detail = detail
        self.query_one(References).update(render_refs(detail.refs))
        card = self.query_one(FsrsCard)
        card.now = session_of(self).clock()
        card.detail = detail
        self.query_one(StabilityPlot).set_history(detail.history)
        self.query_one(ForecastPlot).set_forecast(
            detail.forecast, threshold=detail.threshold, crossing=detail.crossing
        )

    @on(WorkFailed)
    def _failed(self, message: WorkFailed) -> None:
        if message.group == "reflection-load":
            self.query_one(ReflectionText).error = message.text

    def action_more(self) -> None:
        """Show the whole text, or fold it again."""
        text = self.query_one(ReflectionText)
        text.show_all = not text.show_all

    def action_back(self) -> None:
        """Back to the screen underneath."""
        self.dismiss(None)
