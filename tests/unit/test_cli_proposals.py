"""``brainview proposals list|show|accept|reject|undo`` as subprocesses on demo brains:
output shapes, rows written, exit codes, and the round trip propose → accept →
``reflect inspect`` shows the grade → ``proposals undo`` restores every row exactly."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from test_cli import agent_db, cli, dump, fresh, ok_json, run, user_db
from test_cli import sql as sql_on

from brainview.errors import ExitCode

CHANGE_LOG = {"changeset", "event"}
"""Spikuit's change log in the user brain: an undo adds to it, never rewrites it."""


def sql(root: Path, query: str, *params: object) -> list[tuple[Any, ...]]:
    return sql_on(agent_db(root), query, *params)


def test_list_filters_paging_and_shape(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    data = ok_json("proposals", "list", "-C", str(root), "--limit", "1000")
    assert set(data) == {"proposals", "count", "total", "next_after"}
    assert data["total"] == data["count"] == 36 and data["next_after"] is None
    row = data["proposals"][0]
    assert set(row) == {
        "id", "kind", "skill", "status", "summary", "created_at", "received_at", "source",
        "n_consulted", "params", "stale", "suspicion", "decision", "grades", "approval",
    }  # fmt: skip
    assert {p["id"] for p in data["proposals"]} == set(info.proposal_ids)
    stale = {p["id"] for p in data["proposals"] if p["stale"]}
    assert stale == set(info.stale_proposal_ids)
    created = [p["created_at"] for p in data["proposals"]]
    assert created == sorted(created)

    seen, after = [], None
    while True:
        page = ok_json(
            "proposals",
            "list",
            "-C",
            str(root),
            "--limit",
            "10",
            *(["--after", after] if after else []),
        )
        seen += [p["id"] for p in page["proposals"]]
        after = page["next_after"]
        if after is None:
            break
    assert seen == [p["id"] for p in data["proposals"]]

    kinds = sql(root, "SELECT COUNT(*) FROM brainview_proposal WHERE kind = 'add_synapse'")[0][0]
    by_kind = ok_json("proposals", "list", "-C", str(root), "--kind", "add_synapse")
    assert by_kind["total"] == kinds and all(
        p["kind"] == "add_synapse" for p in by_kind["proposals"]
    )
    cut = created[20]
    since = ok_json("proposals", "list", "-C", str(root), "--since", cut)
    assert since["total"] == sum(c >= cut for c in created)
    until = ok_json("proposals", "list", "-C", str(root), "--until", cut, "--skill", "curator")
    assert all(p["created_at"] < cut and p["skill"] == "curator" for p in until["proposals"])
    assert ok_json("proposals", "list", "-C", str(root), "--status", "decided")["total"] == 0
    human = cli("proposals", "list", "-C", str(root), "--limit", "5")
    assert human.returncode == 0 and "5 of 36 pending proposal(s)" in human.stdout
    assert cli("proposals", "list", "-C", str(root), "--since", "yesterday").returncode == 2
    assert cli("proposals", "list", "-C", str(root), "--status", "bogus").returncode == 2


def test_show_json_shape_matches_the_rows(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    pid = fresh(info)[0]
    data = ok_json("proposals", "show", pid, "-C", str(root))
    assert data["id"] == pid and data["status"] == "pending" and data["decisions"] == []
    for key in ("params", "preview", "neurons", "consulted", "retrieved", "rationale", "stale"):
        assert key in data
    links = sql(
        root,
        "SELECT reflection_id, stance FROM brainview_consult WHERE proposal_id = ? AND "
        "role = 'consulted' ORDER BY seq",
        pid,
    )
    assert [(c["reflection"], c["stance"]) for c in data["consulted"]] == links
    assert all(isinstance(c["retrievability"], float) for c in data["consulted"])
    assert cli("proposals", "show", pid, "-C", str(root)).returncode == 0
    missing = cli("proposals", "show", "prop-nope", "-C", str(root), "--json")
    assert missing.returncode == int(ExitCode.NOT_FOUND)
    assert json.loads(missing.stderr)["error"] == "not_found"


def test_accept_many_is_all_or_nothing(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    p1, p2, p3 = fresh(info)[:3]
    data = ok_json("proposals", "accept", p1, p2, "-C", str(root), "--reason", "fine")
    assert data["verdict"] == "accept" and [d["proposal_id"] for d in data["decisions"]] == [p1, p2]
    fired = sql(root, "SELECT COUNT(*) FROM brainview_grade")[0][0]
    assert fired == sum(len(d["grades"]) for d in data["decisions"]) > 0
    before = dump(agent_db(root)), sql(root, "SELECT * FROM brainview_decision")
    out = cli("proposals", "accept", p3, p1, "-C", str(root))
    assert out.returncode == int(ExitCode.CONFLICT)
    assert f"proposal {p1} was already decided" in out.stderr
    assert (dump(agent_db(root)), sql(root, "SELECT * FROM brainview_decision")) == before
    assert cli("proposals", "reject", "prop-nope", "-C", str(root)).returncode == 3
    assert sql(root, "SELECT status FROM brainview_proposal WHERE id = ?", p3) == [("pending",)]


def test_reject_records_reason_and_decider_from_config(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    (root / ".spikuit" / "brainview.toml").write_text('[review]\ndecider = "carol"\n')
    pid = fresh(info)[4]
    data = ok_json("proposals", "reject", pid, "-C", str(root), "--reason", "wrong direction")
    assert data["decider"] == "carol"
    new = data["decisions"][0]["new_reflection_id"]
    content = sql(root, "SELECT content FROM neuron WHERE id = ?", new)[0][0]
    assert "Maintainer rejected: wrong direction" in content
    other = ok_json("proposals", "accept", fresh(info)[5], "-C", str(root), "--decider", "dan")
    assert other["decider"] == "dan"
    decided = sql(
        root, "SELECT proposal_id, decider, reason FROM brainview_decision ORDER BY rowid"
    )
    assert decided == [(pid, "carol", "wrong direction"), (fresh(info)[5], "dan", None)]
    (root / ".spikuit" / "brainview.toml").write_text("[review]\nbogus = 1\n")
    bad = cli("proposals", "accept", fresh(info)[6], "-C", str(root))
    assert bad.returncode == int(ExitCode.CONFIG) and "review.bogus" in bad.stderr


def test_decided_since_reads_decisions_back(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    ok_json("proposals", "accept", fresh(info)[0], "-C", str(root))
    later = {"BRAINVIEW_NOW": "2026-12-02T10:00:00+00:00"}
    ok_json("proposals", "reject", fresh(info)[1], "-C", str(root), env=later)
    both = ok_json(
        "proposals", "list", "-C", str(root), "--status", "decided", "--since", "2026-11-01"
    )
    assert [p["status"] for p in both["proposals"]] == ["accepted", "rejected"]
    recent = ok_json(
        "proposals", "list", "-C", str(root), "--status", "decided", "--since", "1d", env=later
    )
    assert [p["id"] for p in recent["proposals"]] == [fresh(info)[1]]
    item = recent["proposals"][0]
    assert item["decision"]["verdict"] == "reject" and item["decision"]["decider"]
    grades = sql(
        root,
        "SELECT reflection_id, stance, grade FROM brainview_grade WHERE decision_id = ?",
        item["decision"]["decision_id"],
    )
    assert sorted((g["reflection"], g["stance"], g["grade"]) for g in item["grades"]) == sorted(
        grades
    )


def run_json(*args: str, env: dict[str, str] | None = None) -> Any:
    """A real ``brainview ARGS --json`` process that must succeed."""
    out = run(*args, "--json", env=env)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_round_trip_propose_accept_inspect_undo(demo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Every step a real process: propose from JSON → accept (applied to the user brain)
    → ``reflect inspect`` shows the grade → ``proposals undo`` restores both brains."""
    root, _ = demo
    users = [
        r[0]
        for r in sql_on(
            user_db(root), "SELECT id FROM neuron WHERE retired_at IS NULL ORDER BY id LIMIT 2"
        )
    ]
    refl = [r[0] for r in sql(root, "SELECT id FROM neuron WHERE type='reflection' ORDER BY id")]
    support, oppose = refl[3], refl[4]
    doc = {
        "id": "p-round",
        "kind": "add_synapse",
        "params": {"pre": users[0], "post": users[1], "type": "extends", "weight": 0.4},
        "consulted": [
            {"reflection": support, "stance": "support"},
            {"reflection": oppose, "stance": "oppose"},
        ],
        "retrieved": [refl[5]],
    }
    f = tmp_path / "p.json"
    f.write_text(json.dumps(doc))
    assert run_json("propose", str(f), "-C", str(root))["count"] == 1
    agent_before, user_before = dump(agent_db(root)), dump(user_db(root), CHANGE_LOG)
    log_before = len(sql_on(user_db(root), "SELECT * FROM changeset"))
    r_before = run_json("reflect", "inspect", support, "-C", str(root))
    assert r_before["grades"] == []

    later = {"BRAINVIEW_NOW": "2026-11-30T10:00:00+00:00"}
    decided = run_json("proposals", "accept", "p-round", "-C", str(root), env=later)
    decision = decided["decisions"][0]
    assert decision["apply_state"] == "applied"
    assert {(g["reflection"], g["grade_name"]) for g in decision["grades"]} == {
        (support, "strong"),
        (oppose, "miss"),
    }
    link = (
        "SELECT weight FROM synapse WHERE pre=? AND post=? AND type='extends' "
        "AND retired_at IS NULL"
    )
    assert sql_on(user_db(root), link, users[0], users[1]) == [(0.4,)]
    after = run_json("reflect", "inspect", support, "-C", str(root))
    assert [(g["proposal_id"], g["grade"], g["stance"]) for g in after["grades"]] == [
        ("p-round", 4, "support")
    ]
    assert after["spikes"] == r_before["spikes"] + 1
    assert after["recent_spikes"][-1]["grade"] == 4
    assert after["card"]["last_review"] == "2026-11-30T10:00:00+00:00"
    assert after["influenced"][0]["status"] == "accepted"
    untouched = run_json("reflect", "inspect", refl[5], "-C", str(root))
    assert untouched["grades"] == []  # retrieved only: no event

    undone = run_json("proposals", "undo", decision["decision_id"], "-C", str(root))
    assert undone["proposal_id"] == "p-round" and undone["rows_restored"] > 0
    assert undone["user_rows_restored"] > 0
    restored = dump(agent_db(root))
    version = {r[0]: r[-1] for r in restored["brainview_proposal"]}
    assert version["p-round"] == 2  # moved on (pending → accepted → pending)

    def unversioned(d: dict[str, list[tuple[Any, ...]]]) -> dict[str, list[tuple[Any, ...]]]:
        return {k: [r[:-1] for r in v] if k == "brainview_proposal" else v for k, v in d.items()}

    assert unversioned(restored) == unversioned(agent_before)
    assert dump(user_db(root), CHANGE_LOG) == user_before
    assert len(sql_on(user_db(root), "SELECT * FROM changeset")) == log_before + 2  # apply, undo
    assert run_json("reflect", "inspect", support, "-C", str(root))["grades"] == []
    again = run("proposals", "undo", decision["decision_id"], "-C", str(root))
    assert again.returncode == int(ExitCode.CONFLICT) and "already undone" in again.stderr


def test_record_only_accept_leaves_the_user_brain_alone(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    (root / ".spikuit" / "brainview.toml").write_text("[review]\nrecord_only = true\n")
    before = dump(user_db(root), set())
    data = ok_json("proposals", "accept", fresh(info)[0], "-C", str(root))
    assert data["decisions"][0]["apply_state"] == "recorded"
    assert dump(user_db(root), set()) == before


def test_undo_by_proposal_id_and_last(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    a, b = fresh(info)[:2]
    ok_json("proposals", "accept", a, "-C", str(root))
    ok_json("proposals", "reject", b, "-C", str(root))
    last = ok_json("proposals", "undo", "--last", "-C", str(root))
    assert last["proposal_id"] == b and last["verdict"] == "reject"
    by_prop = ok_json("proposals", "undo", a, "-C", str(root))
    assert by_prop["proposal_id"] == a
    assert sql(root, "SELECT status FROM brainview_proposal WHERE id IN (?, ?)", a, b) == [
        ("pending",),
        ("pending",),
    ]
    nothing = cli("proposals", "undo", "--last", "-C", str(root), "--json")
    assert nothing.returncode == 3 and json.loads(nothing.stderr)["error"] == "not_found"
    assert cli("proposals", "undo", "dec-nope", "-C", str(root)).returncode == 3
    assert cli("proposals", "undo", "-C", str(root)).returncode == int(ExitCode.USAGE)
    assert cli("proposals", "undo", a, "--last", "-C", str(root)).returncode == int(ExitCode.USAGE)


def test_locked_agent_brain_refuses_a_decision(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    holder = sqlite3.connect(agent_db(root), isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        out = cli(
            "proposals", "accept", fresh(info)[0], "-C", str(root),
            env={"BRAINVIEW_BUSY_TIMEOUT": "0.2"},
        )  # fmt: skip
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert out.returncode == int(ExitCode.LOCKED), out.stderr
    assert sql(root, "SELECT COUNT(*) FROM brainview_decision")[0][0] == 0
