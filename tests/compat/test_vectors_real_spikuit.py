"""Accepting a merge or a retire on a real Spikuit 0.7.1 brain with an embedder's
tables: the retired neuron's vector and the merged survivor's stale vector leave
``neuron_vec_map`` as Spikuit's ``delete_embedding`` removes them (so ``spkt
embed-all``, which embeds every neuron without a map row, re-embeds the survivor),
every other vector stays, the preview says so, and undo puts the rows back."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from brainview.services import review
from brainview.services.project import Project
from tests.compat.spikuit_builder import build_spikuit_project
from tests.compat.test_apply_real_spikuit import accept, live_ids

pytestmark = pytest.mark.compat


def _embed(db: Path, ids: list[str]) -> None:
    """What ``Circuit(embedder=…)`` writes (``Database._init_vec_table`` and
    ``upsert_embedding``), through the ``sqlite3`` shell with sqlite-vec loaded."""
    import sqlite_vec

    shell = shutil.which("sqlite3")
    if shell is None:
        pytest.skip("no sqlite3 shell to load sqlite-vec with")
    statements = [
        f".load {sqlite_vec.loadable_path()}",
        "CREATE VIRTUAL TABLE IF NOT EXISTS neuron_vec USING vec0(embedding float[4])",
        "CREATE TABLE IF NOT EXISTS neuron_vec_map (\n    rowid INTEGER PRIMARY KEY "
        "AUTOINCREMENT,\n    neuron_id TEXT NOT NULL UNIQUE REFERENCES neuron(id)\n)",
    ]
    for i, nid in enumerate(ids, start=1):
        statements += [
            f"INSERT INTO neuron_vec_map (neuron_id) VALUES ('{nid}')",
            f"INSERT INTO neuron_vec(rowid, embedding) VALUES ({i}, '[{i},0,0,1]')",
        ]
    done = subprocess.run([shell, str(db), *statements], capture_output=True, text=True)
    if done.returncode != 0 or done.stderr:
        pytest.skip(f"sqlite3 shell cannot load sqlite-vec: {done.stderr.strip()[:200]}")


def _mapped(db: Path) -> set[str]:
    conn = sqlite3.connect(db)
    try:
        return {r[0] for r in conn.execute("SELECT neuron_id FROM neuron_vec_map")}
    finally:
        conn.close()


def _knn(db: Path) -> list[str]:
    """Spikuit's ``knn_search`` query, run by the shell with sqlite-vec loaded."""
    import sqlite_vec

    sql = (
        "SELECT m.neuron_id FROM neuron_vec v JOIN neuron_vec_map m ON m.rowid = v.rowid "
        "WHERE v.embedding MATCH '[1,0,0,1]' AND k = 50 ORDER BY v.distance;"
    )
    shell = shutil.which("sqlite3")
    assert shell is not None
    done = subprocess.run(
        [shell, str(db), f".load {sqlite_vec.loadable_path()}", sql],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0 and not done.stderr, done.stderr
    return done.stdout.split()


def test_merge_and_retire_delete_vectors_as_spikuit_does(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    built = build_spikuit_project(root, n_neurons=24)
    db = root / ".spikuit" / "circuit.db"
    live = live_ids(built)
    embedded = live[:12]
    _embed(db, embedded)
    keep, merged, gone = live[1], live[2], live[5]

    shown, merge = accept(root, "p-merge-vec", "merge_neurons", {"keep": keep, "merge": [merged]})
    assert shown.plan is not None
    lines = {what: after for what, _before, after in shown.preview}
    assert lines[f"vector of {merged}"].startswith("deleted")
    assert lines[f"vector of {keep}"] == "deleted (spkt embed-all re-embeds it)"
    assert f"{keep} changed text: until `spkt embed-all` re-embeds it" in shown.change_log
    _shown, retire = accept(root, "p-retire-vec", "retire_neuron", {"neuron": gone})

    assert _mapped(db) == set(embedded) - {keep, merged, gone}
    found = _knn(db)  # Spikuit's search still works and finds none of the three
    assert set(found) == set(embedded) - {keep, merged, gone}

    with Project.locate(root, write_agent=True, write_user=True) as p:
        later = datetime.now(UTC) + timedelta(seconds=5)
        review.undo(p, retire.decision_id, now=later, actor="bob")
        review.undo(p, merge.decision_id, now=later + timedelta(seconds=1), actor="bob")
    assert _mapped(db) == set(embedded)
    assert set(_knn(db)) == set(embedded)


def test_merge_keeping_the_text_keeps_the_survivor_vector(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    built = build_spikuit_project(root, n_neurons=24)
    db = root / ".spikuit" / "circuit.db"
    live = live_ids(built)
    _embed(db, live[:6])
    keep, merged = live[1], live[2]
    accept(root, "p-keep-vec", "merge_neurons",
           {"keep": keep, "merge": [merged], "content": "keep"})  # fmt: skip
    assert _mapped(db) == set(live[:6]) - {merged}


def test_the_accept_output_says_what_is_left_for_spkt_embed_all(tmp_path: Path) -> None:
    import json

    from brainview.services import intake
    from tests.unit.test_cli import cli

    root = tmp_path / "proj"
    built = build_spikuit_project(root, n_neurons=24)
    live = live_ids(built)
    _embed(root / ".spikuit" / "circuit.db", live[:6])
    keep, merged = live[1], live[2]
    with Project.locate(root, write_agent=True) as p:
        intake.submit(
            p, [{"id": "p-cli-merge", "kind": "merge_neurons",
                 "params": {"keep": keep, "merge": [merged]}}],
            now=datetime.now(UTC),
        )  # fmt: skip
    later = (datetime.now(UTC) + timedelta(seconds=2)).isoformat()
    out = cli(
        "proposals", "accept", "p-cli-merge", "-C", str(root), "--json",
        env={"BRAINVIEW_NOW": later},
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    (row,) = json.loads(out.stdout)["decisions"]
    assert row["apply_state"] == "applied"
    assert f"deletes the stored vector of {merged}, {keep}" in row["vectors"]
    assert "until `spkt embed-all` re-embeds it" in row["vectors"]


def test_undo_after_embed_all_is_refused_with_nothing_changed(tmp_path: Path) -> None:
    from brainview.errors import ConflictError

    root = tmp_path / "proj"
    built = build_spikuit_project(root, n_neurons=24)
    db = root / ".spikuit" / "circuit.db"
    live = live_ids(built)
    _embed(db, live[:6])
    keep, merged = live[1], live[2]
    _shown, merge = accept(root, "p-m-undo", "merge_neurons", {"keep": keep, "merge": [merged]})
    conn = sqlite3.connect(db)  # what `spkt embed-all` adds for the survivor (the map row)
    conn.execute("INSERT INTO neuron_vec_map (neuron_id) VALUES (?)", (keep,))
    conn.commit()
    conn.close()
    before = _mapped(db)
    with Project.locate(root, write_agent=True, write_user=True) as p:
        later = datetime.now(UTC) + timedelta(seconds=5)
        with pytest.raises(ConflictError, match="neuron_vec_map"):
            review.undo(p, merge.decision_id, now=later, actor="bob")
    assert _mapped(db) == before
