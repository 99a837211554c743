"""Every JSON output is strict JSON, whatever the brain holds.

The project first meets hostile input — proposals with ``1e400``, ``-1e400``, ``NaN``,
``Infinity``, a 5,000-digit integer: all refused, nothing written — and then values a
brain written by an older version (or by hand) may hold: ``Infinity`` and ``1e400`` in a
pending proposal's ``params_json`` and ``NaN``/``Infinity`` in a reflection's card.
Every command that has ``--json`` (found by walking the parser, so a new one cannot be
missed) and every ``export`` format is then parsed by a strict parser (no ``NaN``,
``Infinity`` or ``-Infinity``).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest
from test_cli import agent_db, cli, fresh, sql
from test_cli_every_command import SUBCOMMANDS, _case

from brainview.commands.tree import build_parser
from brainview.errors import ExitCode

HOSTILE_NUMBERS = ["1e400", "-1e400", "NaN", "Infinity", "-Infinity", "1E+999", "9" * 5000]


def strict(text: str) -> Any:
    """``json.loads`` that refuses NaN and the infinities."""

    def refuse(name: str) -> Any:
        raise ValueError(f"non-strict JSON constant {name}")

    return json.loads(text, parse_constant=refuse)


def json_commands() -> set[str]:
    """Every subcommand with a ``--json`` flag."""
    found: set[str] = set()

    def walk(parser: argparse.ArgumentParser, words: list[str]) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, [*words, name])
        if any("--json" in a.option_strings for a in parser._actions):
            found.add(" ".join(words))

    walk(build_parser(), [])
    return found


def hostile_then_planted(root: Path, info: Any, tmp: Path) -> None:
    """Hostile numbers refused (nothing written), then non-finite values planted."""
    before = sql(agent_db(root), "SELECT COUNT(*) FROM brainview_proposal")
    for k, number in enumerate(HOSTILE_NUMBERS):
        f = tmp / f"h{k}.json"
        f.write_text('{"kind": "note", "params": {"x": ' + number + "}}")
        out = cli("propose", str(f), "-C", str(root))
        assert out.returncode == int(ExitCode.INVALID_INPUT), out.stderr
        assert len(out.stderr.strip().splitlines()) == 1
        assert "set_int_max_str_digits" not in out.stderr
    assert sql(agent_db(root), "SELECT COUNT(*) FROM brainview_proposal") == before
    import sqlite3

    conn = sqlite3.connect(agent_db(root))
    pid = fresh(info)[1]
    (params,) = conn.execute(
        "SELECT params_json FROM brainview_proposal WHERE id = ?", (pid,)
    ).fetchone()
    planted = params[:-1] + ', "inf": Infinity, "big": 1e400, "nan": NaN}'
    conn.execute("UPDATE brainview_proposal SET params_json = ? WHERE id = ?", (planted, pid))
    rid = info.reflection_ids[1]
    (card,) = conn.execute(
        "SELECT card_json FROM fsrs_state WHERE neuron_id = ?", (rid,)
    ).fetchone()
    card = json.loads(card) | {"difficulty": float("nan"), "stability": float("inf")}
    conn.execute("UPDATE fsrs_state SET card_json = ? WHERE neuron_id = ?", (json.dumps(card), rid))
    conn.commit()
    conn.close()


CASES = [*SUBCOMMANDS, "stats"]


def test_every_json_command_is_covered() -> None:
    covered = {
        c.removesuffix(" --dry-run").removesuffix(" --no-log")
        for c in CASES
        if not c.startswith("export")
    }
    assert json_commands() == covered | {"simulate"}  # simulate: its own test below


def test_simulate_json_is_strict() -> None:
    """``simulate`` takes no project: one arm, one seed, two weeks, tiny, parsed strictly."""
    out = cli(
        *("simulate", "--arms", "off", "--seeds", "1", "--weeks", "2", "--user-neurons", "60"),
        "--json",
    )
    assert out.returncode == 0, out.stderr
    strict(out.stdout)


@pytest.mark.parametrize("name", CASES)
def test_json_output_is_strict(make_demo, tmp_path: Path, name: str) -> None:  # type: ignore[no-untyped-def]
    root, info = make_demo()
    hostile_then_planted(root, info, tmp_path)
    if name == "stats":
        argv: list[str] = ["stats"]
    else:
        argv, _check = _case(name, root, info)
    if argv[0] == "export":
        for fmt in ("json", "jsonl"):
            out = cli(*argv, "-C", str(root), "--format", fmt)
            assert out.returncode == 0, out.stderr
            lines = [out.stdout] if fmt == "json" else out.stdout.splitlines()
            for line in lines:
                strict(line)
        return
    out = cli(*argv, "-C", str(root), "--json")
    assert out.returncode == 0, out.stderr
    strict(out.stdout)


def test_planted_non_finite_params_read_back_as_null(make_demo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root, info = make_demo()
    hostile_then_planted(root, info, tmp_path)
    pid = fresh(info)[1]
    shown = strict(cli("proposals", "show", pid, "-C", str(root), "--json").stdout)
    assert {k: shown["params"][k] for k in ("inf", "big", "nan")} == dict.fromkeys(
        ("inf", "big", "nan")
    )
    listed = strict(cli("proposals", "list", "-C", str(root), "--json", "--limit", "100").stdout)
    (row,) = [r for r in listed["proposals"] if r["id"] == pid]
    assert row["params"]["inf"] is None and row["stale"] == "params no longer valid"
