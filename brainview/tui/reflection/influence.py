"""The reflection view's influence panel: what the lesson made happen (drafts it
supported, opposed, suppressed; decisions it swayed), who confirmed it, and each
suspicion signal with its reason.  Brain text (reasons quote it) is data, never markup."""

from __future__ import annotations

from typing import Any

from rich.console import RenderableType
from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from brainview.core.safe_text import safe_text
from brainview.core.vocabulary import GLYPH


def render_influence(data: dict[str, Any] | None) -> RenderableType:
    """Two lines of figures, then one ``⚑`` line per signal (or ``no suspicion signal``)."""
    if data is None:
        return Text("influence: loading…", style="dim italic")
    inf = data["influence"]
    out = Text()
    out.append("influence ", style="bold")
    out.append(
        f"{inf['score']}: supported {inf['supported']} · opposed {inf['opposed']} · "
        f"suppressed {inf['suppressed']} · swayed {inf['swayed']} of {inf['decided']} decided"
        f" · recalled {inf['recalled']}\n"
    )
    out.append("corroboration ", style="bold")
    out.append(
        f"{inf['confirmations']} confirmation(s), {inf['contradictions']} contradiction(s) "
        f"from {inf['deciders']} decider(s) · {inf['runtimes']} runtime(s) · "
        f"{inf['sources']} source(s)\n"
    )
    if not data["signals"]:
        out.append("no suspicion signal", style="dim")
        return out
    out.append(f"suspicion {data['suspicion']:.1f} · rank {data['rank']:.1f}\n", style="bold")
    for sig in data["signals"]:
        out.append(f"{GLYPH['flagged']} ", style="bold")
        out.append_text(safe_text(str(sig["reason"])))
        out.append("\n")
    out.rstrip()
    return out


class InfluencePanel(Static):
    """Influence, corroboration and suspicion signals of the reflection shown."""

    DEFAULT_CSS = """
    InfluencePanel { height: auto; }
    """

    data: reactive[dict[str, Any] | None] = reactive(None, layout=True, always_update=True)
    """What :func:`brainview.services.influence.reflection_signals` returned (``None``:
    loading)."""

    def render(self) -> RenderableType:
        return render_influence(self.data)
