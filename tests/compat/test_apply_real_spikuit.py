"""Applying each kind to a brain built by the real Spikuit 0.7.1, checked by Spikuit.

For every kind, two copies of one builder brain: brainview accepts a proposal on one
(``review.decide`` with the user-brain applier), Spikuit's own ``Circuit`` does the
same operation on the other.  Then:

* the rows agree (neurons, synapses with weights and confidence, lineage, source
  links) — soft-retired where Spikuit retires, nothing deleted;
* brainview's change log has Spikuit's ops, targets and snapshot shapes (the
  snapshots of rows as they were are byte-identical), in one ``human`` changeset
  tagged ``brainview:<proposal id>``;
* the preview shown before accepting is exactly what was applied;
* a fresh ``Circuit`` on brainview's copy reports the same ``stats()``, finds the
  changed neurons with ``get_neuron``, their live synapses with ``list_synapses`` and
  the lineage with ``predecessors_of_lineage``; ``spkt`` itself keeps working on it.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import subprocess
import sys
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from brainview.services import apply, intake, review
from brainview.services.apply import intent as intents
from brainview.services.project import Project
from brainview.services.review import detail
from tests.compat.spikuit_builder import build_spikuit_project
from tests.project_copy import copy_project

pytestmark = pytest.mark.compat
SPKT = Path(sys.executable).parent / "spkt"


def _db(root: Path) -> Path:
    return root / ".spikuit" / "circuit.db"


def spikuit(root: Path, fn: Callable[[Any], Awaitable[Any]]) -> Any:
    """Run ``fn(circuit)`` on a freshly connected real Spikuit Circuit."""
    from spikuit_core import Circuit

    async def run() -> Any:
        circuit = Circuit(db_path=_db(root))
        await circuit.connect()
        try:
            return await fn(circuit)
        finally:
            await circuit.close()

    return asyncio.run(run())


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    root = tmp_path_factory.mktemp("apply") / "proj"
    built = build_spikuit_project(root)
    ids = built["user"]["ids"]
    live = [n for n in ids["regular"] if n not in ids["retired_all"]]

    async def attach(c: Any) -> None:  # a source link on a neuron we will merge away
        (src,) = await c.list_sources()
        await c.attach_source(live[20], src.id)

    spikuit(root, attach)
    return root, built


@pytest.fixture
def pair(template: tuple[Path, dict[str, Any]], tmp_path: Path) -> tuple[Path, Path, dict]:
    root, built = template
    ours, theirs = tmp_path / "brainview", tmp_path / "spikuit"
    copy_project(root, ours)
    copy_project(root, theirs)
    return ours, theirs, built


def live_ids(built: dict[str, Any]) -> list[str]:
    ids = built["user"]["ids"]
    return [n for n in ids["regular"] if n not in ids["retired_all"]]


def rows(root: Path) -> dict[str, Any]:
    """What Spikuit's state is made of, minus wall-clock timestamps."""
    con = sqlite3.connect(_db(root))
    out = {
        "neuron": {
            r[0]: r[1:]
            for r in con.execute(
                "SELECT id, content, type, domain, source, community_id, "
                "retired_at IS NOT NULL FROM neuron"
            )
        },
        "synapse": {
            r[:3]: r[3:]
            for r in con.execute(
                "SELECT pre, post, type, weight, co_fires, last_co_fire, confidence, "
                "confidence_score, retired_at IS NOT NULL FROM synapse"
            )
        },
        "lineage": set(con.execute("SELECT child_id, parent_id FROM neuron_predecessor")),
        "sources": set(con.execute("SELECT neuron_id, source_id FROM neuron_source")),
        "fsrs": dict(con.execute("SELECT neuron_id, card_json FROM fsrs_state")),
    }
    con.close()
    return out


def _norm(text: str | None) -> Any:
    if text is None:
        return None
    value = json.loads(text)
    if isinstance(value, dict):
        value.pop("updated_at", None)
    return value


