"""Command palette: what applies now, labelled ``namespace: verb``."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.theme import BUILTIN_THEMES


class BrainviewCommands(Provider):
    """Navigation, review verbs for the current screen, themes and help."""

    def _commands(self) -> list[tuple[str, Callable[[], object], str]]:
        app = self.app
        screen = self.screen
        out: list[tuple[str, Callable[[], object], str]] = [
            ("go: overview", partial(app.run_action, "go('overview')"), "Both brains"),
            ("go: triage", partial(app.run_action, "go('triage')"), "Pending proposals"),
            ("help: keys and guide", partial(app.run_action, "help"), "Effective keys"),
        ]
        if "communities" in getattr(app, "MODES", {}):
            out.append(
                (
                    "go: communities",
                    partial(app.run_action, "go('communities')"),
                    "Reflection communities",
                )
            )
        verbs = {
            "accept": ("proposal: accept", "Accept the highlighted or marked proposals"),
            "reject": ("proposal: reject", "Reject with a reason"),
            "skip": ("proposal: skip", "Next proposal without deciding"),
            "undo": ("proposal: undo", "Undo the last decision of this session"),
            "mark": ("proposal: mark", "Mark for a bulk decision"),
            "filter": ("queue: filter", "Filter the queue"),
            "sort": ("queue: sort", "Cycle the sort order"),
        }
        for action, (label, help_text) in verbs.items():
            check = getattr(screen, "check_action", None)
            if hasattr(screen, f"action_{action}") and (check is None or check(action, ())):
                out.append((label, partial(screen.run_action, action), help_text))
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
