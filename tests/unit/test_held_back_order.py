"""The held-back lane's order (issue 29): drafts a suspect lesson held back first — one
since quarantined, one that stands on its own word — then the closest calls (the
curator's ``confidence``), and a report's ``confidence`` is checked and stored, on an
agent brain whose table predates the column too."""

from __future__ import annotations

import pytest
from test_cli import agent_db, sql
from test_held_back import live, report, session

from brainview.errors import InvalidInputError


def test_suspect_lessons_first_then_the_closest_call(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    users, refl = live(root)
    sure, close, planted, other = refl[0], refl[1], refl[2], refl[3]
    with session(root) as s:
        s.report_held_back(report("hb-sure", users[0], [sure], confidence=0.95))
        s.report_held_back(report("hb-close", users[1], [close], confidence=0.5))
        s.report_held_back(report("hb-none", users[2], [other]))
        s.report_held_back(report("hb-planted", users[3], [planted], confidence=0.99))
        before = [i.id for i in s.held_back_lane()]
        s.lifecycle("quarantine", [planted], "planted?")
        lane = s.held_back_lane()
    # newest first while nothing tells them apart but the curator's confidence
    assert before == ["hb-close", "hb-sure", "hb-planted", "hb-none"]
    assert [i.id for i in lane] == ["hb-planted", "hb-close", "hb-sure", "hb-none"]
    assert lane[0].why is not None and "suspect lesson" in lane[0].why
    assert "since quarantined" in lane[0].why
    assert lane[1].confidence == 0.5 and lane[1].to_json()["confidence"] == 0.5


def test_a_lesson_holding_drafts_back_on_its_word_alone_comes_first(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    users, refl = live(root)
    with session(root) as s:
        s.report_held_back(report("hb-1", users[0], [refl[0]], confidence=0.9))
        s.report_held_back(report("hb-2", users[1], [refl[1]], confidence=0.2))
        assert [i.id for i in s.held_back_lane()] == ["hb-2", "hb-1"]
        s.report_held_back(report("hb-3", users[2], [refl[0]], confidence=0.9))
        lane = s.held_back_lane()
    assert {lane[0].id, lane[1].id} == {"hb-1", "hb-3"} and lane[2].id == "hb-2"
    assert "held back 2 draft(s) on its word alone" in str(lane[0].why)


@pytest.mark.parametrize("bad", [1.5, -0.1, True, "high"])
def test_confidence_must_be_a_number_from_0_to_1(demo, bad: object) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    users, refl = live(root)
    with session(root) as s, pytest.raises(InvalidInputError, match="confidence"):
        s.report_held_back(report("hb-x", users[0], [refl[0]], confidence=bad))
    assert sql(
        agent_db(root), "SELECT name FROM sqlite_master WHERE name = 'brainview_held_back'"
    ) in (
        [],
        [("brainview_held_back",)],
    )


def test_a_table_from_before_the_column_gains_it(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    users, refl = live(root)
    import sqlite3

    with sqlite3.connect(agent_db(root)) as conn:  # what the previous release created
        conn.execute(
            "CREATE TABLE brainview_held_back (id TEXT PRIMARY KEY, kind TEXT NOT NULL, "
            "draft_json TEXT NOT NULL, action TEXT NOT NULL, rewritten_as TEXT, recall_id TEXT, "
            "runtime TEXT NOT NULL, skill TEXT, reason TEXT, reported_at TEXT NOT NULL, "
            "source TEXT)"
        )
    conn.close()
    with session(root) as s:
        s.report_held_back(report("hb-old", users[0], [refl[0]], confidence=0.7))
        (item,) = s.held_back_lane()
    assert item.confidence == 0.7
    cols = [
        c
        for (c,) in sql(agent_db(root), "SELECT name FROM pragma_table_info('brainview_held_back')")
    ]
    assert cols[-1] == "confidence"


def test_should_have_proposed_writes_a_lesson_on_the_drafts_side(demo) -> None:  # type: ignore[no-untyped-def]
    """The verdict writes a lesson as a rejection does (the draft, the maintainer's reason,
    the lessons that were wrong), attested by the verdict, read by recall as an accept of
    the draft's kind; ``write_reflections = false`` writes none."""
    from brainview.config import Config, ReviewConfig
    from brainview.services.influence import influence_many
    from brainview.services.project import Project
    from brainview.store.discovery import discover
    from brainview.store.recall_graph import provenance
    from brainview.store.rows import driver

    root, _ = demo
    users, refl = live(root)
    with session(root) as s:
        s.report_held_back(report("hb-l", users[0], [refl[0]], confidence=0.5))
        got = s.decide_held_back("hb-l", "should_have_proposed", "a quiz is worth it")
    rid = got["new_reflection_id"]
    ((content, kind),) = sql(agent_db(root), "SELECT content, type FROM neuron WHERE id = ?", rid)
    assert kind == "reflection" and content.startswith("Accepted on review")
    assert "a quiz is worth it" in content and refl[0] in content
    links = sql(agent_db(root), "SELECT post FROM synapse WHERE pre = ?", rid)
    assert links == [(refl[0],)]
    with Project.open(discover(root)) as project, project.require_agent().read() as conn:
        raw = driver(conn)
        assert influence_many(raw, [rid])[rid].attested == 1
        prov = provenance(raw, frozenset(), [rid])[rid]
    assert (prov.verdict, prov.kind) == ("accept", "note")
    cfg = Config(review=ReviewConfig(write_reflections=False))
    with session(root, cfg=cfg) as s:
        s.report_held_back(report("hb-m", users[1], [refl[1]]))
        assert s.decide_held_back("hb-m", "should_have_proposed")["new_reflection_id"] is None