def events(root: Path, where: str, args: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    con = sqlite3.connect(_db(root))
    out = [
        (op, kind, target, before, _norm(after), created)
        for op, kind, target, before, after, created in con.execute(
            "SELECT e.op, e.target_kind, e.target_id, e.before_json, e.after_json, "
            "json_extract(e.after_json, '$.created_at') FROM event e "
            f"JOIN changeset c ON c.id = e.changeset_id WHERE {where} ORDER BY c.rowid, e.seq",
            args,
        )
    ]
    con.close()
    # A new synapse's created_at is "now" on each side; a copied row's is not.
    return [(*e[:4], {k: v for k, v in (e[4] or {}).items() if k != "created_at"} or e[4])
            for e in out]  # fmt: skip


def changesets(root: Path) -> int:
    con = sqlite3.connect(_db(root))
    n = con.execute("SELECT COUNT(*) FROM changeset").fetchone()[0]
    con.close()
    return int(n)


def accept(root: Path, pid: str, kind: str, params: dict[str, Any]) -> tuple[Any, Any]:
    """Queue one proposal, preview it, accept it with the applier.

    "Now" is taken here: Spikuit stamps wall-clock times while building, and a
    proposal made before a neuron's last change would (rightly) be stale."""
    now = datetime.now(UTC) + timedelta(seconds=1)
    with Project.locate(root, write_agent=True, write_user=True) as p:
        intake.submit(p, [{"id": pid, "kind": kind, "params": params}], now=now)
        shown = detail.load(p, pid, now)
        assert shown.stale is None and shown.plan is not None, shown.change_log
        result = review.decide(
            p, pid, "accept", decider="alice", now=now, applier=apply.applier_for(p.paths)
        )
    assert result.apply_state == "applied"
    return shown, result


def check_against_spikuit(
    ours: Path, theirs: Path, pid: str, kind: str, params: dict[str, Any], op: Any
) -> Any:
    """Apply via brainview and via Spikuit, then compare everything the module doc lists."""
    before_cs = changesets(theirs)
    shown, result = accept(ours, pid, kind, params)
    spikuit(theirs, op)
    mine, spk = rows(ours), rows(theirs)
    assert mine == spk
    ev_ours = events(ours, "c.tag = ? AND c.actor_kind = 'human'", (f"brainview:{pid}",))
    ev_theirs = events(theirs, "c.rowid > ?", (before_cs,))
    if ev_theirs:  # Spikuit logs nothing for rename/merge_domains; brainview logs updates
        assert ev_ours == ev_theirs
    # what the preview showed is what was applied, row for row
    with Project.locate(ours) as p, p.require_agent().read() as conn:
        applied = intents.of_decision(conn, result.decision_id, "apply")
    assert applied is not None and applied.state == "done"
    assert applied.plan.changes == shown.plan.changes
    assert shown.preview == apply.preview_lines(applied.plan)
    con = sqlite3.connect(_db(ours))
    con.row_factory = sqlite3.Row
    for change in applied.plan.changes:
        cols = " AND ".join(
            f"{c} = ?"
            for c in {"neuron": ("id",), "synapse": ("pre", "post", "type")}.get(
                change.table, ("child_id", "parent_id") if change.table == "neuron_predecessor"
                else ("neuron_id", "source_id")
            )
        )  # fmt: skip
        got = con.execute(f"SELECT * FROM {change.table} WHERE {cols}", change.key).fetchone()
        assert dict(got) == change.after
    (cs_actor,) = con.execute(
        "SELECT actor_kind || ':' || actor_id || ':' || status FROM changeset WHERE tag = ?",
        (f"brainview:{pid}",),
    ).fetchone()
    con.close()
    assert cs_actor == "human:alice:committed"
    stats_ours = spikuit(ours, lambda c: c.stats())
    assert stats_ours == spikuit(theirs, lambda c: c.stats())
    return applied.plan


async def _same_neurons(c: Any, plan: Any) -> None:
    for change in plan.changes:
        if change.table != "neuron":
            continue
        found = await c.get_neuron(change.key[0])
        if change.after["retired_at"] is not None:
            assert found is None
            continue
        assert (found.content, found.domain, found.type) == (
            change.after["content"],
            change.after["domain"],
            change.after["type"],
        )
        live = {
            (s.pre, s.post, s.type.value, round(s.weight, 9))
            for s in await c.list_synapses(neuron_id=change.key[0])
        }
        con = sqlite3.connect(c._db.db_path)
        expected = set(
            con.execute(
                "SELECT pre, post, type, round(weight, 9) FROM synapse WHERE "
                "(pre = ? OR post = ?) AND retired_at IS NULL",
                (change.key[0], change.key[0]),
            )
        )
        con.close()
        assert live == expected


# -- one test per kind --------------------------------------------------------------------


def test_merge_neurons_two_sources_like_circuit_merge(pair: tuple[Path, Path, dict]) -> None:
    ours, theirs, built = pair
    live = live_ids(built)
    keep, merged = live[17], [live[20], live[23]]
    plan = check_against_spikuit(
        ours,
        theirs,
        "p-merge",
        "merge_neurons",
        {"keep": keep, "merge": merged},
        lambda c: c.merge_neurons(merged, keep),
    )
    tables = {c.table for c in plan.changes}
    assert {"neuron", "synapse", "neuron_predecessor", "neuron_source"} <= tables
    assert spikuit(ours, lambda c: c.predecessors_of_lineage(keep)) == merged
    spikuit(ours, lambda c: _same_neurons(c, plan))


def test_merge_keep_content_keeps_the_survivor_text(pair: tuple[Path, Path, dict]) -> None:
    ours, _theirs, built = pair
    live = live_ids(built)
    keep, gone = live[2], live[3]
    before = rows(ours)["neuron"][keep][0]
    accept(ours, "p-keep", "merge_neurons", {"keep": keep, "merge": [gone], "content": "keep"})
    after = rows(ours)
    assert after["neuron"][keep][0] == before and after["neuron"][gone][-1] == 1
    assert (keep, gone) in after["lineage"]


def test_retire_neuron_like_remove_neuron(pair: tuple[Path, Path, dict]) -> None:
    ours, theirs, built = pair
    nid = built["user"]["ids"]["hub_summarizes"]
    plan = check_against_spikuit(
        ours, theirs, "p-retire", "retire_neuron", {"neuron": nid}, lambda c: c.remove_neuron(nid)
    )
    assert sum(1 for c in plan.changes if c.table == "synapse") >= 4
    spikuit(ours, lambda c: _same_neurons(c, plan))


@pytest.mark.parametrize("typ", ["requires", "relates_to"])
def test_add_synapse_like_circuit(pair: tuple[Path, Path, dict], typ: str) -> None:
    from spikuit_core import SynapseType

    ours, theirs, built = pair
    live = live_ids(built)
    a, b = live[30], live[35]
    plan = check_against_spikuit(
        ours,
        theirs,
        "p-add",
        "add_synapse",
        {"pre": a, "post": b, "type": typ, "weight": 0.42},
        lambda c: c.add_synapse(a, b, SynapseType(typ), weight=0.42),
    )
    assert len(plan.changes) == (2 if typ == "relates_to" else 1)


def test_remove_bidirectional_synapse_retires_both_rows(pair: tuple[Path, Path, dict]) -> None:
    from spikuit_core import SynapseType

    ours, theirs, _built = pair
    con = sqlite3.connect(_db(ours))
    pre, post = con.execute(
        "SELECT pre, post FROM synapse WHERE type = 'relates_to' AND retired_at IS NULL "
        "ORDER BY rowid LIMIT 1"
    ).fetchone()
    con.close()
    plan = check_against_spikuit(
        ours,
        theirs,
        "p-unlink",
        "remove_synapse",
        {"pre": pre, "post": post, "type": "relates_to"},
        lambda c: c.remove_synapse(pre, post, SynapseType.RELATES_TO),
    )
    assert [c.after["retired_at"] is not None for c in plan.changes] == [True, True]


def test_set_synapse_weight_changes_one_row(pair: tuple[Path, Path, dict]) -> None:
    from spikuit_core import SynapseType

    ours, theirs, built = pair
    w = built["user"]["ids"]["weight_set"]
    plan = check_against_spikuit(
        ours,
        theirs,
        "p-weight",
        "set_synapse_weight",
        {"pre": w["pre"], "post": w["post"], "type": w["type"], "weight": 0.3},
        lambda c: c.set_synapse_weight(w["pre"], w["post"], SynapseType(w["type"]), 0.3),
    )
    assert len(plan.changes) == 1


def test_edit_content_and_set_domain_like_update_neuron(pair: tuple[Path, Path, dict]) -> None:
    ours, theirs, built = pair
    live = live_ids(built)
    nid = live[12]

    async def edit(c: Any) -> None:
        n = await c.get_neuron(nid)
        n.content = "# Edited\n\n[bold]markup stays text[/bold]\ttabbed"
        await c.update_neuron(n)

    check_against_spikuit(
        ours,
        theirs,
        "p-edit",
        "edit_content",
        {"neuron": nid, "content": "# Edited\n\n[bold]markup stays text[/bold]\ttabbed"},
        edit,
    )
    other = live[15]

    async def move(c: Any) -> None:
        n = await c.get_neuron(other)
        n.domain = "algebra"
        await c.update_neuron(n)

    check_against_spikuit(
        ours, theirs, "p-move", "set_domain", {"neurons": [other], "domain": "algebra"}, move
    )


def test_rename_and_merge_domains_like_circuit(pair: tuple[Path, Path, dict]) -> None:
    ours, theirs, _built = pair
    check_against_spikuit(
        ours,
        theirs,
        "p-rename",
        "rename_domain",
        {"old": "math", "new": "mathematics"},
        lambda c: c.rename_domain("math", "mathematics"),
    )
    plan = check_against_spikuit(
        ours,
        theirs,
        "p-domains",
        "merge_domains",
        {"sources": ["french", "history"], "target": "humanities"},
        lambda c: c.merge_domains(["french", "history"], "humanities"),
    )
    # Spikuit renames retired rows too, and logs nothing; brainview logs each row.
    assert any(c.before["retired_at"] is not None for c in plan.changes)
    assert len(plan.events) == len(plan.changes)


def test_note_applies_nothing(pair: tuple[Path, Path, dict]) -> None:
    ours, _theirs, built = pair
    snapshot, n = rows(ours), changesets(ours)
    shown, result = accept(ours, "p-note", "note", {"neurons": [live_ids(built)[1]]})
    assert shown.preview == [] and rows(ours) == snapshot and changesets(ours) == n


def test_spkt_cli_keeps_working_after_a_merge(pair: tuple[Path, Path, dict]) -> None:
    ours, _theirs, built = pair
    live = live_ids(built)
    keep, gone = live[26], live[29]
    accept(ours, "p-cli", "merge_neurons", {"keep": keep, "merge": [gone]})
    stats = subprocess.run(
        [str(SPKT), "stats", "--json", "--brain", str(ours)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert stats.returncode == 0, stats.stderr
    assert (
        json.loads(stats.stdout)["neurons_retired"] == len(built["user"]["ids"]["retired_all"]) + 1
    )
    inspect = subprocess.run(
        [str(SPKT), "neuron", "inspect", keep, "--json", "--brain", str(ours)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert inspect.returncode == 0, inspect.stderr
    assert "\n\n---\n\n" in json.loads(inspect.stdout)["content"]
    gone_out = subprocess.run(
        [str(SPKT), "neuron", "inspect", gone, "--json", "--brain", str(ours)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert gone_out.returncode == 1 and "not found" in gone_out.stderr
