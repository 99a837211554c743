"""``brainview export`` and ``brainview reflect list|inspect`` as subprocesses: shapes,
counts against the rows, data fidelity in files and pipes, inert output on a terminal,
atomic ``--out``."""

from __future__ import annotations

import csv
import io
import json
import os
import pty
import resource
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from test_cli import ENV, agent_db, cli, fresh
from test_cli import sql as sql_on

from brainview.commands.export import COLUMNS
from brainview.demo.generator import DEMO_NOW
from brainview.errors import ExitCode


def limited_run(*args: str, env: dict[str, str] | None = None, max_file_bytes: int | None = None):  # noqa: ANN201
    """A real process; with ``max_file_bytes``, writes past that size fail (EFBIG)."""

    def limit() -> None:
        if max_file_bytes is not None:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (max_file_bytes, max_file_bytes))

    return subprocess.run(
        [sys.executable, "-m", "brainview", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **ENV, **(env or {})},
        preexec_fn=limit if max_file_bytes is not None else None,
    )


def on_terminal(*args: str) -> bytes:
    """Run with stdout on a pseudo-terminal; return what the terminal received."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "brainview", *args],
        stdout=follower,
        stderr=subprocess.PIPE,
        env={**os.environ, **ENV, "COLUMNS": "120"},
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=120)
    os.close(leader)
    assert proc.returncode == 0, proc.stderr.read() if proc.stderr else ""
    return b"".join(chunks)


def sql(root: Path, query: str, *params: object) -> list[tuple[Any, ...]]:
    return sql_on(agent_db(root), query, *params)


def test_export_every_dataset_and_format(demo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    decided = fresh(info)[:2]
    assert cli("proposals", "reject", *decided, "-C", str(root), "--reason", "no").returncode == 0
    counts = {
        "proposals": sql(root, "SELECT COUNT(*) FROM brainview_proposal")[0][0],
        "decisions": 2,
        "reflections": sql(root, "SELECT COUNT(*) FROM neuron")[0][0],
    }
    for dataset, n in counts.items():
        as_json = cli("export", dataset, "-C", str(root))
        assert as_json.returncode == 0, as_json.stderr
        rows = json.loads(as_json.stdout)
        assert len(rows) == n and list(rows[0]) == list(COLUMNS[dataset])
        lines = cli("export", dataset, "-C", str(root), "--format", "jsonl").stdout.splitlines()
        assert [json.loads(x) for x in lines] == rows
        table = list(
            csv.reader(
                io.StringIO(cli("export", dataset, "-C", str(root), "--format", "csv").stdout)
            )
        )
        assert table[0] == list(COLUMNS[dataset]) and len(table) == n + 1
    grades = json.loads(cli("export", "decisions", "-C", str(root)).stdout)[0]["grades"]
    assert grades == [
        {"reflection": r, "stance": s, "grade": g}
        for r, s, g in sql(
            root,
            "SELECT g.reflection_id, g.stance, g.grade FROM brainview_grade g JOIN "
            "brainview_decision d ON d.id = g.decision_id WHERE d.proposal_id = ? ORDER BY g.rowid",
            decided[0],
        )
    ]
    cut = cli("export", "proposals", "-C", str(root), "--since", "2026-11-25", "--format", "jsonl")
    expected = sql(root, "SELECT COUNT(*) FROM brainview_proposal WHERE created_at >= '2026-11-25'")
    assert len(cut.stdout.splitlines()) == expected[0][0]


def test_csv_keeps_hostile_text_verbatim_in_files_and_pipes(demo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    out = tmp_path / "r.csv"
    done = cli("export", "reflections", "-C", str(root), "--format", "csv", "--out", str(out))
    assert done.returncode == 0 and "exported" in done.stderr and done.stdout == ""
    with out.open(newline="", encoding="utf-8") as fh:
        rows = {r["id"]: r for r in csv.DictReader(fh)}
    stored = dict(sql(root, "SELECT id, content FROM neuron"))
    hostile = [
        rid
        for rid in info.adversarial_ids
        if any(ord(c) < 32 and c != "\n" for c in stored[rid]) or "\x9b" in stored[rid]
    ]
    assert hostile, "the demo carries escape sequences"
    for rid in info.adversarial_ids:
        assert rows[rid]["content"] == stored[rid]
    piped = limited_run("export", "reflections", "-C", str(root), "--format", "csv")
    assert "\x1b" in piped.stdout  # a pipe gets the data as it is


@pytest.mark.parametrize(
    "args",
    [
        ("export", "reflections", "--format", "csv"),
        ("export", "reflections"),
        ("reflect", "list", "--limit", "1000", "--json"),
        ("reflect", "list", "--limit", "1000"),
    ],
)
def test_a_terminal_never_receives_control_characters(demo, args: tuple[str, ...]) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    shown = on_terminal(*args, "-C", str(root))
    text = shown.decode("utf-8")
    assert len(text) > 1000
    assert "\x1b" not in text and "\x9b" not in text and "\x07" not in text
    assert not any("\x80" <= c <= "\x9f" or c in "\u202e\u2066" for c in text)


def test_export_out_is_atomic(demo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    where = tmp_path / "exports"
    where.mkdir()
    out = where / "keep.json"
    out.write_text("previous export\n")
    out.chmod(0o640)
    holder = sqlite3.connect(agent_db(root), isolation_level=None)
    holder.execute("PRAGMA locking_mode=EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        failed = limited_run(
            "export", "proposals", "-C", str(root), "--out", str(out),
            env={"BRAINVIEW_BUSY_TIMEOUT": "0.2"},
        )  # fmt: skip
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert failed.returncode == int(ExitCode.LOCKED), failed.stderr
    assert out.read_text() == "previous export\n"
    assert sorted(p.name for p in where.iterdir()) == ["keep.json"]
    # A write that fails half-way (the file-size limit hits after some rows): untouched.
    kept = cli("export", "decisions", "-C", str(root), "--out", str(out))  # no --force
    assert kept.returncode == int(ExitCode.CONFLICT) and "--force" in kept.stderr
    assert out.read_text() == "previous export\n"
    half = limited_run(
        "export", "reflections", "-C", str(root), "--out", str(out), "--force",
        max_file_bytes=60_000,
    )  # fmt: skip
    assert half.returncode == int(ExitCode.INTERNAL) and "Traceback" not in half.stderr
    assert "File too large" in half.stderr and len(half.stderr.splitlines()) == 1
    assert out.read_text() == "previous export\n"
    assert sorted(p.name for p in where.iterdir()) == ["keep.json"]
    nodir = cli("export", "decisions", "-C", str(root), "--out", str(where / "no" / "x.csv"))
    assert nodir.returncode == int(ExitCode.NOT_FOUND)
    assert cli("export", "decisions", "-C", str(root), "--out", str(out), "--force").returncode == 0
    assert json.loads(out.read_text()) == []
    assert out.stat().st_mode & 0o777 == 0o640  # the replaced file keeps its mode


def test_reflect_list_pages_filters_and_shape(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    retired = sql(
        root,
        "SELECT id FROM neuron WHERE type='reflection' AND retired_at IS NULL ORDER BY id LIMIT 1",
    )[0][0]
    conn = sqlite3.connect(agent_db(root))
    conn.execute("UPDATE neuron SET retired_at = ? WHERE id = ?", (DEMO_NOW.isoformat(), retired))
    conn.commit()
    conn.close()
    live = [
        r[0]
        for r in sql(
            root, "SELECT id FROM neuron WHERE type='reflection' AND retired_at IS NULL ORDER BY id"
        )
    ]
    seen, after = [], None
    while True:
        out = cli(
            "reflect",
            "list",
            "-C",
            str(root),
            "--limit",
            "60",
            "--json",
            *(["--after", after] if after else []),
        )
        assert out.returncode == 0, out.stderr
        page = json.loads(out.stdout)
        assert set(page) == {"reflections", "count", "total", "next_after", "now"}
        assert page["total"] == len(live)
        seen += [r["id"] for r in page["reflections"]]
        after = page["next_after"]
        if after is None:
            break
    assert seen == live
    row = page["reflections"][0]
    assert list(row) == [*COLUMNS["reflections"], "display", "titles"]
    assert 0.0 <= row["retrievability"] <= 1.0 and row["status"] == "live"
    gone = json.loads(
        cli("reflect", "list", "-C", str(root), "--status", "retired", "--json").stdout
    )
    assert [r["id"] for r in gone["reflections"]] == sorted([retired, *info.superseded_ids])
    assert {r["status"] for r in gone["reflections"]} == {"retired"}
    tutor = json.loads(cli("reflect", "list", "-C", str(root), "--skill", "tutor", "--json").stdout)
    n_tutor = sql(
        root,
        "SELECT COUNT(*) FROM neuron WHERE type='reflection' AND domain='tutor' "
        "AND retired_at IS NULL",
    )[0][0]
    assert tutor["total"] == n_tutor and {r["skill"] for r in tutor["reflections"]} == {"tutor"}
    policies = json.loads(
        cli("reflect", "list", "-C", str(root), "--type", "policy", "--json").stdout
    )
    assert policies["total"] == 2 + (info.orphan_policy_id is not None)
    assert cli("reflect", "list", "-C", str(root), "--limit", "0").returncode == 2


def test_reflect_inspect_shape_refs_and_hostile_text(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    rid = info.reflection_ids[0]
    out = cli("reflect", "inspect", rid, "-C", str(root), "--json", "--spikes", "3")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    for key in ("card", "recent_spikes", "synapses", "refs", "grades", "influenced", "origin"):
        assert key in data
    spikes = sql(root, "SELECT COUNT(*) FROM spike WHERE neuron_id = ?", rid)[0][0]
    assert data["spikes"] == spikes and len(data["recent_spikes"]) == min(3, spikes)
    assert (
        data["card"]["card_json"]
        == sql(root, "SELECT card_json FROM fsrs_state WHERE neuron_id = ?", rid)[0][0]
    )
    assert [r["neuron_id"] for r in data["refs"]] and all(
        r["status"] in ("live", "retired", "dangling") for r in data["refs"]
    )
    for hostile in info.adversarial_ids:
        human = cli("reflect", "inspect", hostile, "-C", str(root))
        assert human.returncode == 0, human.stderr
        assert "\x1b" not in human.stdout and "\x9b" not in human.stdout
    missing = cli("reflect", "inspect", "r-nope", "-C", str(root), "--json")
    assert missing.returncode == int(ExitCode.NOT_FOUND)
    assert json.loads(missing.stderr)["exit_code"] == 3
