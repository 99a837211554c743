"""The simulation's curator reports every draft it drops or rewrites after recall as
held back, through the same services as a real curator (issue 29, item 1)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from brainview.sim.arms import ARMS, SimConfig
from brainview.sim.run import run_arm

SMOKE = SimConfig(weeks=2, drafts_per_day=4, user_neurons=200)


def test_every_withdrawal_and_rewrite_is_reported_held_back(tmp_path: Path) -> None:
    run = run_arm(ARMS["on"], 1, SMOKE, tmp_path)
    dropped = sum(w.dropped for w in run.weeks)
    rewritten = sum(w.rewritten for w in run.weeks)
    assert dropped + rewritten > 0
    conn = sqlite3.connect(tmp_path / "project" / ".spikuit" / "agent" / "circuit.db")
    try:
        actions = dict(
            conn.execute("SELECT action, count(*) FROM brainview_held_back GROUP BY action")
        )
        orphans = conn.execute(
            "SELECT count(*) FROM brainview_held_back h WHERE NOT EXISTS (SELECT 1 FROM "
            "brainview_held_back_lesson l WHERE l.held_back_id = h.id AND l.stance = 'oppose')"
        ).fetchone()[0]
        unlogged = conn.execute(
            "SELECT count(*) FROM brainview_held_back h WHERE h.recall_id IS NULL OR NOT EXISTS "
            "(SELECT 1 FROM brainview_recall r WHERE r.id = h.recall_id)"
        ).fetchone()[0]
        queued = conn.execute(
            "SELECT count(*) FROM brainview_held_back h JOIN brainview_proposal p "
            "ON p.id = h.rewritten_as WHERE h.action = 'rewritten'"
        ).fetchone()[0]
    finally:
        conn.close()
    assert actions.get("withdrawn", 0) == dropped and actions.get("rewritten", 0) == rewritten
    assert orphans == 0 and unlogged == 0 and queued == rewritten
