"""Quarantine: recall never returns a quarantined lesson (services, CLI, MCP through the
official SDK client), every row and its history stay, release and undo are exact, and
only a maintainer may do it."""

from __future__ import annotations

import json
import sqlite3
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession
from test_cli import agent_db, cli
from test_mcp import data, session_run

from brainview.config import Config
from brainview.core.refs import parse_refs
from brainview.demo.generator import DEMO_NOW
from brainview.errors import ConflictError, InvalidInputError, RoleRefusedError
from brainview.services import lifecycle
from brainview.services.project import Project
from brainview.services.recall import recall
from brainview.services.recall.result import RecallQuery
from brainview.services.session import Session
from brainview.store.discovery import discover
from brainview.store.recall_handle import close_all

T1 = DEMO_NOW + timedelta(hours=1)
T2 = DEMO_NOW + timedelta(hours=2)
KEPT = ("neuron", "synapse", "spike", "fsrs_state", "changeset", "event", "brainview_proposal")
"""Rows a quarantine must leave exactly as they were."""
EVERY = (*KEPT, "brainview_consult", "brainview_decision", "brainview_grade", "brainview_tombstone")


@pytest.fixture(autouse=True)
def _fresh_handles():  # type: ignore[no-untyped-def]
    yield
    close_all()


def dump(root: Path, tables: tuple[str, ...] = EVERY) -> dict[str, list[Any]]:
    conn = sqlite3.connect(agent_db(root))
    try:
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        return {
            t: sorted(conn.execute(f"SELECT * FROM {t}").fetchall(), key=repr) if t in names else []
            for t in tables
        }
    finally:
        conn.close()


def theme_draft(root: Path, rid: str) -> dict[str, Any]:
    """A merge draft about the neurons lesson ``rid`` names (it ranks first for it)."""
    conn = sqlite3.connect(agent_db(root))
    (content,) = conn.execute("SELECT content FROM neuron WHERE id = ?", (rid,)).fetchone()
    conn.close()
    a, b = parse_refs(content)[:2]
    return {
        "kind": "merge_neurons",
        "params": {"keep": a, "merge": [b]},
        "rationale": "their keywords overlap, looks like a duplicate",
    }


def ranked_ids(
    root: Path, draft: dict[str, Any], now: Any = T2
) -> tuple[list[str], dict[str, int]]:
    with Project.open(discover(root)) as p:
        res = recall(p, RecallQuery(proposal=draft, limit=10), now=now, log=False)
    return [h.reflection for h in res.hits], res.excluded


def state(root: Path, rid: str) -> str:
    with Project.locate(root) as p, p.agent.read() as conn:  # type: ignore[union-attr]
        return lifecycle.statuses(conn, p.agent.era, [rid])[rid].state  # type: ignore[union-attr]


def test_quarantine_hides_from_recall_keeps_every_row_and_undoes_exactly(demo, now) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    rid = info.themes["keyword overlap"][0]
    draft = theme_draft(root, rid)
    first, excluded = ranked_ids(root, draft)
    assert first[0] == rid and excluded == {"quarantined": 0}
    before = dump(root)
    with Project.locate(root, write_agent=True) as p:
        with pytest.raises(InvalidInputError, match="reason is required"):
            lifecycle.quarantine(p, [rid], reason=" ", actor="alice", now=T1)
        res = lifecycle.quarantine(p, [rid], reason="opposes good drafts", actor="alice", now=T1)
    assert res.changed == [(rid, "live", "quarantined")] and res.synapses == 0
    assert state(root, rid) == "quarantined"
    # nothing but the lifecycle log moved: card, spikes, synapses, text, no tombstone
    assert dump(root, KEPT) == {t: before[t] for t in KEPT}
    assert dump(root, ("brainview_tombstone",)) == {"brainview_tombstone": []}
    hits, excluded = ranked_ids(root, draft)
    assert rid not in hits and excluded == {"quarantined": 1}
    # undo: every row as before, recalled again
    with Project.locate(root, write_agent=True) as p:
        undone = lifecycle.undo_batch(p, res.batch_id, actor="alice", now=T2)
    assert undone.reflections == [rid] and state(root, rid) == "live"
    assert dump(root) == before
    assert ranked_ids(root, draft)[0] == first
    conn = sqlite3.connect(agent_db(root))
    trail = conn.execute("SELECT state, actor FROM brainview_lifecycle ORDER BY id").fetchall()
    conn.close()
    assert trail == [("quarantined", "alice"), ("live", "alice")]  # the history stays


