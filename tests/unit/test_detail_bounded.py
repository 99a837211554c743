"""A domain-wide proposal on a big domain gets a summarised preview, not every row."""

from __future__ import annotations

import json
import sqlite3

from brainview.services.project import Project
from brainview.services.review import detail
from brainview.store.discovery import discover


def test_large_domain_rename_preview_is_summarised(demo, now, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    conn = sqlite3.connect(root / ".spikuit" / "agent" / "circuit.db")
    pid, params = conn.execute(
        "SELECT id, params_json FROM brainview_proposal WHERE kind = 'rename_domain' LIMIT 1"
    ).fetchone()
    conn.close()
    with Project.open(discover(root)) as project:
        full = detail.load(project, pid, now)
        monkeypatch.setattr(detail, "PREVIEW_NEURON_LIMIT", 5)
        short = detail.load(project, pid, now)
    old = json.loads(params)["old"]
    assert full.plan is not None and len(full.preview) > 5
    assert short.plan is None and len(short.preview) == 1
    what, before, after = short.preview[0]
    assert (
        what == f"domain {old}" and before.endswith("neurons") and "summarised" in short.change_log
    )
