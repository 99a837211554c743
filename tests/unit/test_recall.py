"""Recall ranks the lessons a draft needs, says why, never returns a dead lesson, and
keeps its index right when other processes write the agent brain."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from brainview.core.refs import parse_refs
from brainview.errors import InvalidInputError, NotFoundError
from brainview.services import lifecycle
from brainview.services.project import Project
from brainview.services.recall import recall, retrieved_of
from brainview.services.recall.result import RecallQuery
from brainview.store.discovery import discover
from brainview.store.recall_handle import close_all


@pytest.fixture(autouse=True)
def _fresh_handles():
    yield
    close_all()


def _agent(root: Path) -> sqlite3.Connection:
    return sqlite3.connect(root / ".spikuit" / "agent" / "circuit.db", isolation_level=None)


def _content(root: Path, rid: str) -> str:
    with _agent(root) as c:
        return str(c.execute("SELECT content FROM neuron WHERE id = ?", (rid,)).fetchone()[0])


def _open(root: Path, write: bool = False) -> Project:
    return Project.open(discover(root), write_agent=write)


def _theme_draft(root: Path, theme_ids: list[str]) -> tuple[str, dict[str, object]]:
    """A merge draft about the neurons one 'keyword overlap' lesson names."""
    rid = theme_ids[0]
    a, b = parse_refs(_content(root, rid))[:2]
    return rid, {
        "kind": "merge_neurons",
        "params": {"keep": a, "merge": [b]},
        "rationale": "their keywords overlap, looks like a duplicate",
    }


def test_draft_about_a_lessons_neurons_ranks_it_first_and_opposes(demo, now) -> None:
    root, info = demo
    rid, draft = _theme_draft(root, info.themes["keyword overlap"])
    with _open(root) as p:
        res = recall(p, RecallQuery(proposal=draft, limit=10), now=now, log=False)
    top = res.hits[0]
    assert top.reflection == rid
    assert top.rank == 1 and top.stance == "oppose"
    assert set(top.refs_direct) == set(parse_refs(_content(root, rid))[:2])
    assert top.lexical > 0 and top.spread > 0 and top.retrievability is not None
    assert "keywords" in top.matched_words
    # the rest of the first page is about merging on the same theme or the same neurons
    family = set(info.themes["keyword overlap"])
    assert sum(h.reflection in family for h in res.hits) >= 5
    # scores are sorted, ranks dense
    assert [h.rank for h in res.hits] == list(range(1, len(res.hits) + 1))
    assert all(a.score >= b.score for a, b in zip(res.hits, res.hits[1:], strict=False))
    # the theme's policy comes with its members
    assert any(set(pol.members) & family for pol in res.policies)


def test_free_text_finds_the_family_by_words(demo, now) -> None:
    root, info = demo
    with _open(root) as p:
        res = recall(
            p, RecallQuery(text="the maintainer reversed: requires, builds on", limit=5),
            now=now, log=False,
        )  # fmt: skip
    assert len(res.hits) == 5
    assert all(h.reflection in info.themes["prerequisite direction"] for h in res.hits)
    assert all(h.stance == "annotate" for h in res.hits)  # no draft kind: no stance judged


def test_fading_lessons_rank_lower(demo, now) -> None:
    """Age one hit's card by a year (R falls): same text, same links, lower score."""
    root, _info = demo
    q = RecallQuery(text="keywords overlap purposes differ", limit=10)
    with _open(root) as p:
        before = recall(p, q, now=now, log=False).hits
    target = next(h for h in before if h.retrievability is not None and h.retrievability > 0.5)
    with _agent(root) as c:
        card = json.loads(
            c.execute(
                "SELECT card_json FROM fsrs_state WHERE neuron_id = ?", (target.reflection,)
            ).fetchone()[0]
        )
        card["last_review"] = "2025-06-01T00:00:00+00:00"
        c.execute(
            "UPDATE fsrs_state SET card_json = ? WHERE neuron_id = ?",
            (json.dumps(card), target.reflection),
        )
    with _open(root) as p:
        after = recall(p, RecallQuery(text=q.text, limit=100), now=now, log=False).hits
    aged = next(h for h in after if h.reflection == target.reflection)
    assert aged.retrievability < target.retrievability
    assert aged.lexical == target.lexical and aged.spread == pytest.approx(target.spread)
    assert aged.score < target.score
    assert aged.rank > target.rank


def test_invalidated_never_appear_challenged_marked(demo, now) -> None:
    root, info = demo
    rid, draft = _theme_draft(root, info.themes["keyword overlap"])
    other = info.themes["keyword overlap"][1]
    with _open(root, write=True) as p:
        lifecycle.invalidate(p, [rid], reason="poisoned", actor="eve", now=now)
        lifecycle.challenge(p, [other], reason="doubtful", actor="eve", now=now)
        res = recall(p, RecallQuery(proposal=draft, limit=50), now=now, log=False)
    ids = {h.reflection for h in res.hits}
    assert rid not in ids
    marked = [h for h in res.hits if h.reflection == other]
    assert marked and marked[0].state == "challenged"


