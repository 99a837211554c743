"""``brainview reflect consolidate|disable|enable`` and ``proposals accept --policy-text``
as real processes: rows written, exit codes, what the human output says."""

from __future__ import annotations

from test_cli import agent_db, cli, ok_json, run, sql

from brainview.errors import ExitCode


def test_dry_run_writes_no_proposal(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    before = sql(agent_db(root), "SELECT COUNT(*) FROM brainview_proposal")
    out = ok_json("reflect", "consolidate", "--dry-run", "-C", str(root))
    assert out["queued"] == [] and out["items"]
    assert sql(agent_db(root), "SELECT COUNT(*) FROM brainview_proposal") == before
    kinds = {i["kind"] for i in out["items"]}
    assert kinds == {"prune_reflection", "decay_synapses", "summarize_community", "retire_policy"}
    human = cli("reflect", "consolidate", "--dry-run", "-C", str(root))
    assert human.returncode == 0
    assert "SWS: prune faded reflections" in human.stdout and "dry run" in human.stdout


def test_queue_then_accept_an_edited_policy(demo, tmp_path) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    out = ok_json("reflect", "consolidate", "-C", str(root))
    rows = sql(
        agent_db(root),
        "SELECT p.id, c.phase FROM brainview_proposal p JOIN brainview_consolidation_item c "
        "ON c.proposal_id = p.id WHERE p.status = 'pending' ORDER BY c.seq",
    )
    assert [r[0] for r in rows] == out["queued"]
    plan = sql(agent_db(root), "SELECT id, n_items FROM brainview_consolidation")
    assert plan == [(out["id"], len(out["queued"]))]
    policy = next(i for i in out["items"] if i["kind"] == "summarize_community")
    text = tmp_path / "policy.txt"
    text.write_text("Keep homonyms apart.\n", encoding="utf-8")
    done = ok_json(
        "proposals", "accept", policy["proposal_id"], "--policy-text", str(text), "-C", str(root)
    )
    assert done["decisions"][0]["apply_state"] == "agent"
    stored = sql(
        agent_db(root), "SELECT content FROM neuron WHERE id = ?", policy["params"]["policy"]
    )
    assert stored == [("Keep homonyms apart.\n",)]
    shown = ok_json("proposals", "show", policy["proposal_id"], "-C", str(root))
    assert shown["agent_item"]["draft"] == policy["params"]["text"]
    # A second consolidation right after queues nothing new.
    again = ok_json("reflect", "consolidate", "-C", str(root))
    assert again["queued"] == []


def test_policy_text_only_with_a_policy(demo, tmp_path) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    text = tmp_path / "t.txt"
    text.write_text("x", encoding="utf-8")
    pid = info.proposal_ids[0]
    out = run("proposals", "accept", pid, "--policy-text", str(text), "-C", str(root))
    assert out.returncode == ExitCode.INVALID_INPUT
    assert len(out.stderr.strip().splitlines()) == 1 and "not a policy" in out.stderr
    status = sql(agent_db(root), "SELECT status FROM brainview_proposal WHERE id = ?", pid)
    assert status == [("pending",)]
    missing = run(
        "proposals", "accept", pid, "--policy-text", str(tmp_path / "no"), "-C", str(root)
    )
    assert missing.returncode == ExitCode.USAGE and "Traceback" not in missing.stderr


def test_disable_pauses_reflections_for_every_caller(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    off = cli("reflect", "disable", "--reason", "audit week", "--actor", "ann", "-C", str(root))
    assert off.returncode == 0 and "paused" in off.stdout and "audit week" in off.stdout
    again = ok_json("reflect", "disable", "-C", str(root))
    assert again["changed"] is False and again["by"] == "ann"
    pid = info.proposal_ids[0]
    dec = ok_json("proposals", "reject", pid, "--reason", "no", "-C", str(root))
    assert dec["decisions"][0]["new_reflection_id"] is None
    assert dec["decisions"][0]["grades"], "decisions still grade while paused"
    on = ok_json("reflect", "enable", "-C", str(root))
    assert on == {**on, "enabled": True, "paused": False, "changed": True}
    pid2 = info.proposal_ids[1]
    dec2 = ok_json("proposals", "reject", pid2, "--reason", "no", "-C", str(root))
    assert dec2["decisions"][0]["new_reflection_id"]
    meta = sql(agent_db(root), "SELECT value FROM brainview_meta WHERE key = 'reflections.paused'")
    assert meta == []


def test_disable_refuses_a_read_only_agent_brain(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    db = agent_db(root)
    db.chmod(0o444)
    try:
        out = run("reflect", "disable", "-C", str(root))
    finally:
        db.chmod(0o644)
    assert out.returncode != 0 and len(out.stderr.strip().splitlines()) == 1


def test_stats_reports_the_writing_switch(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    assert ok_json("stats", str(root))["reflection_writing"]["enabled"] is True
    ok_json("reflect", "disable", "--reason", "audit", "--actor", "ann", "-C", str(root))
    data = ok_json("stats", str(root))["reflection_writing"]
    assert data == {**data, "enabled": False, "by": "ann", "reason": "audit"}
    human = cli("stats", str(root))
    assert "reflection writing paused by ann: audit" in human.stdout


def test_show_by_policy_id_points_at_its_proposal(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    out = ok_json("reflect", "consolidate", "-C", str(root))
    policy = next(i for i in out["items"] if i["kind"] == "summarize_community")
    shown = run("proposals", "show", policy["params"]["policy"], "-C", str(root))
    assert shown.returncode == ExitCode.NOT_FOUND
    assert f"proposed by {policy['proposal_id']}" in shown.stderr
    assert len(shown.stderr.strip().splitlines()) == 1
