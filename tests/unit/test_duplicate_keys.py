"""A JSON object that names a key twice is refused wherever brainview reads JSON from
outside: which value a reader keeps differs between parsers (Python keeps the last,
others the first), so a proposal could say one thing to a reviewer's tool and another
to brainview.  One line names the key, exit 4, nothing written.  (MCP request lines:
``test_mcp_wire.py``.)
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_cli import agent_db, cli, dump, user_db
from test_mcp import live_ids

from brainview.core.json_strict import loads_input
from brainview.errors import ExitCode


def test_loads_input_refuses_a_duplicate_key_at_any_depth() -> None:
    assert loads_input('[{"a": 1}, {"a": 2}, {"b": {"a": 3}, "a": 4}]') == [
        {"a": 1}, {"a": 2}, {"b": {"a": 3}, "a": 4},
    ]  # fmt: skip
    cases = {
        '{"kind": "note", "kind": "merge_neurons"}': 'duplicate key "kind" in one object',
        '[{"params": {"keep": "n-1", "keep": "n-2"}}]': 'duplicate key "keep" in one object',
        '{"a\\u0000b": 1, "a\\u0000b": 2}': 'duplicate key "a\\u0000b" in one object',
        '{"k": 1, "\\u006b": 2}': 'duplicate key "k" in one object',  # the same key, escaped
        json.dumps({"x" * 100: 1})[:-1] + ', "' + "x" * 100 + '": 2}': (
            'duplicate key "' + "x" * 40 + '"… in one object'
        ),
    }
    for text, message in cases.items():
        with pytest.raises(ValueError) as refused:
            loads_input(text)
        assert str(refused.value) == message


def _refused(root: Path, args: list[str], message: str) -> None:
    before = (dump(user_db(root)), dump(agent_db(root)))
    out = cli(*args, "-C", str(root))
    assert (out.returncode, out.stdout) == (ExitCode.INVALID_INPUT, ""), out.stderr
    assert out.stderr == f"brainview: {message}\n"
    assert (dump(user_db(root)), dump(agent_db(root))) == before


def test_cli_inputs_refuse_duplicate_keys(demo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    users, refl = live_ids(root)
    note = (
        '{"id": "prop-dup", "kind": "note", "params": {"neurons": ["' + users[0] + '"]}, '
        '"rationale": "why", "consulted": [{"reflection": "' + refl[0] + '", '
        '"stance": "support", "stance": "oppose"}]}'
    )
    files = {
        "one.json": note,
        "kind.json": '{"kind": "note", "kind": "merge_neurons", "params": {}}',
        "lines.jsonl": '{"kind": "note", "params": {}}\n{"kind": "note", "params": {}, '
        '"params": {"neurons": []}}\n',
        "outcome.json": '{"id": "o-1", "skill": "tutor", "result": "success", '
        '"result": "failure", "situation": "s", "consulted": []}',
        "draft.json": '{"kind": "note", "params": {"neurons": [], "neurons": ["n-1"]}}',
        "plan.json": '{"phases": {"merge": [], "merge": [{"keep": "n-1"}]}}',
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    f = {name: str(tmp_path / name) for name in files}
    dup = 'duplicate key "{}" in one object'
    _refused(root, ["propose", f["one.json"]], "input: " + dup.format("stance"))
    _refused(root, ["propose", f["one.json"], "--dry-run"], "input: " + dup.format("stance"))
    _refused(root, ["propose", f["kind.json"]], "input: " + dup.format("kind"))
    _refused(root, ["propose", f["lines.jsonl"]], "input line 2: " + dup.format("params"))
    _refused(root, ["outcome", "report", f["outcome.json"]], "input: " + dup.format("result"))
    _refused(root, ["recall", "--draft", f["draft.json"], "--no-log"],
             "input: " + dup.format("neurons"))  # fmt: skip
    _refused(root, ["propose", f["plan.json"], "--from-spkt-plan"],
             "input: " + dup.format("merge"))  # fmt: skip
