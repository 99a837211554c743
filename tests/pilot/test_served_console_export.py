"""In a console ``brainview serve`` runs for a signed-in reviewer, the export verb
writes only under the project's ``exports/``: a typed absolute path is refused with a
line that does not say whether it exists, and nothing is written there."""

from __future__ import annotations

import csv
import re

from brainview.core.identity import Identity
from brainview.demo.generator import DEMO_NOW
from brainview.store.discovery import discover
from brainview.tui.app import make_app
from brainview.tui.clock import frozen
from tests.tui_helpers import settle


async def _export(app, pilot, typed: str) -> list[str]:  # type: ignore[no-untyped-def]
    await pilot.press("e")
    await pilot.pause()
    await pilot.press(*typed, "enter")
    await settle(pilot)
    return [str(n.message) for n in app._notifications]


async def test_a_served_reviewer_exports_only_under_the_project(demo, tmp_path) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    outside = tmp_path / "outside"
    outside.mkdir()
    ident = Identity("ada", "reviewer", None)
    app = make_app(discover(root), clock=frozen(DEMO_NOW), start="triage", identity=ident)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        said = await _export(app, pilot, str(outside / "queue.csv"))
        refused = [m for m in said if m.startswith("export: give a file name")]
        assert refused and str(outside) not in " ".join(said)
        said = await _export(app, pilot, str(tmp_path / "no-such-dir" / "q.csv"))
        assert not [m for m in said if "no such directory" in m or "no-such-dir" in m]
        said = await _export(app, pilot, "queue.csv")
        assert any(m.endswith("to exports/queue.csv") for m in said), said
    assert list(outside.iterdir()) == []
    with (root / "exports" / "queue.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 36
    # The summary reads as on screen: user neurons by title, never a bare id.
    assert not [r["summary"] for r in rows if re.search(r"\bn-[0-9a-f]{6,}", r["summary"])]
    assert all(r["id"].startswith("prop-") for r in rows)
