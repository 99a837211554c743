"""Consolidation screens: the plan modal and a policy proposal under review."""

from __future__ import annotations

import pytest

from brainview.demo.generator import DEMO_NOW
from brainview.services import consolidate
from brainview.services.project import Project
from brainview.store.discovery import discover
from brainview.tui.app import make_app
from brainview.tui.clock import frozen
from tests.tui_helpers import settle


def _queue(root) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    """Queue the demo's consolidation; the first policy proposal and its plan id."""
    with Project.open(discover(root), write_agent=True) as p:
        plan = consolidate.plan(p, now=DEMO_NOW, in_process=True)
        ids = consolidate.queue(p, plan, now=DEMO_NOW)
    k = next(k for k, i in enumerate(plan.items) if i.kind == "summarize_community")
    return ids[k], plan.id


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_policy_proposal(snap_compare, fixed_demo, size) -> None:  # type: ignore[no-untyped-def]
    pid, _plan = _queue(fixed_demo)

    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await settle(pilot)
        pilot.app.screen.show_only(pid)
        await settle(pilot)
        for box in pilot.app.screen.query("Input"):
            box.cursor_blink = False

    app = make_app(discover(fixed_demo), clock=frozen(DEMO_NOW), start="triage", decider="snap")
    assert snap_compare(app, terminal_size=size, run_before=run_before)


def test_consolidate_modal(snap_compare, fixed_demo) -> None:  # type: ignore[no-untyped-def]
    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await settle(pilot)
        await pilot.press("z")
        await settle(pilot, rounds=8)

    app = make_app(
        discover(fixed_demo), clock=frozen(DEMO_NOW), start="communities", decider="snap"
    )
    assert snap_compare(app, terminal_size=(120, 40), run_before=run_before)
