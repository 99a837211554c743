"""``brainview outcome report|show|undo`` and how outcomes show in the other commands:
JSON shapes, exit codes, one-line errors with nothing written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_cli import agent_db, cli, dump, ok_json, sql
from test_cli_propose import run

from brainview.errors import ExitCode

HISTORY = {"brainview_decision", "brainview_effect", "changeset", "event"}


def live(root: Path, n: int) -> list[str]:
    ids = [
        r
        for (r,) in sql(
            agent_db(root),
            "SELECT id FROM neuron WHERE type = 'reflection' AND retired_at IS NULL ORDER BY id",
        )
    ]
    return ids[:n]


def flags(a: str, b: str, *extra: str) -> list[str]:
    return [
        "outcome", "report", "--skill", "tutor", "--result", "failure",
        "--situation", "hint on limits confused the student", "--id", "t-1",
        "--consulted", a, "--consulted", f"{b}:oppose:it warned: rightly", *extra,
    ]  # fmt: skip


def test_report_with_flags_json_and_human(demo: Any) -> None:
    root, _ = demo
    a, b = live(root, 2)
    data = ok_json(*flags(a, b), "-C", str(root))
    assert set(data) == {
        "id", "skill", "result", "situation", "decision_id", "decided_at", "decider",
        "already_recorded", "grades", "skipped", "lesson_id",
    }  # fmt: skip
    assert (data["id"], data["decider"], data["already_recorded"]) == ("t-1", "tutor", False)
    assert [(g["reflection"], g["stance"], g["grade_name"]) for g in data["grades"]] == [
        (a, "support", "miss"),
        (b, "oppose", "strong"),
    ]
    assert sql(
        agent_db(root),
        "SELECT stance, note FROM brainview_consult WHERE proposal_id='t-1' ORDER BY seq",
    ) == [("support", None), ("oppose", "it warned: rightly")]
    assert sql(agent_db(root), "SELECT type FROM neuron WHERE id=?", data["lesson_id"]) == [
        ("reflection",)
    ]
    human = cli(*flags(a, b), "-C", str(root))
    assert human.returncode == 0
    assert human.stdout.startswith("already recorded: tutor failure t-1 (decision ")
    assert f"new lesson {data['lesson_id']}" in human.stdout


def test_report_from_a_file_and_from_stdin(demo: Any, tmp_path: Path) -> None:
    root, _ = demo
    a, b = live(root, 2)
    doc = {
        "id": "q-1", "skill": "qabot", "result": "success", "situation": "right unit",
        "consulted": [a, {"reflection": b, "stance": "annotate"}], "runtime": "model-x",
    }  # fmt: skip
    path = tmp_path / "o.json"
    path.write_text(json.dumps(doc))
    data = ok_json("outcome", "report", str(path), "-C", str(root), "--decider", "qa-runner")
    assert data["decider"] == "qa-runner" and data["grades"][0]["grade_name"] == "strong"
    assert data["skipped"] == [{"reflection": b, "why": "annotate: no event"}]
    assert sql(agent_db(root), "SELECT runtime, source FROM brainview_proposal WHERE id='q-1'") == [
        ("model-x", "cli")
    ]
    again = run("outcome", "report", "-", "-C", str(root), "--json", stdin=json.dumps(doc).encode())
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["already_recorded"] is True


def test_conflict_is_exit_5_and_writes_nothing(demo: Any) -> None:
    root, _ = demo
    a, b = live(root, 2)
    assert cli(*flags(a, b), "-C", str(root)).returncode == 0
    before = dump(agent_db(root), set())
    out = cli(*flags(a, b, "--lesson", "something else"), "-C", str(root))
    assert out.returncode == ExitCode.CONFLICT
    assert out.stderr.count("\n") == 1 and "already recorded with a different lesson" in out.stderr
    assert dump(agent_db(root), set()) == before


@pytest.mark.parametrize(
    ("argv", "code", "message"),
    [
        (["--skill", "tutor", "--result", "failure"], ExitCode.USAGE, "give --situation"),
        (["--skill", "curator", "--result", "failure", "--situation", "x"], ExitCode.USAGE,
         "invalid choice"),
        (["--skill", "tutor", "--result", "failure", "--situation", "x", "--consulted",
          "r-nope"], ExitCode.INVALID_INPUT, "reflection r-nope does not exist"),
        (["--skill", "tutor", "--result", "failure", "--situation", "x", "--consulted",
          "{a}:maybe"], ExitCode.INVALID_INPUT, "outcome.consulted[0].stance"),
        (["--skill", "tutor", "--result", "failure", "--situation", "x", "--id", " "],
         ExitCode.INVALID_INPUT, "outcome.id"),
        (["--skill", "tutor", "--result", "failure", "--situation", "x", "--decider",
          "a\u202eb"], ExitCode.INVALID_INPUT, "decider"),
        (["-", "--skill", "tutor"], ExitCode.USAGE, "FILE or flags, not both"),
        (["missing.json"], ExitCode.NOT_FOUND, "no such file"),
    ],
)  # fmt: skip
def test_bad_input_is_one_line_and_writes_nothing(
    demo: Any, argv: list[str], code: int, message: str
) -> None:
    root, _ = demo
    (a,) = live(root, 1)
    before = dump(agent_db(root), set())
    argv = [x.replace("{a}", a) for x in argv]
    out = cli("outcome", "report", *argv, "-C", str(root))
    assert out.returncode == code, out.stderr
    assert out.stderr.count("\n") == 1 and message in out.stderr
    assert "Traceback" not in out.stderr
    assert dump(agent_db(root), set()) == before


def test_bad_json_file_is_exit_4(demo: Any, tmp_path: Path) -> None:
    root, _ = demo
    before = dump(agent_db(root), set())
    for body, message in (
        ("[1, 2]", "one JSON object"),
        ('{"skill": "tutor"', "input line 1"),
        ('{"skill": "tutor", "result": "failure", "situation": "x", "x": 1}', "outcome.x"),
    ):
        path = tmp_path / "bad.json"
        path.write_text(body)
        out = cli("outcome", "report", str(path), "-C", str(root))
        assert out.returncode == ExitCode.INVALID_INPUT, out.stderr
        assert message in out.stderr and out.stderr.count("\n") == 1
    assert dump(agent_db(root), set()) == before


def test_show_undo_and_the_other_commands(demo: Any) -> None:
    root, info = demo
    a, b = live(root, 2)
    before = dump(agent_db(root), HISTORY)
    rec = ok_json(*flags(a, b), "-C", str(root))
    shown = ok_json("outcome", "show", "t-1", "-C", str(root))
    assert shown["decision_id"] == rec["decision_id"] and shown["grades"] == rec["grades"]
    out = cli("proposals", "show", "t-1", "-C", str(root))
    assert out.returncode == ExitCode.NOT_FOUND and "outcome show t-1" in out.stderr
    listed = ok_json("proposals", "list", "--status", "all", "-C", str(root))
    assert listed["total"] == len(info.proposal_ids)
    stats = ok_json("stats", "-C", str(root))
    assert stats["outcomes"]["tutor"] == {"success": 0, "failure": 1, "rate": 0.0}
    assert stats["proposals"]["rejected"] == 0
    assert stats["agent_metrics"]["outcomes"][0]["skill"] == "tutor"
    inspect = ok_json("reflect", "inspect", a, "-C", str(root))
    assert any(
        g["proposal_id"] == "t-1" and g["proposal_kind"] == "outcome" for g in inspect["grades"]
    )
    human = cli("reflect", "inspect", a, "-C", str(root)).stdout
    assert "support · failure of t-1 by tutor" in human
    lesson = cli("reflect", "inspect", rec["lesson_id"], "-C", str(root)).stdout
    assert "reported the failed outcome t-1" in lesson
    undone = ok_json("outcome", "undo", "t-1", "-C", str(root), "--decider", "ann")
    assert (undone["id"], undone["decision_id"], undone["undone_by"]) == (
        "t-1", rec["decision_id"], "ann",
    )  # fmt: skip
    assert dump(agent_db(root), HISTORY) == before
    out = cli("outcome", "undo", "t-1", "-C", str(root))
    assert out.returncode == ExitCode.NOT_FOUND and "no outcome 't-1'" in out.stderr
    # recorded again, then undone through `proposals undo` (by the outcome's id)
    assert cli(*flags(a, b), "-C", str(root)).returncode == 0
    out = cli("proposals", "undo", "t-1", "-C", str(root))
    assert out.returncode == 0 and "the outcome is withdrawn" in out.stdout
    assert dump(agent_db(root), HISTORY) == before


def test_propose_refuses_the_outcome_kind(demo: Any, tmp_path: Path) -> None:
    root, _ = demo
    path = tmp_path / "p.json"
    path.write_text(json.dumps({"kind": "outcome", "params": {}}))
    out = cli("propose", str(path), "-C", str(root))
    assert out.returncode == ExitCode.INVALID_INPUT
    assert "'outcome' is not proposed" in out.stderr