def test_skill_filter_and_limits(demo, now) -> None:
    root, _info = demo
    with _open(root) as p:
        res = recall(p, RecallQuery(text="quiz recall tutor spacing", skill="tutor", limit=7),
                     now=now, log=False)  # fmt: skip
        assert res.hits and len(res.hits) <= 7
        assert {h.skill for h in res.hits} == {"tutor"}
        for bad in (
            RecallQuery(text="x", limit=0),
            RecallQuery(),
            RecallQuery(text="x", skill="a b"),
        ):
            with pytest.raises(InvalidInputError):
                recall(p, bad, now=now, log=False)


def test_index_follows_other_writers(demo, now) -> None:
    """Plain sqlite3 adds, edits (no stamp), retires and deletes lessons between recalls."""
    root, _info = demo
    words = "zanzibar quokka marmalade"
    with _open(root) as p:
        assert recall(p, RecallQuery(text=words), now=now, log=False).hits == []
        with _agent(root) as c:
            c.execute(
                "INSERT INTO neuron (id, content, type, domain, created_at, updated_at) "
                "VALUES ('r-new1', 'A zanzibar lesson', 'reflection', 'curator', ?, ?)",
                (now.isoformat(), now.isoformat()),
            )
        added = recall(p, RecallQuery(text=words), now=now, log=False)
        assert [h.reflection for h in added.hits] == ["r-new1"]
        assert added.index["sync"] == "incremental"  # one new row: no full comparison
        with _agent(root) as c:  # an edit that moves no stamp, only the text
            victim = c.execute(
                "SELECT id FROM neuron WHERE type = 'reflection' AND retired_at IS NULL "
                "ORDER BY id LIMIT 1"
            ).fetchone()[0]
            c.execute(
                "UPDATE neuron SET content = 'quokka marmalade notes' WHERE id = ?", (victim,)
            )
        hits = recall(p, RecallQuery(text=words), now=now, log=False).hits
        assert {h.reflection for h in hits if h.lexical > 0} == {"r-new1", victim}
        assert {h.reflection for h in hits[:2]} == {"r-new1", victim}  # the rest only spread
        with _agent(root) as c:
            c.execute("UPDATE neuron SET retired_at = ? WHERE id = 'r-new1'", (now.isoformat(),))
            c.execute("DELETE FROM neuron WHERE id = ?", (victim,))
        assert recall(p, RecallQuery(text=words), now=now, log=False).hits == []


def test_log_and_propose_recall(demo, now) -> None:
    root, info = demo
    _rid, draft = _theme_draft(root, info.themes["keyword overlap"])
    with _open(root, write=True) as p:
        res = recall(p, RecallQuery(proposal=draft, limit=5), now=now, runtime="claude")
        assert res.recall_id and res.recall_id.startswith("rc-")
        assert retrieved_of(p, res.recall_id) == [h.reflection for h in res.hits]
        with pytest.raises(NotFoundError):
            retrieved_of(p, "rc-unknown")
    with _agent(root) as c:
        row = c.execute(
            "SELECT query, neuron_ids, runtime FROM brainview_recall WHERE id = ?", (res.recall_id,)
        ).fetchone()
        grades = c.execute("SELECT count(*) FROM spike").fetchone()[0]
    assert json.loads(row[1]) == [h.reflection for h in res.hits] and row[2] == "claude"
    assert json.loads(row[0])["kind"] == "merge_neurons"
    # recall grades nothing: a second recall leaves the spike log as it was
    with _open(root, write=True) as p:
        recall(p, RecallQuery(proposal=draft, limit=5), now=now)
    with _agent(root) as c:
        assert c.execute("SELECT count(*) FROM spike").fetchone()[0] == grades


WRITER = """
import sqlite3, sys
db, n = sys.argv[1], int(sys.argv[2])
for k in range(n):
    c = sqlite3.connect(db, timeout=30, isolation_level=None)
    c.execute("BEGIN IMMEDIATE")
    c.execute(
        "INSERT INTO neuron (id, content, type, domain, created_at, updated_at) "
        "VALUES (?, ?, 'reflection', 'curator', '2026-11-30T09:00:00+00:00', "
        "'2026-11-30T09:00:00+00:00')",
        (f"r-w{k}", f"wombat lesson number {k}"),
    )
    if k % 3 == 2:
        c.execute("UPDATE neuron SET retired_at = '2026-11-30T09:00:00+00:00' WHERE id = ?",
                  (f"r-w{k - 1}",))
    c.execute("COMMIT")
    c.close()
"""


