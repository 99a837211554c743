"""The recall box: type words and ``n-…`` neurons (or take the proposal under review)
and see the lessons recall ranks for them, each with why.

The recall runs through the session (:func:`brainview.tui.workers.run_service`); its
result lands in ``browsed`` and the box posts :class:`RecallBox.Ranked`, a failure
lands in ``error`` (one line, shown in the box) and the box posts
:class:`RecallBox.Failed`.  Browsing is never logged
(:func:`brainview.services.recall.browse.browse`): the box says so in its border.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from brainview.core.safe_text import one_line
from brainview.tui.recall.render import (
    NOT_LOGGED,
    about_text,
    hit_prompt,
    policies_text,
    status_text,
)
from brainview.tui.workers import WorkFailed, run_service

if TYPE_CHECKING:
    from brainview.services.recall.browse import Browsed, ProposalDraft
    from brainview.services.session import Session


ERROR_CHARS = 300
"""An error is one line (it may wrap in the box; paths are long)."""


class RecallBox(Widget):
    """Recall lessons for typed text or for the proposal under review (read-only).

    | Key | Action |
    |-----|--------|
    | `enter` | In the box: recall · on a hit: open the lesson |
    | `ctrl+t` | Use the proposal under review / drop it |
    | `down` | From the box to the hits |
    """

    DEFAULT_CSS = """
    RecallBox {
        height: 1fr;
        border: round $primary 50%;
        border-subtitle-color: $text-muted;
    }
    RecallBox #recall-about { height: auto; max-height: 3; padding: 0 1; }
    RecallBox #recall-input { height: 3; }
    RecallBox #recall-status { height: auto; max-height: 3; padding: 0 1; color: $text-muted; }
    RecallBox.-failed #recall-status { color: $text-error; }
    RecallBox #recall-hits { height: 1fr; border: none; }
    RecallBox #recall-policies { height: auto; max-height: 6; padding: 0 1; }
    """

    BINDINGS = [
        Binding(
            "ctrl+t",
            "toggle_draft",
            "Proposal",
            id="recall.draft",
            tooltip="Recall for the proposal under review / only for the typed text",
        ),
        Binding("down", "hits", "Hits", id="recall.hits", show=False),
    ]

    draft: reactive[ProposalDraft | None] = reactive(None, bindings=True)
    """The proposal the recall is for (``None``: only the typed text)."""
    offer: reactive[ProposalDraft | None] = reactive(None, bindings=True)
    """The proposal under review in triage, which ``ctrl+t`` takes (``None``: none)."""
    loading: reactive[bool] = reactive(False)
    """A recall is running."""
    error: reactive[str] = reactive("")
    """The last recall's failure, one line (empty: none)."""
    browsed: reactive[Browsed | None] = reactive(None, always_update=True)
    """The recall on screen."""

    @dataclass
    class Ranked(Message):
        """A recall finished; its hits are on screen."""

        box: RecallBox
        browsed: Browsed

        @property
        def control(self) -> RecallBox:
            return self.box

    @dataclass
    class Failed(Message):
        """A recall failed; ``text`` is the one line shown."""

        box: RecallBox
        text: str

        @property
        def control(self) -> RecallBox:
            return self.box

    @dataclass
    class Chosen(Message):
        """The maintainer chose a hit (to open the lesson)."""

        box: RecallBox
        reflection_id: str

        @property
        def control(self) -> RecallBox:
            return self.box

    def compose(self) -> ComposeResult:
        yield Static(about_text(None, None), id="recall-about")
        yield Input(placeholder="words and n-… neuron ids · enter recalls", id="recall-input")
        yield Static(status_text(False, "", None), id="recall-status")
        yield OptionList(id="recall-hits")
        yield Static("", id="recall-policies")

    def on_mount(self) -> None:
        self.border_title = "recall"
        self.border_subtitle = NOT_LOGGED
        self.query_one("#recall-policies", Static).display = False

    # -- running -----------------------------------------------------------------------

    def recall(self) -> None:
        """Recall for what is typed (and the proposal, if used), in a thread."""
        text = self.query_one(Input).value
        if not text.strip() and self.draft is None:
            self.error = "nothing to recall: type words or n-… ids (ctrl+t: the proposal)"
            return
        self.error, self.loading = "", True

        def job(session: Session) -> Browsed:
            from brainview.services.recall.browse import browse

            with session.project() as project:
                return browse(project, text=text, draft=draft, now=session.clock())

        draft = self.draft
        run_service(self, job, group="recall-box", done=self._ranked)

    def _ranked(self, browsed: Browsed) -> None:
        self.loading = False
        self.browsed = browsed
        self.post_message(self.Ranked(self, browsed))

    @on(WorkFailed)
    def _failed(self, message: WorkFailed) -> None:
        """A recall failed: said in the box, in one line (not also as a toast)."""
        message.stop()
        self.loading = False
        self.error = one_line(str(message.error) or type(message.error).__name__, ERROR_CHARS)
        self.browsed = None  # no hits from an earlier recall under this error
        self.post_message(self.Failed(self, self.error))

    # -- showing -----------------------------------------------------------------------

    def watch_loading(self) -> None:
        self._show_status()

    def watch_error(self, error: str) -> None:
        self.set_class(bool(error), "-failed")
        self._show_status()

    def watch_draft(self) -> None:
        self._show_about()

    def watch_browsed(self, browsed: Browsed | None) -> None:
        self._show_status()
        self._show_about()
        hits = self.query_one(OptionList)
        hits.clear_options()
        policies = self.query_one("#recall-policies", Static)
        if browsed is None:
            policies.display = False
            return
        titles = {r.neuron_id: r.title for r in browsed.refs}
        hits.add_options(
            Option(hit_prompt(h, browsed.shown.get(h.reflection, ""), titles), id=h.reflection)
            for h in browsed.result.hits
        )
        if browsed.result.hits:
            hits.highlighted = 0
        ranks = {h.reflection: h.rank for h in browsed.result.hits}
        policies.update(policies_text(browsed.result.policies, browsed.shown, ranks))
        policies.display = bool(browsed.result.hits)

    def _show_status(self) -> None:
        status = status_text(self.loading, self.error, self.browsed)
        self.query_one("#recall-status", Static).update(status)

    def _show_about(self) -> None:
        self.query_one("#recall-about", Static).update(about_text(self.draft, self.browsed))

    # -- keys and events ---------------------------------------------------------------

    @on(Input.Submitted, "#recall-input")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.recall()

    @on(OptionList.OptionSelected, "#recall-hits")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id:
            self.post_message(self.Chosen(self, event.option.id))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "toggle_draft":
            return self.draft is not None or self.offer is not None
        return True

    def action_toggle_draft(self) -> None:
        """Recall for the proposal under review, or stop using it; then recall again."""
        self.draft = None if self.draft is not None else self.offer
        if self.draft is not None or self.query_one(Input).value.strip():
            self.recall()

    def action_hits(self) -> None:
        """Move from the box to the hits."""
        hits = self.query_one(OptionList)
        if hits.option_count:
            hits.focus()

    @property
    def hit_ids(self) -> list[str]:
        """The reflections on screen, best first."""
        return [h.reflection for h in self.browsed.result.hits] if self.browsed else []
