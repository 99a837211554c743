"""``brainview reflect challenge|invalidate|reinstate|undo|fading``, ``communities`` and
``proposals dismiss`` on demo brains: rows written, exact undo, shapes, exit codes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from test_cli import agent_db, cli, fresh, ok_json, run, sql

from brainview.errors import ExitCode

DATA = ("neuron", "synapse", "spike", "fsrs_state", "changeset", "event", "brainview_proposal")
"""What a lifecycle batch may change (its own audit tables only grow)."""


def data_rows(root: Path) -> dict[str, list[tuple[Any, ...]]]:
    return {t: sorted(sql(agent_db(root), f"SELECT * FROM {t}"), key=repr) for t in DATA}


def refl(root: Path, n: int) -> list[str]:
    return [
        r[0]
        for r in sql(agent_db(root), "SELECT id FROM neuron WHERE type='reflection' ORDER BY id")
    ][:n]


def test_invalidate_then_undo_restores_every_row(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    a, b = refl(root, 2)
    before = data_rows(root)
    out = ok_json("reflect", "invalidate", a, b, "--reason", "planted", "-C", str(root))
    assert [c["to"] for c in out["changed"]] == ["invalidated", "invalidated"]
    assert out["synapses"] > 0 and out["batch_id"].startswith("lcb-")
    retired = sql(agent_db(root), "SELECT retired_at FROM neuron WHERE id IN (?, ?)", a, b)
    assert all(r[0] is not None for r in retired)
    listed = ok_json("reflect", "list", "-C", str(root), "--status", "retired")
    # (the demo also holds superseded reflections, retired long ago)
    assert {(r["id"], r["state"]) for r in listed["reflections"] if r["id"] in (a, b)} == {
        (a, "invalidated"),
        (b, "invalidated"),
    }
    undone = ok_json("reflect", "undo", out["batch_id"], "-C", str(root))
    assert sorted(undone["reflections"]) == sorted([a, b]) and undone["rows_restored"] > 0
    after = data_rows(root)
    log = ("changeset", "event")  # Spikuit's change log only grows: the undo adds a changeset
    assert {t: after[t] for t in DATA if t not in log} == {
        t: before[t] for t in DATA if t not in log
    }
    tags = sorted(r[1] for r in after["changeset"])
    assert tags == ["brainview.invalidate", "brainview.undo"]
    again = cli("reflect", "undo", out["batch_id"], "-C", str(root))
    assert again.returncode == int(ExitCode.CONFLICT)


def test_challenge_reinstate_and_refusals(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    (a,) = refl(root, 1)
    no_reason = cli("reflect", "challenge", a, "-C", str(root))
    assert no_reason.returncode == int(ExitCode.USAGE) and "--reason" in no_reason.stderr
    done = ok_json(
        "reflect", "challenge", a, "--reason", "suspicious", "--actor", "eve", "-C", str(root)
    )
    assert done["actor"] == "eve" and done["changed"][0]["to"] == "challenged"
    history = ok_json("reflect", "inspect", a, "-C", str(root))["lifecycle_history"]
    assert [(h["state"], h["actor"], h["reason"]) for h in history] == [
        ("challenged", "eve", "suspicious")
    ]
    twice = cli("reflect", "challenge", a, "--reason", "again", "-C", str(root), "--json")
    assert twice.returncode == int(ExitCode.CONFLICT)
    assert json.loads(twice.stderr)["error"] == "conflict"
    back = ok_json("reflect", "reinstate", a, "-C", str(root))
    assert back["changed"][0]["to"] == "live"
    missing = cli("reflect", "invalidate", "r-nope", "--reason", "x", "-C", str(root))
    assert missing.returncode == int(ExitCode.NOT_FOUND)
    assert cli("reflect", "undo", "-C", str(root)).returncode == int(ExitCode.USAGE)


def test_ids_from_stdin_in_a_real_process(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    ids = refl(root, 3)
    out = subprocess_with_stdin(
        ["reflect", "challenge", "-", "--reason", "blast radius", "-C", str(root), "--json"],
        "\n".join(ids) + "\n",
    )
    assert out.returncode == 0, out.stderr
    assert [c["reflection"] for c in json.loads(out.stdout)["changed"]] == ids


def subprocess_with_stdin(args: list[str], text: str) -> Any:
    import os
    import subprocess
    import sys

    from test_cli import ENV

    return subprocess.run(
        [sys.executable, "-m", "brainview", *args],
        input=text,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **ENV},
    )


def test_fading_lists_reflections_crossing_the_threshold(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    data = ok_json("reflect", "fading", "-C", str(root), "--days", "30", "--threshold", "0.8")
    assert data["threshold"] == 0.8 and data["days"] == 30 and data["count"] == data["total"]
    assert data["reflections"], "the demo has fading reflections"
    days = [r["crossing_days"] for r in data["reflections"]]
    assert days == sorted(days) and all(0 < d <= 30 for d in days)
    assert all(r["retrievability"] >= 0.8 for r in data["reflections"])
    narrow = ok_json("reflect", "fading", "-C", str(root), "--days", "2", "--threshold", "0.8")
    assert narrow["total"] == sum(d <= 2 for d in days)
    assert cli("reflect", "fading", "-C", str(root), "--threshold", "2").returncode == 2
    (root / ".spikuit" / "brainview.toml").write_text("[reflections]\nfading_days = 30\n")
    assert ok_json("reflect", "fading", "-C", str(root), "--threshold", "0.8")["days"] == 30


def test_communities_list_and_show(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    data = ok_json("communities", "list", "-C", str(root))
    live = sql(
        agent_db(root),
        "SELECT COUNT(*) FROM neuron WHERE type='reflection' AND retired_at IS NULL",
    )[0][0]
    assert sum(c["size"] for c in data["communities"]) == live
    assert data["total"] == data["count"] >= len(info.themes) // 2
    first = data["communities"][0]
    assert set(first) >= {"community", "label", "size", "skills", "mean_retrievability"}
    members = ok_json("communities", "show", str(first["community"]), "-C", str(root))
    assert members["total"] == first["size"] == len(members["members"])
    assert cli("communities", "show", "999", "-C", str(root)).returncode == int(ExitCode.NOT_FOUND)
    by_miss = ok_json("communities", "list", "-C", str(root), "--sort", "misses", "--limit", "3")
    assert by_miss["count"] == 3


def test_dismiss_records_the_stale_reason_and_grades_nobody(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    stale = info.stale_proposal_ids[0]
    refused = cli("proposals", "accept", stale, "-C", str(root))
    assert refused.returncode == int(ExitCode.CONFLICT) and "stale" in refused.stderr
    data = ok_json("proposals", "dismiss", stale, "-C", str(root))
    assert data["decisions"][0]["grades"] == []
    reason = sql(agent_db(root), "SELECT reason FROM brainview_decision")[0][0]
    assert reason.startswith("stale: ")
    assert sql(agent_db(root), "SELECT COUNT(*) FROM brainview_grade")[0][0] == 0
    listed = ok_json("proposals", "list", "-C", str(root), "--status", "dismissed")
    assert [p["id"] for p in listed["proposals"]] == [stale]
    two = ok_json("proposals", "dismiss", *fresh(info)[:2], "--reason", "later", "-C", str(root))
    assert len(two["decisions"]) == 2
    human = run("proposals", "dismiss", "prop-nope", "-C", str(root))
    assert human.returncode == int(ExitCode.NOT_FOUND) and "Traceback" not in human.stderr