def test_recall_while_another_process_writes(demo, now) -> None:
    """Every recall sees a consistent index: never a retired lesson; all the live ones at
    the end; the logging connection and the writer never lose a row."""
    import subprocess
    import sys

    root, _info = demo
    db = root / ".spikuit" / "agent" / "circuit.db"
    n = 30
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(db), str(n)])
    seen = 0
    with _open(root, write=True) as p:
        while writer.poll() is None or seen < 1:
            with _agent(root) as c:  # retired before the recall starts: must not appear
                retired = {
                    r for (r,) in c.execute("SELECT id FROM neuron WHERE retired_at IS NOT NULL")
                }
            res = recall(p, RecallQuery(text="wombat lesson", limit=100), now=now)
            assert not {h.reflection for h in res.hits} & retired
            seen += 1
        assert writer.wait() == 0
        final = recall(p, RecallQuery(text="wombat lesson", limit=100), now=now)
    live = {f"r-w{k}" for k in range(n)} - {f"r-w{k - 1}" for k in range(n) if k % 3 == 2}
    assert {h.reflection for h in final.hits if h.reflection.startswith("r-w")} == live
    with _agent(root) as c:
        assert c.execute("SELECT count(*) FROM brainview_recall").fetchone()[0] == seen + 1
        assert c.execute("SELECT count(*) FROM neuron WHERE id LIKE 'r-w%'").fetchone()[0] == n


def test_recall_log_refused_on_a_brain_with_a_trigger(demo, now) -> None:
    """The recall log is a write like any other: a planted trigger refuses it (exit 13),
    nothing is written, and an unlogged recall still reads."""
    from brainview.errors import UnsafeSchemaError

    root, _info = demo
    with _agent(root) as c:
        c.execute(
            "CREATE TABLE IF NOT EXISTS brainview_recall (id TEXT PRIMARY KEY, query TEXT "
            "NOT NULL, neuron_ids TEXT NOT NULL, retrieved_at TEXT NOT NULL, skill TEXT, "
            "runtime TEXT)"
        )
        c.execute(
            "CREATE TRIGGER t AFTER INSERT ON brainview_recall BEGIN "
            "UPDATE neuron SET content = 'pwned'; END"
        )
    with _open(root) as p:
        with pytest.raises(UnsafeSchemaError):
            recall(p, RecallQuery(text="merging keywords"), now=now)
        assert recall(p, RecallQuery(text="merging keywords"), now=now, log=False).hits
    with _agent(root) as c:
        assert c.execute("SELECT count(*) FROM brainview_recall").fetchone()[0] == 0
        assert c.execute("SELECT count(*) FROM neuron WHERE content = 'pwned'").fetchone()[0] == 0


def test_a_rejection_made_after_open_is_known_to_the_same_process(make_demo, now) -> None:
    """A long-running process (console, MCP server) opened the agent brain before
    brainview's tables existed; the rejection lesson it then writes still carries its
    decision: a same-kind draft on its neurons opposes *because of that rejection*,
    and one on other neurons that shares none of its words only annotates."""
    from datetime import timedelta

    from brainview.demo.generator import DemoSpec
    from brainview.services import intake, review

    root, _info = make_demo(DemoSpec(reflections=0, proposals=0), "fresh")
    with _agent(root) as c:
        assert not c.execute(
            "SELECT 1 FROM sqlite_master WHERE name = 'brainview_decision'"
        ).fetchone()
        users = sqlite3.connect(root / ".spikuit" / "circuit.db")
    ids = [r[0] for r in users.execute("SELECT id FROM neuron ORDER BY id LIMIT 4")]
    users.close()

    def merge(pid: str, keep: str, other: str, why: str) -> dict[str, object]:
        return {"id": pid, "skill": "curator", "kind": "merge_neurons",
                "params": {"keep": keep, "merge": [other]}, "rationale": why}  # fmt: skip

    with _open(root, write=True) as p:
        intake.submit(p, [merge("p-bad", ids[0], ids[1], "quokka wombat")], source="t", now=now)
        review.decide(p, "p-bad", "reject", reason="platypus", decider="me",
                      now=now + timedelta(minutes=1))  # fmt: skip
        later = now + timedelta(minutes=2)
        same = recall(p, RecallQuery(proposal=merge("d", ids[0], ids[1], "x"), limit=5),
                      now=later, log=False).hits  # fmt: skip
        unrelated = merge("d", ids[2], ids[3], "platypus echidna numbat bilby dingo")
        other = recall(p, RecallQuery(proposal=unrelated, limit=5), now=later, log=False).hits
    assert same and same[0].stance == "oppose"
    assert "merge_neurons proposal on the same neurons was rejected" in same[0].stance_reason
    lesson = next(h for h in other if h.reflection == same[0].reflection)
    assert lesson.stance == "annotate" and "on other neurons" in lesson.stance_reason
