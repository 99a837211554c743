"""Command palette: what applies now, labelled ``namespace: verb``.

Only what the session's role allows is offered (:meth:`Session.can`, through
:func:`brainview.tui.role_gate.action_of`): a binding's action is checked on the node
that runs it — ``app.consolidate`` on the app, not on the screen that declares it —
and then against the role whatever that node says.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content
from textual.theme import BUILTIN_THEMES

from brainview.core.safe_text import first_line, one_line
from brainview.tui.access import brainview_app

NAMESPACES = {
    "triage": "proposal",
    "lifecycle": "reflection",
    "fading": "fading",
    "communities": "communities",
    "reflection": "reflection",
    "overview": "overview",
}
if TYPE_CHECKING:
    from brainview.services.session import Session

SKIP = {"go", "app", "help"}


def _split(action: str) -> tuple[str, tuple[object, ...]]:
    """``"decide('rescue')"`` → ``("decide", ("rescue",))``."""
    if "(" not in action:
        return action, ()
    name, _, rest = action.partition("(")
    args = rest.rstrip(")")
    return name, tuple(a.strip().strip("'\"") for a in args.split(",") if a.strip())


def _target(binding_action: str, app: object, screen: object) -> tuple[object, str, tuple]:
    """The node that runs ``binding_action`` (``app.`` / ``screen.`` prefixes), the
    bare action name and its parameters."""
    name, params = _split(binding_action)
    namespace, dot, bare = name.partition(".")
    if dot and namespace == "app":
        return app, bare, params
    if dot and namespace == "screen":
        return screen, bare, params
    return screen, name, params


def _offered(app: object, node: object, action: str, params: tuple[object, ...]) -> bool:
    """Whether the palette offers ``action``: the node that runs it allows it now, and
    the session's role allows what it does."""
    from brainview.tui.role_gate import action_of

    check = getattr(node, "check_action", None)
    if check is not None and not check(action, params):
        return False
    needed = action_of(action, params)
    session = getattr(app, "session", None)
    return needed is None or (session is not None and bool(session.can(needed)))


class BrainviewCommands(Provider):
    """Navigation, review verbs for the current screen, themes and help."""

    def _commands(self) -> list[tuple[str, Callable[[], object], str]]:
        app = brainview_app(self.screen)
        screen = self.screen
        out: list[tuple[str, Callable[[], object], str]] = [
            ("go: overview", partial(app.run_action, "go('overview')"), "Both brains"),
            ("go: triage", partial(app.run_action, "go('triage')"), "Pending proposals"),
            ("help: keys and guide", partial(app.run_action, "help"), "Effective keys"),
        ]
        if app.paths.agent_exists:
            verbs = {True: "resume writing", False: "pause writing", None: "pause/resume writing"}
            verb = verbs[app.writing_paused]
            out += [
                (label, partial(app.run_action, action), why)
                for label, action, why in (
                    (
                        "reflections: consolidate…",
                        "consolidate",
                        "Plan triage/SHY/SWS/REM; queue each change as a proposal",
                    ),
                    (
                        f"reflections: {verb}",
                        "toggle_writing",
                        "Rejections write no new reflection while paused",
                    ),
                )
                if _offered(app, app, action, ())  # the role allows it
            ]
        if "communities" in app.MODES:
            out.append(
                (
                    "go: communities",
                    partial(app.run_action, "go('communities')"),
                    "Reflection communities",
                )
            )
        # Every declared binding of the current screen that applies now, by its id.
        for binding in getattr(screen, "BINDINGS", []):
            if not isinstance(binding, Binding) or not binding.id:
                continue
            if binding.action.startswith("why("):  # a hidden twin (brainview.tui.bindings)
                continue
            prefix = binding.id.split(".", 1)[0]
            if prefix in SKIP:
                continue
            namespace = NAMESPACES.get(prefix, prefix)
            if prefix == "lifecycle" and type(screen).__name__ == "CommunitiesScreen":
                namespace = "community"
            target, action, params = _target(binding.action, app, screen)
            if not _offered(app, target, action, params):
                continue
            label = f"{namespace}: {binding.description.rstrip('…').lower()}"
            out.append((label, partial(screen.run_action, binding.action), binding.tooltip))
        for name in sorted(BUILTIN_THEMES):
            out.append((f"theme: {name}", partial(setattr, app, "theme", name), "Switch theme"))
        return out

    async def discover(self) -> Hits:
        for label, callback, help_text in self._commands():
            if not label.startswith("theme: "):
                yield DiscoveryHit(label, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for label, callback, help_text in self._commands():
            score = matcher.match(label)
            if score > 0:
                yield Hit(score, matcher.highlight(label), callback, help=help_text)
        if len(query.strip()) >= 3:
            app = brainview_app(self.screen)
            for rid, content in await asyncio.to_thread(_find_reflections, app.session, query):
                label = f"jump: reflection {one_line(rid, 24)} — {first_line(content, 50)}"
                yield Hit(
                    0.5,
                    Content(label),
                    partial(app.open_reflection, rid),
                    help="Open the reflection view",
                )


def _find_reflections(session: Session, query: str) -> list[tuple[str, str]]:
    """Up to five reflections whose id starts with, or whose text contains, the query."""
    from brainview.services.readout.reflections import find_reflections

    try:
        with session.project() as project:
            return find_reflections(project, query)
    except Exception:  # noqa: BLE001 - the palette simply offers nothing
        return []
