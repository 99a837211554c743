"""Renderables for a reflection's lifecycle state and a proposal's suspicion flags.

For the triage screen (proposal detail, queue flag column) and the reflection views.
Marks never rely on colour alone: ``⚠ challenged``, ``⊖ invalidated``, ``☣ suspect``
(:mod:`brainview.core.vocabulary`).
Every string from a brain goes through :mod:`brainview.core.safe_text`.
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

from brainview.core.safe_text import one_line, safe_text
from brainview.core.suspicion import (
    CHALLENGED,
    INVALIDATED,
    LIVE,
    MARK,
    decode_suspicion,
    describe_flag,
)
from brainview.core.vocabulary import GLYPH

SUSPECT_MARK = GLYPH["suspect"]
"""Queue flag for a proposal carrying suspicion flags."""
MAX_FLAGS = 8


def state_mark(state: str | None) -> Text:
    """``⚠ challenged`` / ``⊖ invalidated`` / ``⊘ retired`` (empty for live)."""
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


def queue_flag(stale: bool, suspicion: str | None, leans: tuple[object, ...] = ()) -> Text:
    """The one-cell flag of a queue row: ``⚑`` when a consulted reflection is not live
    now or a blast radius flagged it; ``↻`` when stale; else ``☣`` for other suspicion."""
    flags = decode_suspicion(suspicion)
    if leans or any(f.get("kind") == "blast" for f in flags):
        return Text(GLYPH["flagged"])
    if stale:
        return Text(GLYPH["stale"])
    return Text(SUSPECT_MARK if flags else " ")


def render_leans(leans: list[tuple[str, str]]) -> Text | None:
    """``⚑ leans on …``: the consulted reflections that are not live now (``None``: none)."""
    if not leans:
        return None
    line = Text(f"{GLYPH['flagged']} leans on ", style="bold")
    for n, (rid, state) in enumerate(leans[:MAX_FLAGS]):
        line.append(", " if n else "")
        line.append(one_line(rid, 24))
        line.append(" ")
        line.append_text(state_mark(state) if state in MARK else Text(one_line(state, 20)))
    if len(leans) > MAX_FLAGS:
        line.append(f" … {len(leans) - MAX_FLAGS} more")
    line.append(" — accepting asks first", style="dim")
    return line


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
