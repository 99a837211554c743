"""Renderables for a reflection's lifecycle state and a proposal's suspicion flags.

For the triage screen (proposal detail, queue flag column) and the reflection views.
Marks never rely on colour alone: ``⚠ challenged``, ``⊘ invalidated``, ``☣ suspect``.
Every string from a brain goes through :mod:`brainview.core.safe_text`.
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

from brainview.core.safe_text import one_line, safe_text
from brainview.services.blast import decode_suspicion, describe_flag
from brainview.services.lifecycle import CHALLENGED, INVALIDATED, LIVE, MARK

SUSPECT_MARK = "☣"
"""Queue flag for a proposal carrying suspicion flags."""
MAX_FLAGS = 8


def state_mark(state: str | None) -> Text:
    """``⚠ challenged`` / ``⊘ invalidated`` / ``⊘ retired`` (empty for live)."""
    if not state or state == LIVE:
        return Text("")
    style = "bold" if state in (CHALLENGED, INVALIDATED) else "dim"
    return Text(MARK.get(state, one_line(state, 20)), style=style)


def state_line(state: str | None, reason: str = "", actor: str | None = None) -> Text:
    """A warning line for a non-live reflection: mark, who, and why (inert)."""
    line = state_mark(state)
    if not line.plain:
        return line
    if actor:
        line.append(f" by {one_line(actor, 40)}")
    if reason:
        line.append(" — ")
        line.append_text(safe_text(reason, multiline=False, limit=200))
    return line


def queue_flag(stale: bool, suspicion: str | None) -> Text:
    """The one-cell flag of a queue row: ``⚠`` stale wins over ``☣`` suspect."""
    if stale:
        return Text("⚠")
    return Text(SUSPECT_MARK if decode_suspicion(suspicion) else " ")


def render_suspicion(value: str | None) -> RenderableType | None:
    """The proposal's suspicion flags as warning lines (``None`` when there are none)."""
    flags = decode_suspicion(value)
    if not flags:
        return None
    lines: list[RenderableType] = [Text(f"{SUSPECT_MARK} suspect ({len(flags)})", style="bold")]
    for flag in flags[:MAX_FLAGS]:
        lines.append(
            Text("  ").append_text(safe_text(describe_flag(flag), multiline=False, limit=240))
        )
    if len(flags) > MAX_FLAGS:
        lines.append(Text(f"  … {len(flags) - MAX_FLAGS} more", style="dim"))
    return Group(*lines)
