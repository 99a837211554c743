"""The Textual app: screens over one project, a clock, and the threading rule.

Workers open their own short-lived :class:`Project` (read-only unless deciding);
widgets are only touched from message handlers.
"""

from __future__ import annotations

import getpass
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import events
from textual.app import App
from textual.binding import Binding
from textual.screen import ModalScreen
from textual.worker import Worker

from brainview.config import Config
from brainview.core.identity import Identity
from brainview.store.discovery import BrainPaths
from brainview.tui.clock import Clock, system_clock
from brainview.tui.styles_dir import STYLES
from brainview.tui.workers import ServiceRunner, WorkFailed, run_service

if TYPE_CHECKING:
    from textual.command import Provider
    from textual.screen import Screen

    from brainview.services.presence import Presence
    from brainview.services.review.detail import ProposalDetail
    from brainview.services.session import Session


def _palette() -> type[Provider]:
    """brainview's palette provider, imported when the palette first opens."""
    from brainview.tui.palette import BrainviewCommands

    return BrainviewCommands


class BrainviewApp(App[int]):
    """brainview: triage, communities and invalidation over a Spikuit project."""

    TITLE = "brainview"
    CSS_PATH = [STYLES / "app.tcss"]
    ENABLE_COMMAND_PALETTE = True
    COMMANDS: ClassVar = App.COMMANDS | {_palette}
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]

    MODES: ClassVar = {
        "overview": lambda: _screen("overview"),
        "triage": lambda: _screen("triage"),
        "communities": lambda: _screen("communities"),
    }
    DEFAULT_MODE = "overview"

    BINDINGS = [
        Binding(
            "f1,question_mark",
            "help",
            "Help",
            id="app.help",
            key_display="?",
            tooltip="Every key that applies here, and the guide",
        ),
        Binding("1", "go('overview')", "Overview", id="go.overview", tooltip="Both brains"),
        Binding("2", "go('triage')", "Triage", id="go.triage", tooltip="Pending proposals"),
        Binding(
            "3",
            "go('communities')",
            "Communities",
            id="go.communities",
            tooltip="Reflection communities and what is fading",
        ),
        Binding(
            "4",
            "suspicious",
            "Suspicious",
            id="go.suspicious",
            tooltip="Lessons ranked by influence × suspicion, each signal with its reason",
        ),
        Binding(
            "q,ctrl+c",
            "request_quit",
            "Quit",
            id="app.quit_ask",
            show=False,
            tooltip="Quit (asks first while a change is still being written)",
        ),
        Binding("ctrl+q", "quit", "Quit now", id="app.quit", show=False, priority=True),
        Binding(
            "h",
            "pane(-1)",
            "Pane left",
            id="app.pane_left",
            show=False,
            tooltip="Focus the previous pane",
        ),
        Binding(
            "l",
            "pane(1)",
            "Pane right",
            id="app.pane_right",
            show=False,
            tooltip="Focus the next pane",
        ),
    ]

    def __init__(
        self,
        paths: BrainPaths,
        *,
        clock: Clock = system_clock,
        decider: str | None = None,
        start: str | None = None,
        config: Config | None = None,
        identity: Identity | None = None,
    ) -> None:
        # The first screen is the start mode's own (no blank default screen laid out,
        # styled and resized first, then replaced: a third of the first paint).  Textual
        # types DEFAULT_MODE as a ClassVar yet reads it off the instance in App.__init__;
        # the start mode belongs to this app, not to every BrainviewApp.
        self.DEFAULT_MODE = start or _default_start(paths)  # type: ignore[misc]
        super().__init__()
        from brainview.services.session import Session

        self.paths = paths
        self.identity = identity
        """The signed-in person (``brainview serve``); ``None``: started by hand."""
        self.session = Session.start(
            paths, config=config, clock=clock, decider=decider, os_user=_os_user, identity=identity
        )
        """The services door: brains, config, clock and decider for every worker."""
        self.session.on_moved = self._say_moved
        self.presence: Presence | None = None
        """Who else looks at which proposal (a signed-in console with a presence
        database, :mod:`brainview.services.presence`); ``None`` otherwise."""
        if identity is not None and identity.presence:
            from brainview.services.presence import Presence

            self.presence = Presence(Path(identity.presence), identity.name)
        self.services = ServiceRunner()
        """Where every service worker reports (:mod:`brainview.tui.workers`)."""
        self.now: Clock = clock
        self.config: Config = self.session.config
        """Typed settings (user file, then the project's ``.spikuit/brainview.toml``)."""
        self.decider = self.session.decider
        self.writing_paused: bool | None = None
        """Whether the project paused reflection writing (``None``: not read yet)."""
        self.under_review: ProposalDetail | None = None
        """The proposal triage shows now (the recall box's ``ctrl+t`` recalls for it)."""
        if self.config.keys:
            self.set_keymap(self.config.keys)
        if self.config.ui.theme:
            self.theme = self.config.ui.theme

    def on_mount(self) -> None:
        self.sub_title = str(self.paths.project_root or self.paths.user_db)
        if self.session.signed_in:  # a checked name (letters, digits, . _ -): no markup
            self.title = f"{self.TITLE} · {self.session.decider} · {self.session.role}"

    def _say_moved(self, roles: list[str], held: set[str]) -> None:
        """Tell the maintainer a brain file changed identity under the console."""
        gone = [
            r
            for r in roles
            if (r == "user" and not self.paths.user_db.is_file())
            or (r == "agent" and not self.paths.agent_exists)
        ]
        text = (
            "; ".join(
                f"the {r} brain was {'deleted' if r in gone else 'replaced on disk'}" for r in roles
            )
            + " — reopened; everything shown is read again"
        )
        if held:
            text += (
                f". Another program still holds the old {'/'.join(sorted(held))} brain's "
                "write-ahead log: close it and reopen, or the restored file may read wrong"
            )
        try:
            self.call_from_thread(self.notify, text, severity="warning", timeout=8)
        except RuntimeError:  # already on the app's thread
            self.notify(text, severity="warning", timeout=8)

    def on_resize(self, event: events.Resize) -> None:
        """Below the minimum size show a clear notice rather than a broken layout."""
        from brainview.tui.too_small import MIN_HEIGHT, MIN_WIDTH, TooSmallScreen

        small = event.size.width < MIN_WIDTH or event.size.height < MIN_HEIGHT
        showing = isinstance(self.screen, TooSmallScreen)
        if small and not showing:
            self.push_screen(TooSmallScreen())
        elif not small and showing:
            self.pop_screen()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Hide what the person's role cannot use (the session refuses it anyway)."""
        from brainview.tui.role_gate import action_of

        needed = action_of(action, parameters)
        return needed is None or self.session.can(needed)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """The one place a service worker's end is routed (result or failure)."""
        self.services.finished(event)

    def on_work_failed(self, message: WorkFailed) -> None:
        """A failed service call reached the app: say it, in one line."""
        self.notify(message.text, title="Refused", severity="error", markup=False)

    def on_unmount(self) -> None:
        if self.presence is not None:
            self.presence.close()  # this person looks at nothing any more
        self.session.close()

    def action_request_quit(self) -> None:
        """Quit; while a service call is still writing, ask first (``ctrl+q`` never asks).

        ``q`` and ``ctrl+c`` both land here when no text box takes them (in a text
        box ``ctrl+c`` copies and ``q`` types).
        """
        running = self.services.running(writes_only=True)
        if not running:
            self.exit(0)
            return
        from brainview.tui.widgets.confirm import ConfirmScreen

        def answered(yes: bool | None) -> None:
            if yes:
                self.exit(0)

        self.push_screen(
            ConfirmScreen(
                "Quit while work is in flight?",
                [
                    f"{running} change(s) still being written: quitting now may leave the "
                    "last one undone (nothing is half-written).",
                ],
                verb="quit",
            ),
            answered,
        )

    def action_pane(self, step: int) -> None:
        """Focus the next (``l``) or previous (``h``) pane of this screen.

        Panes are the focusable widgets that hold no other focusable widget (a page
        scroller around two panes is not one); focus inside a pane counts as that pane.
        """
        chain = self.screen.focus_chain
        panes = [w for w in chain if not any(w in other.ancestors for other in chain)]
        if not panes:
            return
        focused = self.screen.focused
        here = next(
            (
                i
                for i, p in enumerate(panes)
                if focused is p or (focused and p in focused.ancestors)
            ),
            None,
        )
        if here is None:
            target = panes[0] if step > 0 else panes[-1]
        else:
            target = panes[(here + step) % len(panes)]
        self.screen.set_focus(target)

    def action_go(self, name: str) -> None:
        """Switch to a top-level screen (each keeps its state between switches); a view
        pushed over it (a reflection, recall) is closed, so ``3`` lands on the clusters."""
        if name not in self.MODES:
            return
        if self.current_mode != name:
            self.switch_mode(name)
        while len(self.screen_stack) > 1 and not isinstance(self.screen, ModalScreen):
            self.pop_screen()

    def open_reflection(self, reflection_id: str) -> None:
        """Push the reflection view (text, card, stability history, forecast)."""
        from brainview.tui.reflection import ReflectionScreen

        self.push_screen(ReflectionScreen(reflection_id))

    def open_recall(self, proposal: ProposalDetail | None = None) -> None:
        """Push the recall screen, prefilled with ``proposal``'s draft if given (else for
        typed text; the proposal under review in triage is one ``ctrl+t`` away).  Without
        an agent brain the box says so, in one line, when asked to recall."""
        from brainview.services.recall.browse import draft_of
        from brainview.tui.recall import RecallScreen

        offer = proposal or self.under_review
        self.push_screen(
            RecallScreen(
                draft_of(proposal) if proposal is not None else None,
                offer=draft_of(offer) if offer is not None else None,
            )
        )

    def action_suspicious(self) -> None:
        """Push the suspicious view (lessons by influence × suspicion) over this screen."""
        from brainview.tui.suspicious import SuspiciousScreen

        if isinstance(self.screen, SuspiciousScreen):
            return
        if self.paths.agent_exists:
            self.push_screen(SuspiciousScreen())
        else:
            self.notify("no agent brain: no lessons to rank", severity="warning")

    def action_recall(self) -> None:
        """Recall lessons by words and neurons (read-only)."""
        self.open_recall()

    def action_consolidate(self) -> None:
        """Plan a consolidation of the agent brain and queue it for review."""
        from brainview.tui.consolidate import ConsolidateScreen

        def done(result: tuple[int, str] | None) -> None:
            if not result:
                return
            queued, plan_id = result
            self.notify(f"queued {queued} consolidation proposal(s): decide them here")
            self.action_go("triage")
            from brainview.tui.triage import TriageScreen

            if isinstance(self.screen, TriageScreen):
                self.screen.call_after_refresh(self.screen.show_only, plan_id)

        if self.paths.agent_exists:
            self.push_screen(ConsolidateScreen(), done)
        else:
            self.notify("no agent brain to consolidate", severity="warning")

    def action_toggle_writing(self) -> None:
        """Pause reflection writing, or resume it (a project setting)."""
        if self.paths.agent_exists:
            self._toggle_writing()

    def _toggle_writing(self) -> None:
        def toggle(session: Session) -> bool:
            return session.toggle_writing().paused

        run_service(self, toggle, group="writing", done=self._writing_changed)

    def _writing_changed(self, paused: bool) -> None:
        self.writing_paused = paused
        from brainview.tui.triage import TriageScreen

        for screen in self.screen_stack:
            if isinstance(screen, TriageScreen):
                screen.set_writing(paused)
        if paused:
            self.notify("reflection writing paused: rejections grade but write no reflection")
        else:
            self.notify("reflection writing resumed")

    def action_help(self) -> None:
        """Show the keys that apply here and the guide."""
        from brainview.tui.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen))


