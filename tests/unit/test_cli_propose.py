"""``brainview propose`` as a subprocess: JSON / array / JSON Lines / stdin in, rows out;
malformed, hostile and oversized input refused with one line, exit 4, nothing written."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from test_cli import ENV, cli

from brainview.demo.generator import DEMO_NOW
from brainview.errors import ExitCode


def run(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    out = subprocess.run(
        [sys.executable, "-m", "brainview", *args],
        capture_output=True,
        input=stdin,
        timeout=120,
        env={**os.environ, **ENV},
    )
    return subprocess.CompletedProcess(
        out.args, out.returncode, out.stdout.decode(), out.stderr.decode()
    )


def agent_db(root: Path) -> Path:
    return root / ".spikuit" / "agent" / "circuit.db"


def queue(root: Path) -> dict[str, list[tuple[Any, ...]]]:
    """brainview's queue tables, in full."""
    conn = sqlite3.connect(agent_db(root))
    try:
        return {
            t: sorted(conn.execute(f"SELECT * FROM {t}").fetchall(), key=repr)
            for t in ("brainview_proposal", "brainview_consult", "neuron", "spike")
        }
    finally:
        conn.close()


def live_ids(root: Path) -> tuple[list[str], list[str]]:
    """Live user neurons and live reflections of a demo project."""
    user = sqlite3.connect(root / ".spikuit" / "circuit.db")
    agent = sqlite3.connect(agent_db(root))
    try:
        users = [r[0] for r in user.execute("SELECT id FROM neuron WHERE retired_at IS NULL")]
        refl = [
            r[0]
            for r in agent.execute(
                "SELECT id FROM neuron WHERE type = 'reflection' AND retired_at IS NULL ORDER BY id"
            )
        ]
    finally:
        user.close()
        agent.close()
    return sorted(users), refl


def proposal(root: Path, pid: str, k: int = 0) -> dict[str, Any]:
    users, refl = live_ids(root)
    return {
        "id": pid,
        "skill": "curator",
        "kind": "merge_neurons",
        "params": {"keep": users[2 * k], "merge": [users[2 * k + 1]]},
        "rationale": "same concept twice",
        "consulted": [
            {"reflection": refl[2 * k], "stance": "support"},
            {"reflection": refl[2 * k + 1], "stance": "oppose", "note": "warned"},
        ],
        "retrieved": [refl[50 + k]],
    }


