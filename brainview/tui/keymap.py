"""User key remapping by binding id (``[keys]`` in the config), validated up front.

Unknown ids and two bindings of one screen on the same key are refused with a
message naming them, before the app starts.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from textual.binding import Binding

from brainview.errors import ConfigError


def scopes() -> dict[str, list[Binding]]:
    """Bindings per scope: the app's plus each screen's (imported lazily)."""
    from brainview.tui.app import BrainviewApp
    from brainview.tui.help import HelpScreen
    from brainview.tui.overview import OverviewScreen
    from brainview.tui.triage import TriageScreen
    from brainview.tui.widgets.confirm import ConfirmScreen
    from brainview.tui.widgets.reason_prompt import ReasonPrompt

    scopes: dict[str, list[Binding]] = {
        "app": _bindings(BrainviewApp.BINDINGS),
        "overview": _bindings(OverviewScreen.BINDINGS),
        "triage": _bindings(TriageScreen.BINDINGS),
        "help": _bindings(HelpScreen.BINDINGS),
        "prompt": _bindings(ReasonPrompt.BINDINGS),
        "confirm": _bindings(ConfirmScreen.BINDINGS),
    }
    for name, module, cls in (
        ("communities", "brainview.tui.communities", "CommunitiesScreen"),
        ("reflection", "brainview.tui.reflection", "ReflectionScreen"),
        ("consolidate", "brainview.tui.consolidate", "ConsolidateScreen"),
        ("policy", "brainview.tui.widgets.policy_editor", "PolicyEditor"),
        ("held_back", "brainview.tui.triage.held_back", "HeldBackScreen"),
        ("suspicious", "brainview.tui.suspicious", "SuspiciousScreen"),
    ):
        try:
            mod = __import__(module, fromlist=[cls])
            scopes[name] = _bindings(getattr(mod, cls).BINDINGS)
        except (ImportError, AttributeError):
            continue
    from brainview.tui.recall import RecallScreen
    from brainview.tui.recall.box import RecallBox

    scopes["recall"] = _bindings([*RecallScreen.BINDINGS, *RecallBox.BINDINGS])
    return scopes


def _bindings(items: Iterable[object]) -> list[Binding]:
    """A scope's bindings, hidden twins aside (:mod:`brainview.tui.bindings`)."""
    from brainview.tui.bindings import unique

    return unique([b for b in items if isinstance(b, Binding)])


def known_ids() -> dict[str, str]:
    """Binding id → its default key(s)."""
    return {b.id: b.key for bs in scopes().values() for b in bs if b.id}


def validate(keys: dict[str, str], files: Mapping[str, Path] | None = None) -> None:
    """Raise :class:`ConfigError` for unknown ids or clashes within one scope; the
    message names the config file that remapped the id (``files``, from
    :attr:`Config.key_files <brainview.config.Config.key_files>`)."""
    if not keys:
        return
    files = files or {}

    def where(binding_id: str | None) -> str:
        path = files.get(binding_id or "")
        return f"{path}: [keys]" if path else "[keys]"

    by_scope = scopes()
    ids = {b.id for bs in by_scope.values() for b in bs if b.id}
    for binding_id in keys:
        if binding_id not in ids:
            raise ConfigError(f"{where(binding_id)}: unknown binding id {binding_id!r}")
    app_keys = {k for b in by_scope["app"] for k in _effective(b, keys)}
    for scope, bindings in by_scope.items():
        seen: dict[str, str] = {}
        for b in bindings:
            for key in _effective(b, keys):
                other = seen.get(key)
                if other and other != b.id:
                    mapped = b.id if b.id in keys else other
                    raise ConfigError(
                        f"{where(mapped)}: {b.id!r} and {other!r} both use {key!r} "
                        f"on the {scope} screen"
                    )
                seen[key] = b.id or b.action
                if scope != "app" and b.id in keys and key in app_keys:
                    raise ConfigError(
                        f"{where(b.id)}: {b.id!r} uses {key!r}, already an app-wide key"
                    )


def _effective(binding: Binding, keys: dict[str, str]) -> list[str]:
    raw = keys.get(binding.id or "", binding.key)
    return [k.strip() for k in raw.split(",") if k.strip()]
