"""The CLI on brains built by the real Spikuit 0.7.1 (``spikuit_core``): every step a
real process — propose, list, show, accept (applied the way Spikuit would; ``spkt``
still reads the brain), reflect inspect with real ``[user:…]`` refs, undo, export,
communities, a real consolidation plan imported with ``--from-spkt-plan``, and hostile
text kept inert."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from test_cli import agent_db, dump, run, sql, user_db

from brainview.errors import ExitCode
from tests.compat.spikuit_builder import build_spikuit_project
from tests.project_copy import copy_project

pytestmark = pytest.mark.compat

NOW = {"BRAINVIEW_NOW": (datetime.now(UTC) + timedelta(minutes=5)).isoformat()}
SPKT = Path(sys.executable).parent / "spkt"
PLAN = Path(__file__).resolve().parents[1] / "compat" / "data" / "consolidate_plan_example.json"
CHANGE_LOG = {"changeset", "event"}


@pytest.fixture(scope="module")
def templates(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, dict]]:
    base = tmp_path_factory.mktemp("spikuit-cli")
    hostile = build_spikuit_project(base / "hostile", hostile=True)
    plain = build_spikuit_project(base / "plain", seed=7, n_neurons=40)
    return {"hostile": (base / "hostile", hostile), "plain": (base / "plain", plain)}


def copy(templates: dict, name: str, tmp_path: Path) -> tuple[Path, dict]:
    src, built = templates[name]
    dst = tmp_path / name
    copy_project(src, dst)
    return dst, built


def ok(*args: str) -> Any:
    out = run(*args, "--json", env=NOW)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_propose_accept_inspect_undo_on_a_real_brain(templates, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root, built = copy(templates, "hostile", tmp_path)
    live = [r[0] for r in sql(user_db(root), "SELECT id FROM neuron WHERE retired_at IS NULL "
                                              "AND domain = 'math' ORDER BY id")]  # fmt: skip
    refl = [r[0] for r in sql(agent_db(root), "SELECT id FROM neuron WHERE retired_at IS NULL "
                                               "AND type = 'reflection' ORDER BY id")]  # fmt: skip
    assert ok("stats", str(root))["user"]["era"] == "0.7"
    doc = {
        "id": "p-real",
        "kind": "merge_neurons",
        "params": {"keep": live[0], "merge": [live[1]]},
        "rationale": "duplicates",
        "consulted": [{"reflection": refl[0], "stance": "support"}],
        "retrieved": [refl[1]],
    }
    f = tmp_path / "p.json"
    f.write_text(json.dumps(doc))
    assert ok("propose", str(f), "-C", str(root))["count"] == 1
    assert [p["id"] for p in ok("proposals", "list", "-C", str(root))["proposals"]] == ["p-real"]
    shown = ok("proposals", "show", "p-real", "-C", str(root))
    assert {n["id"] for n in shown["neurons"]} == {live[0], live[1]} and shown["stale"] is None
    agent_before, user_before = dump(agent_db(root)), dump(user_db(root), CHANGE_LOG)

    decided = ok("proposals", "accept", "p-real", "-C", str(root))["decisions"][0]
    assert decided["apply_state"] == "applied"
    assert [(g["reflection"], g["grade_name"]) for g in decided["grades"]] == [(refl[0], "strong")]
    merged = sql(user_db(root), "SELECT retired_at FROM neuron WHERE id = ?", live[1])[0][0]
    assert merged is not None
    assert sql(user_db(root), "SELECT parent_id FROM neuron_predecessor WHERE child_id = ?",
               live[0]) == [(live[1],)]  # fmt: skip
    spkt = subprocess.run(
        [str(SPKT), "stats", "--json", "--brain", str(root)], capture_output=True, text=True
    )
    assert spkt.returncode == 0, spkt.stderr
    assert json.loads(spkt.stdout)["neurons"] == len(
        sql(user_db(root), "SELECT id FROM neuron WHERE retired_at IS NULL")
    )
    inspected = ok("reflect", "inspect", refl[0], "-C", str(root))
    assert [g["proposal_id"] for g in inspected["grades"]] == ["p-real"]

    undone = ok("proposals", "undo", "--last", "-C", str(root))
    assert undone["user_rows_restored"] > 0
    assert dump(user_db(root), CHANGE_LOG) == user_before
    after = dump(agent_db(root))
    assert {k: v for k, v in after.items() if k != "brainview_proposal"} == {
        k: v for k, v in agent_before.items() if k != "brainview_proposal"
    }


def test_reflections_refs_export_and_hostile_text(templates, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root, built = copy(templates, "hostile", tmp_path)
    ids = built["agent"]["ids"]
    listed = ok("reflect", "list", "-C", str(root), "--status", "all", "--limit", "1000")
    assert listed["total"] == len(
        sql(agent_db(root), "SELECT id FROM neuron WHERE type='reflection'")
    )
    for user_id, status in ((ids["dangling_ref"], "dangling"), (ids["retired_ref"], "retired")):
        rid = next(a for a, users in ids["refs"].items() if user_id in users)
        refs = ok("reflect", "inspect", rid, "-C", str(root))["refs"]
        assert {"neuron_id": user_id, "status": status} in [
            {"neuron_id": r["neuron_id"], "status": r["status"]} for r in refs
        ]
    hostile = [
        rid
        for rid, content in sql(agent_db(root), "SELECT id, content FROM neuron")
        if "\x1b" in content or "\x9b" in content
    ]
    assert hostile
    for rid in hostile:
        human = run("reflect", "inspect", rid, "-C", str(root), env=NOW)
        assert human.returncode == 0, human.stderr
        assert "\x1b" not in human.stdout and "\x9b" not in human.stdout
    exported = run("export", "reflections", "-C", str(root), "--format", "csv", env=NOW)
    assert exported.returncode == 0 and "\x1b" in exported.stdout  # verbatim in a pipe
    assert ok("communities", "list", "-C", str(root))["total"] >= 1
    assert ok("reflect", "fading", "-C", str(root))["days"] == 14


def test_a_real_consolidation_plan_imports_item_by_item(templates, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root, _ = copy(templates, "plain", tmp_path)
    items = json.loads(PLAN.read_text())
    n_items = sum(items["summary"][k] for k in items["summary"])
    dry = ok("propose", str(PLAN), "--from-spkt-plan", "--dry-run", "-C", str(root))
    assert dry["dry_run"] is True and dry["count"] > 0
    assert sql(
        agent_db(root), "SELECT name FROM sqlite_master WHERE name='brainview_proposal'"
    ) in (
        [],
        [("brainview_proposal",)],
    )
    done = ok("propose", str(PLAN), "--from-spkt-plan", "-C", str(root))
    assert done["count"] == dry["count"] and done["count"] <= n_items
    assert {p["skill"] for p in done["proposals"]} == {"consolidate"}
    assert all(p["id"].startswith("spkt-") for p in done["proposals"])
    queued = ok("proposals", "list", "-C", str(root), "--skill", "consolidate", "--limit", "1000")
    assert queued["total"] == done["count"]
    again = run("propose", str(PLAN), "--from-spkt-plan", "-C", str(root), env=NOW)
    assert again.returncode == int(ExitCode.INVALID_INPUT) and len(again.stderr.splitlines()) == 1
    other, _ = copy(templates, "hostile", tmp_path)
    stale = run("propose", str(PLAN), "--from-spkt-plan", "-C", str(other), env=NOW)
    assert stale.returncode == int(ExitCode.INVALID_INPUT) and "state_hash" in stale.stderr
