"""A domain-wide proposal on a big domain gets a summarised preview, not every row:
the counted plan the streamed apply carries out (:mod:`brainview.services.apply.stream_plan`)."""

from __future__ import annotations

import json
import sqlite3

from brainview.services.apply import stream_plan
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
        monkeypatch.setattr(stream_plan, "STREAM_MIN_LIVE", 5)
        short = detail.load(project, pid, now)
    old = json.loads(params)["old"]
    assert full.plan is not None and full.plan.stream is None and len(full.preview) > 5
    assert short.plan is not None and short.plan.stream is not None and len(short.preview) == 1
    what, before, after = short.preview[0]
    assert what == f"domain {old}" and before.endswith("live)") and after.startswith("→ ")
    assert "summarised" in short.change_log
    assert short.plan.stream.rows == len(full.plan.changes)  # every row, retired ones too