def test_release_and_reinstate_bring_it_back_and_challenged_undoes_to_challenged(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    a, b = info.themes["keyword overlap"][:2]
    with Project.locate(root, write_agent=True) as p:
        lifecycle.challenge(p, [b], reason="doubtful", actor="alice", now=T1)
        q = lifecycle.quarantine(p, [a, b], reason="poison?", actor="alice", now=T1)
        assert sorted(q.changed) == sorted(
            [(a, "live", "quarantined"), (b, "challenged", "quarantined")]
        )
        with pytest.raises(ConflictError, match="nothing to change"):
            lifecycle.quarantine(p, [a], reason="again", actor="alice", now=T1)
        lifecycle.undo_batch(p, q.batch_id, actor="alice", now=T2)
        assert (state(root, a), state(root, b)) == ("live", "challenged")
        lifecycle.quarantine(p, [a, b], reason="poison?", actor="alice", now=T2)
        rel = lifecycle.release(p, [a], actor="alice", now=T2)
        assert rel.changed == [(a, "quarantined", "live")]
        back = lifecycle.reinstate(p, [b], actor="alice", now=T2)
        assert back.changed == [(b, "quarantined", "live")]
        inv = lifecycle.quarantine(p, [a], reason="again", actor="alice", now=T2)
        lifecycle.invalidate(p, [a], reason="it was planted", actor="alice", now=T2)
    assert inv.changed and state(root, a) == "invalidated"


def test_only_a_maintainer_quarantines_and_a_refusal_writes_nothing(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    rid = info.reflection_ids[5]
    before = dump(root)
    for role in ("viewer", "reviewer"):
        session = Session(
            paths=discover(root), config=Config(), clock=lambda: DEMO_NOW, decider="rev", role=role
        )
        with session, pytest.raises(RoleRefusedError, match="quarantining reflections needs"):
            session.lifecycle("quarantine", [rid], "x")
    assert dump(root) == before


def test_cli_quarantine_shows_the_blast_radius_and_recall_says_so(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    rid = info.themes["keyword overlap"][0]
    draft = json.dumps(theme_draft(root, rid))
    path = root.parent / "draft.json"
    path.write_text(draft, encoding="utf-8")
    out = cli("reflect", "quarantine", rid, "--reason", "steers merges", "-C", str(root), "--json")
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert got["changed"] == [{"reflection": rid, "from": "live", "to": "quarantined"}]
    radius = got["blast_radius"]
    assert set(radius) >= {"pending", "decided", "neighbours", "proposals"}
    assert all(p["reflection"] == rid for p in radius["proposals"])
    out = cli("recall", "--draft", str(path), "--no-log", "-C", str(root), "--json")
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    assert rid not in [h["reflection"] for h in res["hits"]]
    assert res["excluded"] == {"quarantined": 1}
    out = cli("reflect", "release", rid, "-C", str(root))
    assert out.returncode == 0 and "quarantined → live" in out.stdout
    again = json.loads(
        cli("recall", "--draft", str(path), "--no-log", "-C", str(root), "--json").stdout
    )
    assert again["hits"][0]["reflection"] == rid and again["excluded"] == {"quarantined": 0}


def test_mcp_recall_never_returns_a_quarantined_lesson_and_says_so(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    rid = info.themes["keyword overlap"][0]
    draft = theme_draft(root, rid)
    with Project.locate(root, write_agent=True) as p:
        lifecycle.quarantine(p, [rid], reason="planted", actor="alice", now=T1)

    async def body(s: ClientSession) -> dict[str, Any]:
        return data(await s.call_tool("recall", {"draft": draft, "limit": 10}))

    got = session_run(root, body)
    assert rid not in [h["reflection"] for h in got["hits"]]
    assert got["excluded"] == {"quarantined": 1}
    assert all(h["state"] in ("live", "challenged") for h in got["hits"])
    # the logged recall (MCP logs) does not name it either
    conn = sqlite3.connect(agent_db(root))
    (ids,) = conn.execute("SELECT neuron_ids FROM brainview_recall").fetchone()
    conn.close()
    assert rid not in json.loads(ids)
