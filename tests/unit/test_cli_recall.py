"""``brainview recall`` as a person and a curator use it: exit codes, safe output, the
log, and ``propose --recall``."""

from __future__ import annotations

import json
from pathlib import Path

from test_cli import agent_db, cli, ok_json, sql

from brainview.errors import ExitCode


def test_usage_and_input_errors_write_nothing(demo) -> None:
    root, _info = demo
    before = sql(agent_db(root), "SELECT count(*) FROM sqlite_master")
    for argv, code in (
        (["recall", "--limit", "0", "--text", "x"], ExitCode.USAGE),
        (["recall", "--limit", "101", "--text", "x"], ExitCode.USAGE),
        (["recall"], ExitCode.INVALID_INPUT),
        (["recall", "--text", "x", "--skill", "cur ator"], ExitCode.INVALID_INPUT),
    ):
        out = cli(*argv, "-C", str(root))
        assert out.returncode == code, (argv, out.stderr)
        assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
    assert sql(agent_db(root), "SELECT count(*) FROM sqlite_master") == before


def test_draft_from_stdin_file_and_bad_draft(demo, tmp_path: Path) -> None:
    root, info = demo
    draft = tmp_path / "d.json"
    draft.write_text(json.dumps({"kind": "retire_neuron", "params": {"neuron": info.user_ids[3]}}))
    data = ok_json("recall", "--draft", str(draft), "-C", str(root), "--no-log")
    assert data["query"]["kind"] == "retire_neuron" and data["query"]["refs"] == [info.user_ids[3]]
    draft.write_text("[1, 2]")
    out = cli("recall", "--draft", str(draft), "-C", str(root))
    assert out.returncode == ExitCode.INVALID_INPUT and "draft" in out.stderr


def test_human_output_is_inert(demo) -> None:
    """The adversarial lessons (escape sequences, OSC 52, markup) reach the screen as text."""
    root, _info = demo
    out = cli("recall", "--text", "clipboard accept merges previous lessons", "-C", str(root))
    assert out.returncode == 0, out.stderr
    assert "\x1b" not in out.stdout and "\x07" not in out.stdout and "\x9b" not in out.stdout
    assert "recall rc-" in out.stdout


def test_propose_with_recall_fills_retrieved(demo) -> None:
    root, info = demo
    hits = ok_json("recall", "--text", "merging keywords overlap", "-C", str(root))
    rid = hits["recall_id"]
    ids = [h["reflection"] for h in hits["hits"]]
    live = "SELECT id FROM neuron WHERE retired_at IS NULL LIMIT 2"
    users = [r[0] for r in sql(root / ".spikuit" / "circuit.db", live)]
    doc = {
        "id": "p-rc",
        "kind": "merge_neurons",
        "params": {"keep": users[0], "merge": [users[1]]},
        "consulted": [{"reflection": ids[0], "stance": "oppose"}],
        "recall": rid,
    }
    path = root / "p.json"
    path.write_text(json.dumps(doc))
    assert ok_json("propose", str(path), "-C", str(root))["proposals"][0]["retrieved"] == 9
    rows = sql(agent_db(root), "SELECT reflection_id, role FROM brainview_consult "
               "WHERE proposal_id = 'p-rc' ORDER BY role, seq")  # fmt: skip
    assert [r for r, role in rows if role == "retrieved"] == ids[1:]
    assert [r for r, role in rows if role == "consulted"] == [ids[0]]
    # an unknown recall is refused, nothing queued
    doc.update(id="p-rc2", recall="rc-missing")
    path.write_text(json.dumps(doc))
    out = cli("propose", str(path), "-C", str(root))
    assert out.returncode == ExitCode.INVALID_INPUT and "recall" in out.stderr
    assert sql(agent_db(root), "SELECT count(*) FROM brainview_proposal WHERE id='p-rc2'") == [(0,)]
    # --recall on the command line does the same for every proposal of the batch
    doc.pop("recall")
    doc.update(id="p-rc3", consulted=[])
    path.write_text(json.dumps(doc))
    got = ok_json("propose", str(path), "--recall", rid, "-C", str(root))
    assert got["proposals"][0]["retrieved"] == 10
