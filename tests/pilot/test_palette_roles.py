"""The command palette offers only what the console's person may do: a reviewer is
never offered "consolidate" (nor pausing writing, nor invalidating), whichever screen
declares the binding; a maintainer is; a viewer is offered no verb that writes."""

from __future__ import annotations

from pathlib import Path

import pytest

from brainview.core.identity import Identity
from brainview.core.roles import allows
from brainview.demo.generator import DEMO_NOW
from brainview.store.discovery import discover
from brainview.tui.app import make_app
from brainview.tui.clock import frozen
from brainview.tui.palette import BrainviewCommands
from tests.tui_helpers import settle

SCREENS = ("triage", "overview", "communities")
WRITES = ("accept", "reject", "dismiss", "export", "rescue", "let go", "undo", "consolidate")


async def _offered(root: Path, role: str, start: str) -> list[str]:
    """The palette's labels (themes aside) for ``role`` on the ``start`` screen."""
    ident = Identity("alice", role, None)  # type: ignore[arg-type]
    app = make_app(discover(root), clock=frozen(DEMO_NOW), start=start, identity=ident)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        provider = BrainviewCommands(app.screen)
        labels = [label for label, _, _ in provider._commands()]
        assert app.session.can("consolidate") is allows(role, "consolidate")  # type: ignore[arg-type]
    return [label for label in labels if not label.startswith("theme: ")]


@pytest.mark.parametrize("start", SCREENS)
async def test_a_reviewer_is_not_offered_consolidate(demo, start: str) -> None:  # type: ignore[no-untyped-def]
    labels = await _offered(demo[0], "reviewer", start)
    assert not [label for label in labels if "consolidate" in label], labels
    assert not [label for label in labels if "writing" in label or "invalidate" in label]


async def test_a_maintainer_is_offered_consolidate_on_communities(demo) -> None:  # type: ignore[no-untyped-def]
    labels = await _offered(demo[0], "maintainer", "communities")
    assert "communities: consolidate" in labels and "reflections: consolidate…" in labels


async def test_a_viewer_is_offered_no_writing_verb(demo) -> None:  # type: ignore[no-untyped-def]
    for start in ("triage", "communities"):
        labels = await _offered(demo[0], "viewer", start)
        verbs = [label.split(": ", 1)[1] for label in labels if ": " in label]
        assert not [v for v in verbs if any(v.startswith(w) for w in WRITES)], labels
