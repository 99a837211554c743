"""The consolidation plan as text: triage tiers, then each phase's items by kind.

Brain strings (titles, skipped reasons) go through :func:`one_line` into
``rich.text.Text``: never markup.
"""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.text import Text

from brainview.core.community_label import community_name
from brainview.core.safe_text import one_line

SHOWN_PER_PHASE = 6
"""Items listed per kind; the rest are counted."""

KIND_ORDER = (
    ("prune_reflection", "sws"),
    ("decay_synapses", "shy"),
    ("summarize_community", "rem"),
    ("retire_policy", "rem"),
)


def _line(item: Any, titles: dict[str, str]) -> Text:
    p = item.params
    if item.kind == "prune_reflection":
        head = f"prune {p['reflection']} (R {p.get('retrievability', 0):.2f})"
        title = titles.get(p["reflection"], "")
    elif item.kind == "summarize_community":
        head = f"policy for {community_name(p.get('community'))} · {len(p['members'])} lessons"
        title = titles.get(p["members"][0], "") if p["members"] else ""
    elif item.kind == "retire_policy":
        head, title = f"retire policy {p['policy']}", titles.get(p["policy"], "")
    else:
        head, title = item.summary, ""
    line = Text("  " + one_line(head, 60), no_wrap=True, overflow="ellipsis")
    if title:
        line.append("  " + one_line(title, 80), style="dim")
    return line


def render_plan(plan: Any, titles: dict[str, str] | None = None) -> Group:
    """Triage tiers (explained), then each phase's items by kind, and what was left out."""
    from brainview.services.consolidate import PHASE_NAMES

    titles = titles or {}
    t = plan.triage
    lines: list[Text] = [
        Text(
            f"triage: {t['hot']} hot · {t['warm']} warm · {t['stale']} stale · "
            f"{t['new']} new (of which {t['contested']} contested)",
        ),
        Text(
            "hot: fired 3+ times in 7 days · warm: fired within 30 days · stale: not for 30+ "
            "days · new: younger, never fired · contested: mostly misses lately",
            style="dim",
        ),
        Text(""),
    ]
    phase = None
    for kind, kind_phase in KIND_ORDER:
        items = [i for i in plan.items if i.kind == kind]
        if kind_phase != phase:
            phase = kind_phase
            n = sum(1 for i in plan.items if i.phase == phase)
            lines.append(Text(f"{PHASE_NAMES[phase]}: {n}", style="bold"))
        lines += [_line(i, titles) for i in items[:SHOWN_PER_PHASE]]
        if len(items) > SHOWN_PER_PHASE:
            lines.append(Text(f"  … and {len(items) - SHOWN_PER_PHASE} more", style="dim"))
    if plan.skipped:
        left = " · ".join(f"{one_line(w, 50)}: {n}" for w, n in sorted(plan.skipped.items()))
        lines += [Text(""), Text("left out — " + left, style="dim")]
    return Group(*lines)


def subject(item: Any) -> str | None:
    """The neuron an item line is titled by."""
    p = item.params
    if item.kind == "summarize_community":
        return p["members"][0] if p["members"] else None
    return p.get("reflection") or p.get("policy")