def test_propose_object_array_json_lines_and_stdin(demo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    before = queue(root)
    one = tmp_path / "one.json"
    one.write_text(json.dumps(proposal(root, "p-one", 0)))
    out = run("propose", str(one), "-C", str(root), "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["dry_run"] is False and data["count"] == 1
    assert set(data["proposals"][0]) == {
        "id", "kind", "skill", "summary", "created_at", "consulted", "retrieved",
    }  # fmt: skip
    assert data["proposals"][0]["consulted"] == 2 and data["proposals"][0]["retrieved"] == 1

    many = tmp_path / "many.json"
    many.write_text(json.dumps([proposal(root, "p-a1", 1), proposal(root, "p-a2", 2)], indent=2))
    assert run("propose", str(many), "-C", str(root)).returncode == 0
    lines = "\n".join(json.dumps(proposal(root, f"p-l{k}", k)) for k in (3, 4)) + "\n\n"
    jl = tmp_path / "batch.jsonl"
    jl.write_text(lines)
    assert run("propose", str(jl), "-C", str(root)).returncode == 0
    piped = run(
        "propose", "-", "-C", str(root), stdin=json.dumps(proposal(root, "p-in", 5)).encode()
    )
    assert piped.returncode == 0, piped.stderr
    assert "queued: 1 proposal(s)" in piped.stdout

    after = queue(root)
    new = {r[0] for r in after["brainview_proposal"]} - {r[0] for r in before["brainview_proposal"]}
    assert new == {"p-one", "p-a1", "p-a2", "p-l3", "p-l4", "p-in"}
    consult = [r for r in after["brainview_consult"] if r[0] == "p-one"]
    assert sorted((r[2], r[3]) for r in consult) == [
        ("consulted", "oppose"),
        ("consulted", "support"),
        ("retrieved", None),
    ]
    row = next(r for r in after["brainview_proposal"] if r[0] == "p-one")
    assert row[5] == DEMO_NOW.isoformat()  # created_at defaulted to BRAINVIEW_NOW


def test_dry_run_validates_and_writes_nothing(demo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    before = queue(root)
    f = tmp_path / "p.json"
    f.write_text(json.dumps([proposal(root, "p-dry", 0)]))
    out = run("propose", str(f), "-C", str(root), "--dry-run", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["dry_run"] is True
    assert queue(root) == before


def _oversized(path: Path) -> None:
    """A real JSON array just over 50 MB: one proposal with a huge rationale."""
    with path.open("w") as fh:
        fh.write('[{"kind": "note", "rationale": "')
        chunk = "x" * (1 << 20)
        for _ in range(50):
            fh.write(chunk)
        fh.write('"}]')


HOSTILE: dict[str, tuple[Any, str]] = {
    "oversized file": (_oversized, "larger than the 50 MB limit"),
    "deep nesting": (
        lambda p: p.write_text('{"kind": "note",\n"params": ' + "[" * 5000 + "]" * 5000 + "}"),
        "input line 2: JSON nested deeper than 32 levels",
    ),
    "invalid utf-8": (
        lambda p: p.write_bytes(b'{"kind": "note",\n"rationale": "caf\xe9"}'),
        "input line 2: invalid UTF-8",
    ),
    "nul byte": (
        lambda p: p.write_bytes(b'{"kind": "note",\n\n"rationale": "a\x00b"}'),
        "input line 3: NUL byte",
    ),
    "10,000 neurons": (
        lambda p: p.write_text(
            json.dumps(
                {
                    "kind": "merge_neurons",
                    "params": {"keep": "n-x", "merge": [f"n-{i}" for i in range(10_000)]},
                }
            )
        ),
        "proposal[0].params.merge: names 10000 neurons (limit 1000)",
    ),
    "NaN": (
        lambda p: p.write_text(
            '{"kind": "add_synapse", "params": {"pre": "a", "post": "b", '
            '"type": "extends", "weight": NaN}}'
        ),
        "NaN is not valid JSON",
    ),
    "lone surrogate": (
        lambda p: p.write_text('{"kind": "note", "rationale": "\\ud800"}'),
        "lone surrogate",
    ),
    "malformed": (
        lambda p: p.write_text('[\n{"kind": "note",}\n]'),
        "input line 2 column 17",
    ),
    "bad json line": (
        lambda p: p.write_text('{"kind": "note"}\n{"kind": "note"}\n{"kind": \n'),
        "input line 3 column",
    ),
    "unknown field": (
        lambda p: p.write_text('{"kind": "note", "evil": 1}'),
        "proposal[0].evil: unknown field",
    ),
    "bad item in json lines": (
        lambda p: p.write_text('{"kind": "note"}\n\n{"kind": "retire_neuron", "params": {}}\n'),
        "proposal[1].params.neuron: required non-empty string (input line 3)",
    ),
    "empty": (lambda p: p.write_text("  \n"), "input: empty"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_input_is_refused_in_one_line(demo, tmp_path: Path, case: str) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    before = queue(root)
    build, expected = HOSTILE[case]
    f = tmp_path / "in.json"
    build(f)
    for flags in ([], ["--json"]):  # the JSON variant as a real process, the other in-process
        call = run if flags else cli
        out = call("propose", str(f), "-C", str(root), *flags)
        assert out.returncode == int(ExitCode.INVALID_INPUT), out.stderr
        assert out.stdout == ""
        assert "Traceback" not in out.stderr
        assert len(out.stderr.strip().splitlines()) == 1
        if flags:
            err = json.loads(out.stderr)
            assert err["error"] == "invalid_input" and err["exit_code"] == 4
            assert expected in err["message"]
        else:
            assert expected in out.stderr, out.stderr
    assert queue(root) == before


def test_oversized_stdin_and_brain_checks_write_nothing(demo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    before = queue(root)
    big = run("propose", "-", "-C", str(root), stdin=b" " * (50 * 1024 * 1024 + 1))
    assert big.returncode == 4 and "stdin is larger than the 50 MB limit" in big.stderr
    good = proposal(root, "p-good", 0)
    bad = proposal(root, "p-bad", 1) | {"consulted": [{"reflection": "r-nope"}]}
    f = tmp_path / "mixed.json"
    f.write_text(json.dumps([good, bad]))
    out = run("propose", str(f), "-C", str(root))
    assert out.returncode == 4
    assert "proposal[1].consulted[0].reflection: reflection r-nope does not exist" in out.stderr
    assert queue(root) == before  # the good one was not written either

    f.write_text(json.dumps(good))
    assert run("propose", str(f), "-C", str(root)).returncode == 0
    again = run("propose", str(f), "-C", str(root))
    assert again.returncode == 4 and "p-good already queued" in again.stderr


def test_missing_file_no_agent_and_read_only_agent(demo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import shutil

    root, _ = demo
    f = tmp_path / "p.json"
    f.write_text(json.dumps(proposal(root, "p-x", 0)))
    assert run("propose", str(tmp_path / "nope.json"), "-C", str(root)).returncode == 3
    assert run("propose", str(tmp_path), "-C", str(root)).returncode == 4  # a directory
    db = agent_db(root)
    mode = db.stat().st_mode
    db.chmod(0o444)
    try:
        out = run("propose", str(f), "-C", str(root))
        assert out.returncode == int(ExitCode.READ_ONLY), out.stderr
        assert run("propose", str(f), "-C", str(root), "--dry-run").returncode == 0
    finally:
        db.chmod(mode)
    shutil.rmtree(root / ".spikuit" / "agent")
    out = run("propose", str(f), "-C", str(root))
    assert out.returncode == int(ExitCode.NOT_FOUND)
    assert "no agent brain yet" in out.stderr


def test_schema_flag_prints_the_shipped_schema() -> None:
    out = run("propose", "--schema")
    assert out.returncode == 0
    shipped = Path(__file__).resolve().parents[2] / "brainview" / "schema" / "proposal.schema.json"
    assert json.loads(out.stdout) == json.loads(shipped.read_text())
    assert run("propose").returncode == int(ExitCode.USAGE)
