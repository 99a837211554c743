"""Influence per lesson (issue 29, part 2): counted from the consulted lists, the
decisions, the grades, the recall log and held-back drafts (read tolerantly: the
tables may be missing), shown by ``reflect inspect --json`` and sortable in
``reflect list --sort influence``."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from test_cli import agent_db, ok_json, sql

from brainview.services.influence import influence_many
from brainview.services.project import Project
from brainview.store.discovery import discover
from brainview.store.rows import driver

AT = "2026-11-20T09:00:00+00:00"
HELD_BACK_DDL = (
    "CREATE TABLE brainview_held_back (id TEXT PRIMARY KEY, kind TEXT, draft_json TEXT, "
    "action TEXT, rewritten_as TEXT, recall_id TEXT, runtime TEXT, skill TEXT, reason TEXT, "
    "reported_at TEXT)",
    "CREATE TABLE brainview_held_back_lesson (held_back_id TEXT, reflection_id TEXT, stance TEXT)",
)


def _plant(db: Path, rid: str, *, held_back: bool) -> None:
    """``rid`` supported p1 (accepted by ann), p2 and p3 (rejected by bob), opposed p4
    (rejected by ann; that decision undone); returned by two recalls; opposed 6
    held-back drafts."""
    conn = sqlite3.connect(db)
    with conn:
        for n, (pid, stance, verdict, who, undone) in enumerate(
            (
                ("p-i1", "support", "accept", "ann", None),
                ("p-i2", "support", "reject", "bob", None),
                ("p-i3", "support", "reject", "bob", None),
                ("p-i4", "oppose", "reject", "ann", AT),
            )
        ):
            conn.execute(
                "INSERT INTO brainview_proposal (id, skill, kind, params_json, created_at, "
                "received_at, status, runtime) VALUES (?, 'curator', 'note', '{}', ?, ?, ?, 'rt')",
                (pid, AT, AT, verdict + "ed"),
            )
            conn.execute(
                "INSERT INTO brainview_consult VALUES (?, ?, 'consulted', ?, NULL, 0)",
                (pid, rid, stance),
            )
            conn.execute(
                "INSERT INTO brainview_decision (id, proposal_id, verdict, decider, decided_at, "
                "apply_state, undone_at) VALUES (?, ?, ?, ?, ?, 'recorded', ?)",
                (f"d-{pid}", pid, verdict, who, AT, undone),
            )
            grade = 4 if (stance == "support") == (verdict == "accept") else 1
            conn.execute(
                "INSERT INTO brainview_grade VALUES (?, ?, ?, ?, ?, ?)",
                (f"d-{pid}", rid, stance, grade, 990_000 + n, AT),
            )
        conn.execute(
            "CREATE TABLE IF NOT EXISTS brainview_recall (id TEXT PRIMARY KEY, query TEXT, "
            "neuron_ids TEXT, retrieved_at TEXT, skill TEXT, runtime TEXT)"
        )
        for k in range(2):
            conn.execute(
                "INSERT INTO brainview_recall VALUES (?, '{}', ?, ?, 'curator', 'rt')",
                (f"rc-i{k}", json.dumps([rid, "r-other"]), AT),
            )
        if held_back:
            for ddl in HELD_BACK_DDL:
                conn.execute(ddl)
            for k in range(6):
                conn.execute(
                    "INSERT INTO brainview_held_back VALUES (?, 'note', '{}', 'withdrawn', NULL, "
                    "NULL, 'rt', 'curator', 'opposed', ?)",
                    (f"hb-{k}", AT),
                )
                conn.execute(
                    "INSERT INTO brainview_held_back_lesson VALUES (?, ?, 'oppose')",
                    (f"hb-{k}", rid),
                )
    conn.close()


def _fresh_reflection(root: Path) -> str:
    """A live reflection no demo proposal consulted."""
    (rid,) = sql(
        agent_db(root),
        "SELECT id FROM neuron WHERE type = 'reflection' AND retired_at IS NULL AND id NOT IN "
        "(SELECT reflection_id FROM brainview_consult) ORDER BY id LIMIT 1",
    )[0]
    return str(rid)


def _influence(root: Path, rid: str) -> Any:
    with Project.open(discover(root)) as project, project.require_agent().read() as conn:
        return influence_many(driver(conn), [rid])[rid]


def test_counts_from_consults_decisions_grades_recalls_and_held_back(demo: Any) -> None:
    root, _ = demo
    rid = _fresh_reflection(root)
    _plant(agent_db(root), rid, held_back=True)
    inf = _influence(root, rid)
    assert (inf.supported, inf.opposed, inf.suppressed, inf.recalled) == (3, 1, 6, 2)
    # p4's decision was undone: not decided, not swayed, not a confirmation
    assert (inf.decided, inf.swayed, inf.rejected_support, inf.accepted_support) == (3, 1, 2, 1)
    assert (inf.confirmations, inf.contradictions, inf.deciders) == (1, 2, 1)
    assert inf.score == 3 + 1 + 6 + 1


def test_missing_held_back_tables_read_as_empty(demo: Any) -> None:
    root, _ = demo
    rid = _fresh_reflection(root)
    _plant(agent_db(root), rid, held_back=False)
    inf = _influence(root, rid)
    assert (inf.suppressed, inf.supported) == (0, 3)


def test_inspect_json_and_influence_sort_and_suspicious(demo: Any) -> None:
    root, _ = demo
    rid = _fresh_reflection(root)
    _plant(agent_db(root), rid, held_back=True)
    data = ok_json("reflect", "inspect", rid, "-C", str(root))
    assert data["influence"]["suppressed"] == 6 and data["influence"]["score"] == 11
    kinds = {s["kind"]: s["reason"] for s in data["signals"]}
    assert set(kinds) == {"rejected-support", "low-corroboration"}
    assert "2 of 3" in kinds["rejected-support"]
    assert "6 suppressed" in kinds["low-corroboration"]
    page = ok_json("reflect", "list", "--sort", "influence", "--limit", "2", "-C", str(root))
    assert page["reflections"][0]["id"] == rid
    scores = [r["influence"]["score"] for r in page["reflections"]]
    assert scores == sorted(scores, reverse=True)
    nxt = ok_json(
        "reflect", "list", "--sort", "influence", "--limit", "2",
        "--after", page["next_after"], "-C", str(root),
    )  # fmt: skip
    assert not {r["id"] for r in nxt["reflections"]} & {r["id"] for r in page["reflections"]}
    ranked = ok_json("reflect", "list", "--suspicious", "-C", str(root))
    assert ranked["suspicious"][0]["id"] == rid
    assert ranked["suspicious"][0]["rank"] == (1 + 11) * 2.0


def test_held_back_signals_follow_the_verdicts(demo: Any) -> None:
    """A lesson nothing recorded wrote holds two drafts back: ``unconfirmed-hold``; a
    verdict that it should have been proposed adds ``overruled``; one that upholds it
    confirms it, and both signals go — each read through the real flows."""
    from test_held_back import report, session

    from brainview.services.influence import reflection_signals

    root, _ = demo
    (rid,) = sql(
        agent_db(root),
        "SELECT id FROM neuron WHERE type = 'reflection' AND retired_at IS NULL AND id NOT IN "
        "(SELECT reflection_id FROM brainview_consult) AND id NOT IN (SELECT new_reflection_id "
        "FROM brainview_decision WHERE new_reflection_id IS NOT NULL) ORDER BY id LIMIT 1",
    )[0]
    live = "SELECT id FROM neuron WHERE retired_at IS NULL ORDER BY id LIMIT 3"
    users = [u for (u,) in sql(agent_db(root).parent.parent / "circuit.db", live)]

    def kinds() -> set[str]:
        with Project.open(discover(root)) as project:
            got = reflection_signals(project, str(rid))
        return {str(s["kind"]) for s in got["signals"]}  # type: ignore[index, union-attr]

    with session(root) as s:
        s.report_held_back(report("hb-a", users[0], [rid]))
        assert "unconfirmed-hold" not in kinds()  # once is not yet worth a look
        s.report_held_back(report("hb-b", users[1], [rid]))
        assert kinds() == {"unconfirmed-hold"}
        s.decide_held_back("hb-a", "should_have_proposed")
        assert kinds() == {"unconfirmed-hold", "overruled"}
        s.decide_held_back("hb-b", "rightly_held_back", reason="the lesson was right")
        assert kinds() == set()
        inf = _influence(root, str(rid))
    assert (inf.suppressed, inf.upheld, inf.overruled, inf.attested) == (2, 1, 1, 0)
