"""Real Spikuit 0.7.1 brains — without an embedder, and with one (sqlite-vec's
``neuron_vec`` virtual table and its shadow tables) — hold nothing the schema guard
refuses: brainview still writes them, and they stay free of triggers and views."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from brainview.store.schema_guard import findings
from tests.compat.spikuit_builder import build_spikuit_project
from tests.compat.test_apply_real_spikuit import accept, live_ids

pytestmark = pytest.mark.compat


def _add_embedder_tables(db: Path) -> None:
    """What ``Circuit(embedder=…)`` adds (``spikuit_core.db.Database._init_vec_table``,
    same statements), plus one embedding.  This Python's ``sqlite3`` cannot load
    extensions, so the ``sqlite3`` shell loads sqlite-vec."""
    import shutil
    import subprocess

    import sqlite_vec

    shell = shutil.which("sqlite3")
    if shell is None:
        pytest.skip("no sqlite3 shell to load sqlite-vec with")
    conn = sqlite3.connect(db)
    (first,) = conn.execute("SELECT id FROM neuron ORDER BY id LIMIT 1").fetchone()
    conn.close()
    statements = [
        f".load {sqlite_vec.loadable_path()}",
        "CREATE VIRTUAL TABLE IF NOT EXISTS neuron_vec USING vec0(embedding float[8])",
        "CREATE TABLE IF NOT EXISTS neuron_vec_map (rowid INTEGER PRIMARY KEY AUTOINCREMENT,"
        " neuron_id TEXT NOT NULL UNIQUE REFERENCES neuron(id))",
        f"INSERT INTO neuron_vec_map (neuron_id) VALUES ('{first}')",
        "INSERT INTO neuron_vec(rowid, embedding) VALUES (1, '[1,0,0,0,0,0,0,0]')",
    ]
    done = subprocess.run([shell, str(db), *statements], capture_output=True, text=True)
    if done.returncode != 0 or done.stderr:
        pytest.skip(f"sqlite3 shell cannot load sqlite-vec: {done.stderr.strip()[:200]}")


def _schema(db: Path) -> tuple[list[tuple[str, str]], list[Any]]:
    conn = sqlite3.connect(db)
    try:
        objects = sorted(conn.execute("SELECT type, name FROM sqlite_master"))
        return objects, findings(conn)
    finally:
        conn.close()


@pytest.mark.parametrize("embedder", [False, True], ids=["plain", "sqlite-vec"])
def test_real_spikuit_brains_are_written(tmp_path: Path, embedder: bool) -> None:
    root = tmp_path / "proj"
    built = build_spikuit_project(root, n_neurons=24)
    dbs = [root / ".spikuit" / "circuit.db", root / ".spikuit" / "agent" / "circuit.db"]
    if embedder:
        for db in dbs:
            _add_embedder_tables(db)
    for db in dbs:
        objects, found = _schema(db)
        kinds = {kind for kind, _ in objects}
        assert found == [] and not kinds & {"trigger", "view"}, objects
        assert (("table", "neuron_vec") in objects) is embedder
    live = live_ids(built)
    conn = sqlite3.connect(dbs[0])
    linked = set(conn.execute("SELECT pre, post FROM synapse"))
    conn.close()
    pre, post = next((a, b) for a in live for b in live if a != b and (a, b) not in linked)
    params = {"pre": pre, "post": post, "type": "relates_to", "weight": 0.4}
    accept(root, "prop-guard", "add_synapse", params)
    for db in dbs:
        assert _schema(db)[1] == []
