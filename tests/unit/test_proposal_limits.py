"""Numbers and sizes bounded (issue #15): every limit of ``docs/proposal-format.md``
refused with one line naming the field and the limit; non-finite numbers refused however
written; and listings that cost the same whatever a brain already holds.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from test_cli import agent_db, cli, fresh, sql

from brainview.core import proposal_rules as rules
from brainview.demo.generator import DEMO_NOW
from brainview.errors import ExitCode, InvalidInputError
from brainview.services.intake import parse_batch
from brainview.services.project import Project
from brainview.services.review import queue
from brainview.store.discovery import discover

NOTE = {"kind": "note"}
NESTED: dict[str, Any] = {}
_node = NESTED
for _ in range(16):
    _node["a"] = {}
    _node = _node["a"]


def _big_proposal() -> dict[str, Any]:
    """Under every per-field limit, over the whole-proposal one."""
    return {
        "kind": "note",
        "params": {f"blob{i}": "x" * 199_000 for i in range(5)},
        "rationale": "😀" * 100_000,
        "consulted": [{"reflection": f"r-{i}", "note": "n" * 2_000} for i in range(500)],
    }


LIMITS: dict[str, tuple[Any, str]] = {
    "note": (
        {**NOTE, "consulted": [{"reflection": "r-1", "note": "x" * 2_001}]},
        "proposal[0].consulted[0].note: longer than 2000 characters",
    ),
    "rationale": (
        {**NOTE, "rationale": "x" * 100_001},
        "proposal[0].rationale: longer than 100000 characters",
    ),
    "params bytes": (
        {**NOTE, "params": {f"k{i}": "x" * 150_000 for i in range(8)}},
        "proposal[0].params: 1200065 bytes, over the 1048576-byte limit",
    ),
    "params keys": (
        {**NOTE, "params": {f"k{i}": i for i in range(20_001)}},
        "proposal[0].params: more than 20000 keys and items in all",
    ),
    "params items": (
        {**NOTE, "params": {"list": [0] * 20_000}},
        "proposal[0].params.list: more than 20000 keys and items in all",
    ),
    "params depth": (
        {**NOTE, "params": NESTED},
        "proposal[0].params" + ".a" * 16 + ": nested deeper than 16 levels",
    ),
    "params string": (
        {**NOTE, "params": {"s": "x" * 200_001}},
        "proposal[0].params.s: longer than 200000 characters",
    ),
    "infinity": (
        {**NOTE, "params": {"x": float("inf")}},
        "proposal[0].params.x: must be a finite number",
    ),
    "minus infinity": (
        {"kind": "prune_reflection", "params": {"reflection": "r", "retrievability": -1e999}},
        "proposal[0].params.retrievability: must be a finite number",
    ),
    "nan deep": (
        {**NOTE, "params": {"basis": {"stability": [1.0, float("nan")]}}},
        "proposal[0].params.basis.stability[1]: must be a finite number",
    ),
    "huge integer": (
        {**NOTE, "params": {"n": 2**53}},
        "proposal[0].params.n: integer outside ±9007199254740991",
    ),
    "community out of range": (
        {"kind": "summarize_community",
         "params": {"policy": "p", "members": ["r-1"], "text": "t", "community": -(2**60)}},
        "proposal[0].params.community: integer outside ±9007199254740991",
    ),  # fmt: skip
    "not a JSON value": (
        {**NOTE, "params": {"x": {1, 2}}},
        "proposal[0].params.x: must be a JSON value",
    ),
    "reflection id": (
        {**NOTE, "retrieved": ["r" * 257]},
        "proposal[0].retrieved[0]: must be a reflection id of at most 256 characters",
    ),
    "consulted": (
        {**NOTE, "consulted": [f"r-{i}" for i in range(501)]},
        "proposal[0].consulted: more than 500 reflections",
    ),
    "created_at": (
        {**NOTE, "created_at": "2026-11-29T14:05:00" + " " * 60},
        "proposal[0].created_at: must be an ISO 8601 timestamp",
    ),
    "whole proposal": (_big_proposal(), "proposal[0]: 2411500 bytes, over the 2097152-byte limit"),
    "batch count": ([NOTE] * 10_001, "batch of 10001 proposals exceeds 10000"),
    "batch bytes": (
        [{**NOTE, "rationale": "x" * 100_000, "params": {f"b{i}": "y" * 199_000 for i in range(5)}}]
        * 48,
        "batch larger than the 52428800-byte limit",
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(LIMITS))
def test_each_limit_is_refused_naming_the_field_and_the_limit(case: str) -> None:
    value, expected = LIMITS[case]
    with pytest.raises(InvalidInputError) as err:
        parse_batch(value, DEMO_NOW)
    assert err.value.message.startswith(expected), err.value.message
    assert "\n" not in err.value.message


def test_just_under_the_limits_is_accepted() -> None:
    parse_batch(
        {
            **NOTE,
            "rationale": "x" * 100_000,
            "consulted": [{"reflection": "r" * 256, "note": "n\n" * 1_000}],
            "params": {"k": [0] * 19_900, "n": -(2**53 - 1), "f": 1e308, "deep": NESTED["a"]["a"]},
        },
        DEMO_NOW,
    )


@pytest.mark.parametrize(
    ("number", "message"),
    [
        ("1e400", "input: number 1e400 is out of range (not finite)"),
        ("-1e400", "input: number -1e400 is out of range (not finite)"),
        ("1E+999", "input: number 1E+999 is out of range (not finite)"),
        ("-0.5e99999", "input: number -0.5e99999 is out of range (not finite)"),
        ("NaN", "input: NaN is not valid JSON"),
        ("-Infinity", "input: -Infinity is not valid JSON"),
        ("9" * 5000, "input: an integer of 5000 digits is out of range"),
        ("9" * 21, "input: an integer of 21 digits is out of range"),
        ("9007199254740992", "proposal[0].params.x: integer outside ±9007199254740991"),
    ],
)
def test_cli_refuses_non_finite_and_huge_numbers_however_written(
    demo, tmp_path: Path, number: str, message: str
) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    before = sql(agent_db(root), "SELECT COUNT(*) FROM brainview_proposal")
    f = tmp_path / "p.json"
    f.write_text('{"kind": "note", "params": {"x": ' + number + "}}")
    out = cli("propose", str(f), "-C", str(root))
    assert out.returncode == int(ExitCode.INVALID_INPUT)
    assert out.stderr.strip().splitlines() == [f"brainview: {message}"]
    assert sql(agent_db(root), "SELECT COUNT(*) FROM brainview_proposal") == before
    f.write_text('{"kind": "note"}\n{"kind": "note", "params": {"x": ' + number + "}}\n")
    out = cli("propose", str(f), "-C", str(root))
    assert out.returncode == int(ExitCode.INVALID_INPUT)
    assert "input line 2" in out.stderr or "(input line 2)" in out.stderr


# -- listings stay bounded whatever is stored -------------------------------------------


def plant(root: Path, info: Any) -> tuple[str, str]:
    """What an older version (or sqlite3 by hand) may have stored: a 10 MB note, summary
    and rationale on one pending proposal, a 5 MB params object (300,000 keys) on
    another, a 10 MB decision reason."""
    big_text, noted = fresh(info)[2], fresh(info)[3]
    conn = sqlite3.connect(agent_db(root))
    (params,) = conn.execute(
        "SELECT params_json FROM brainview_proposal WHERE id = ?", (big_text,)
    ).fetchone()
    huge = json.loads(params) | {f"k{i}": i for i in range(300_000)}
    conn.execute(
        "UPDATE brainview_proposal SET params_json = ? WHERE id = ?", (json.dumps(huge), big_text)
    )
    ten = "x" * 10_000_000
    conn.execute(
        "UPDATE brainview_proposal SET rationale = ?, summary = ? WHERE id = ?", (ten, ten, noted)
    )
    conn.execute("UPDATE brainview_consult SET note = ? WHERE proposal_id = ?", (ten, noted))
    conn.commit()
    conn.close()
    return big_text, noted


def test_listing_reads_bounded_columns_whatever_is_stored(make_demo) -> None:  # type: ignore[no-untyped-def]
    root, info = make_demo()
    big, noted = plant(root, info)
    decided = fresh(info)[0]
    assert cli("proposals", "reject", decided, "--reason", "no", "-C", str(root)).returncode == 0
    conn = sqlite3.connect(agent_db(root))
    conn.execute("UPDATE brainview_decision SET reason = ?", ("r" * 10_000_000,))
    conn.commit()
    conn.close()

    out = cli("proposals", "list", "--status", "all", "--json", "-C", str(root))
    assert out.returncode == 0, out.stderr
    assert len(out.stdout) < 500_000  # ~30 MB are stored
    rows = {r["id"]: r for r in json.loads(out.stdout)["proposals"]}
    assert rows[big]["params"] is None
    assert rows[big]["stale"].startswith("params too large to check (")
    assert rows[noted]["summary"].endswith("… [9999000 more characters not shown]")
    assert rows[decided]["decision"]["reason"].endswith("[9990000 more characters not shown]")

    shown = json.loads(cli("proposals", "show", noted, "--json", "-C", str(root)).stdout)
    assert len(json.dumps(shown)) < 300_000
    assert shown["rationale"].endswith("… [9900000 more characters not shown]")
    assert all(
        c["note"].endswith("[9998000 more characters not shown]") for c in shown["consulted"]
    )
    shown = json.loads(cli("proposals", "show", big, "--json", "-C", str(root)).stdout)
    assert shown["params"] is None and shown["stale"].startswith("params too large")

    stats = json.loads(cli("stats", "--json", "-C", str(root)).stdout)
    assert stats["proposals"]["stale"] >= 1
    out = cli("proposals", "accept", big, "-C", str(root))
    assert out.returncode == int(ExitCode.CONFLICT), out.stderr  # stale: never applied

    with Project.open(discover(root)) as project:
        page, _total = queue.page(project, limit=200)
    row = next(r for r in page if r.id == big)
    assert row.params_json is None and row.stale and row.stale.startswith("params too large")
    assert max(len(r.summary) for r in page) < 2_000


def test_limits_are_documented() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "proposal-format.md").read_text()
    limits = doc.split("## Limits", 1)[1].split("\n## ", 1)[0]
    for value in (
        rules.MAX_NOTE, rules.MAX_RATIONALE, rules.MAX_PARAMS_BYTES, rules.MAX_PARAMS_ENTRIES,
        rules.MAX_PARAMS_DEPTH, rules.MAX_PROPOSAL_BYTES, rules.MAX_BATCH, rules.MAX_CONSULTED,
        rules.MAX_REFLECTION_ID, rules.MAX_INT, rules.MAX_ID, rules.MAX_SKILL,
    ):  # fmt: skip
        assert f"{value:,}" in limits, value


def test_a_config_integer_of_5000_digits_is_one_clear_line(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    config = root / ".spikuit" / "brainview.toml"
    config.write_text("[reflections]\nfading_days = " + "9" * 5_000 + "\n")
    out = cli("reflect", "fading", "-C", str(root))
    assert out.returncode == int(ExitCode.CONFIG)
    assert out.stderr.strip().splitlines() == [
        f"brainview: {config}: not valid TOML (an integer is too long)"
    ]


def test_a_spikuit_plan_file_with_huge_numbers_is_one_clear_line(demo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from brainview.services.intake import spkt_plan

    root, _ = demo
    plan = tmp_path / "plan.json"
    for number, reason in (
        ("9" * 5_000, "an integer of 5000 digits is out of range"),
        ("1e400", "number 1e400 is out of range (not finite)"),
    ):
        plan.write_text('{"state_hash": "abc", "sws": {"latent_synapses": [' + number + "]}}")
        with Project.open(discover(root)) as project, pytest.raises(InvalidInputError) as err:
            spkt_plan.import_plan_file(project, plan)
        assert err.value.message == f"plan: not valid JSON ({reason})"


def test_a_proposals_size_is_its_compact_json_however_its_fields_are_ordered() -> None:
    """The size is measured without serializing the params twice: it must still be the
    exact compact UTF-8 JSON of the proposal as given, params first, last or absent."""
    params = {"neurons": ["n-é1", "n-2"], "note": '😀 quoted " and \\ and \n'}
    rest = {"kind": "note", "rationale": "why ✓", "consulted": ["r-1", {"reflection": "r-2"}]}
    shapes = [
        {"params": params, **rest},
        {**rest, "params": params},
        {"kind": "note", "params": params, "rationale": "x"},
        {"kind": "note", "params": {}, "rationale": "x"},
        {"kind": "note", "rationale": "no params"},
    ]
    parsed = parse_batch(shapes, DEMO_NOW)
    for raw, p in zip(shapes, parsed, strict=True):
        assert p.nbytes == rules.json_bytes(raw), raw
