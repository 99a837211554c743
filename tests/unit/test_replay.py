"""Replay: the logged recalls a lesson was in, re-ranked without it; the decisions that
consulted it and the held-back drafts it opposed, with whether they would change; and
nothing written by any of it (no recall logged, no row, no file)."""

from __future__ import annotations

import json
import sqlite3
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from fsrs import Scheduler
from test_cli import agent_db, cli
from test_quarantine import theme_draft

from brainview.core import fsrs_math
from brainview.demo.generator import DEMO_NOW
from brainview.errors import NotFoundError
from brainview.services import intake, lifecycle, review
from brainview.services.project import Project
from brainview.services.recall import recall
from brainview.services.recall.result import RecallQuery
from brainview.services.replay import replay
from brainview.store.discovery import discover
from brainview.store.recall_handle import close_all
from tests.read_only_helpers import assert_read_only

T1 = DEMO_NOW + timedelta(hours=1)
T2 = DEMO_NOW + timedelta(hours=2)
T3 = DEMO_NOW + timedelta(hours=3)
HELD_BACK_DDL = [
    """CREATE TABLE IF NOT EXISTS brainview_held_back (
        id TEXT PRIMARY KEY, kind TEXT NOT NULL, draft_json TEXT NOT NULL,
        action TEXT NOT NULL, rewritten_as TEXT, recall_id TEXT, runtime TEXT NOT NULL,
        skill TEXT, reason TEXT, reported_at TEXT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS brainview_held_back_lesson (
        held_back_id TEXT NOT NULL, reflection_id TEXT NOT NULL, stance TEXT NOT NULL,
        PRIMARY KEY (held_back_id, reflection_id))""",
]


@pytest.fixture(autouse=True)
def _fresh_handles():  # type: ignore[no-untyped-def]
    yield
    close_all()


def held_back(root: Path, hid: str, recall_id: str | None, lessons: list[tuple[str, str]]) -> None:
    """A held-back draft as the curator reports one (tables made here if missing)."""
    conn = sqlite3.connect(agent_db(root))
    with conn:
        for ddl in HELD_BACK_DDL:
            conn.execute(ddl)
        conn.execute(
            "INSERT INTO brainview_held_back (id, kind, draft_json, action, recall_id, runtime, "
            "skill, reason, reported_at) VALUES (?, 'merge_neurons', '{}', 'withdrawn', ?, "
            "'claude', 'curator', 'a lesson opposed it', ?)",
            (hid, recall_id, fsrs_math.format_ts(T2)),
        )
        conn.executemany(
            "INSERT INTO brainview_held_back_lesson VALUES (?, ?, ?)",
            [(hid, r, s) for r, s in lessons],
        )
    conn.close()


def scene(root: Path, info: Any) -> tuple[str, str, list[str]]:
    """A logged recall topped by the lesson, a rejected proposal that leaned on it alone
    (linked to that recall), one that only annotated it, and two held-back drafts."""
    rid = info.themes["keyword overlap"][0]
    draft = theme_draft(root, rid)
    with Project.locate(root, write_agent=True) as p:
        seen = recall(p, RecallQuery(proposal=draft, limit=10), now=T1)
        hits = [h.reflection for h in seen.hits]
        assert hits[0] == rid and seen.hits[0].stance == "oppose"
        made = fsrs_math.format_ts(T1)
        intake.submit(
            p,
            [
                {"id": "p-lean", "created_at": made, **draft,
                 "consulted": [{"reflection": rid, "stance": "oppose"}], "retrieved": hits[1:]},
                {"id": "p-note", "kind": "note", "params": {}, "created_at": made,
                 "consulted": [{"reflection": rid, "stance": "annotate"}]},
            ],
            now=T2,
        )  # fmt: skip
        review.decide(
            p, "p-lean", "reject", decider="bob", now=T2, scheduler=Scheduler(enable_fuzzing=False)
        )
    held_back(root, "hb-alone", seen.recall_id, [(rid, "oppose")])
    held_back(root, "hb-crowd", None, [(rid, "oppose"), (hits[1], "oppose")])
    assert seen.recall_id is not None
    return rid, seen.recall_id, hits


def test_replay_lists_the_recalls_decisions_and_held_back_drafts_it_changed(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    rid, rc, hits = scene(root, info)
    with Project.locate(root, write_agent=True) as p:
        lifecycle.quarantine(p, [rid], reason="opposes good merges", actor="alice", now=T3)
    with Project.open(discover(root)) as p:
        got = replay(p, rid, now=T3)
    assert got.state == "quarantined" and got.recalls_total == 1
    (r,) = got.recalls
    assert (r.recall_id, r.baseline, r.logged, r.rank, r.stance) == (rc, "rerun", hits, 1, "oppose")
    assert rid in r.before and rid not in r.after and r.after[0] != rid
    assert "top" in r.changes and r.matters
    decisions = {d.proposal_id: d for d in got.decisions}
    lean = decisions["p-lean"]
    assert (lean.verdict, lean.stance, lean.recall_id) == ("reject", "oppose", rc)
    assert lean.would_change and "sole_oppose" in lean.changes and "recall_top" in lean.changes
    assert not decisions["p-note"].would_change  # annotate sways nothing
    held = {h.held_back_id: h for h in got.held_back}
    assert held["hb-alone"].would_change and "sole_oppose" in held["hb-alone"].changes
    assert not held["hb-crowd"].would_change  # another lesson opposed it too
    assert got.affected == (1, 1, 1)
    data = got.to_json()
    assert data["affected"] == {"recalls": 1, "decisions": 1, "held_back": 1}
    json.dumps(data)


def test_replay_writes_nothing_and_the_cli_agrees(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    rid, rc, _hits = scene(root, info)
    seen: dict[str, Any] = {}

    def run() -> None:
        with Project.open(discover(root)) as p:
            seen["api"] = replay(p, rid, now=T3).to_json()
        out = cli("reflect", "replay", rid, "-C", str(root), "--json")
        assert out.returncode == 0, out.stderr
        seen["cli"] = json.loads(out.stdout)
        text = cli("reflect", "replay", rid, "-C", str(root))
        assert text.returncode == 0 and f"≠ {rc}" in text.stdout

    assert_read_only(root, run)
    assert seen["cli"]["affected"] == seen["api"]["affected"]
    assert seen["cli"]["recalls"][0]["recall_id"] == rc
    conn = sqlite3.connect(agent_db(root))
    assert conn.execute("SELECT COUNT(*) FROM brainview_recall").fetchone() == (1,)
    conn.close()


def test_an_invalidated_lesson_replays_from_the_logged_hits(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    rid, rc, hits = scene(root, info)
    with Project.locate(root, write_agent=True) as p:
        lifecycle.invalidate(p, [rid], reason="planted", actor="alice", now=T3)
    with Project.open(discover(root)) as p:
        got = replay(p, rid, now=T3)
        with pytest.raises(NotFoundError):
            replay(p, "r-nope", now=T3)
    (r,) = got.recalls
    assert (r.baseline, r.before, r.rank, r.stance) == ("logged", hits, 1, "oppose")
    assert r.matters and rid not in r.after


def test_a_lesson_never_recalled_replays_empty(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    rid = info.reflection_ids[7]
    with Project.open(discover(root)) as p:
        got = replay(p, rid, now=T3)
    assert got.recalls == [] and got.recalls_total == 0 and got.held_back == []
    assert got.affected[0] == 0 and got.affected[2] == 0
