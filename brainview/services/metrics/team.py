"""The team's figures for ``stats --json``, the overview and MCP: what waits for a
second person under the two-person rule, and how often people agree.

``{"two_person": {"enabled", "rules", "prune_above", "agreement_sample", "waiting",
"approvals"}, "agreement": {"overall", "by_kind", "by_person"}}`` — ``approvals`` the
first 20 waiting votes, oldest first (``waiting`` counts them all).
"""

from __future__ import annotations

from typing import Any

from brainview.config import TwoPersonConfig
from brainview.services.metrics.agreement import agreement
from brainview.services.project import Project
from brainview.services.review.approvals import open_approvals
from brainview.services.team.two_person import rules_for
from brainview.store.discovery import BrainPaths

SHOWN = 20


def team_figures(project: Project, cfg: TwoPersonConfig) -> dict[str, Any]:
    """Both parts (module docstring), read in one go."""
    rules = rules_for(project.paths, cfg)
    waiting = open_approvals(project)
    return {
        "two_person": {
            "enabled": rules.enabled,
            "rules": sorted(rules.rules),
            "prune_above": rules.prune_above,
            "agreement_sample": rules.sample_rate,
            "waiting": len(waiting),
            "approvals": [a.to_json() for a in waiting[:SHOWN]],
        },
        "agreement": agreement(project),
    }


def headline(figures: dict[str, Any] | None) -> list[str]:
    """The overview's lines: what waits for a second person, then agreement by kind."""
    if not figures:
        return []
    lines: list[str] = []
    tp = figures.get("two_person") or {}
    if tp.get("waiting"):
        first = tp["approvals"][0] if tp.get("approvals") else None
        tail = f" (oldest: {first['waiting']})" if first else ""
        lines.append(f"{tp['waiting']} approval(s) wait for a second person{tail}")
    agree = figures.get("agreement") or {}
    overall = agree.get("overall") or {}
    if overall.get("items"):
        lines.append(f"agreement: {_figure(overall)}")
        for kind, fig in (agree.get("by_kind") or {}).items():
            lines.append(f"  {kind}: {_figure(fig)}")
        people = agree.get("by_person") or {}
        if people:
            lines.append(
                "  by person: "
                + ", ".join(
                    f"{name} {_value(fig)} ({fig['items']})" for name, fig in people.items()
                )
            )
    return lines


def _value(fig: dict[str, Any]) -> str:
    sign = "κ" if fig.get("method") == "cohen_kappa" else "α"
    return f"{sign} —" if fig.get("value") is None else f"{sign} {fig['value']:.2f}"


def _figure(fig: dict[str, Any]) -> str:
    return f"{fig['agreed']} of {fig['items']} agreed, {_value(fig)} ({', '.join(fig['raters'])})"


def team_at(paths: BrainPaths) -> dict[str, Any]:
    """:func:`team_figures` of the project at ``paths`` with its own ``[two_person]``
    settings (for faces that hold paths, not a session: MCP); no agent brain: not_found."""
    from brainview.config import load

    cfg = load(paths.config_path).two_person
    with Project.open(paths) as project:
        project.require_agent()
        return team_figures(project, cfg)