def _screen(name: str) -> Screen[None]:
    """Import a top-level screen only when it is first shown."""
    if name == "communities":
        from brainview.tui.communities import CommunitiesScreen

        return CommunitiesScreen()
    if name == "triage":
        from brainview.tui.triage import TriageScreen

        return TriageScreen()
    from brainview.tui.overview import OverviewScreen

    return OverviewScreen()


def _os_user() -> str:
    try:
        return getpass.getuser()
    except Exception:  # noqa: BLE001 - no login name in some containers
        return "maintainer"


def _default_start(paths: BrainPaths) -> str:
    """Triage when proposals are pending, else the overview."""
    if not paths.agent_exists:
        return "overview"
    from brainview.store.light import pending_count

    return "triage" if pending_count(paths) else "overview"


def make_app(
    paths: BrainPaths,
    *,
    clock: Clock = system_clock,
    decider: str | None = None,
    start: str | None = None,
    config: Config | None = None,
    identity: Identity | None = None,
) -> BrainviewApp:
    """Factory shared by the CLI and the tests."""
    return BrainviewApp(
        paths, clock=clock, decider=decider, start=start, config=config, identity=identity
    )


def identity_of(environ: Mapping[str, str]) -> Identity | None:
    """Who this console runs as (``brainview serve`` sets it; ``None``: by hand); an
    unusable value is a one-line usage error, never a fallback to full rights."""
    from brainview.core.identity import IdentityError, identity_from_env
    from brainview.errors import UsageError

    try:
        return identity_from_env(environ)
    except IdentityError as err:
        raise UsageError(f"signed-in identity: {err}") from None


def run_app(paths: BrainPaths, *, screen: str | None = None, config: Config | None = None) -> int:
    """Run the console (as the person ``brainview serve`` named, if any); the exit code."""
    identity = identity_of(os.environ)
    app = make_app(paths, start=screen, config=config, identity=identity)
    result = app.run()
    return int(result or 0)
