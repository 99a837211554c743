"""Semantic recall on an agent brain whose vectors real Spikuit 0.7.1 wrote: ``spkt
embed-all`` (and ``Circuit.add_neuron`` with an embedder) through the stand-in embedder
server, configured in the agent brain's ``config.toml`` exactly as Spikuit reads it.

Spikuit's embedder path loads the sqlite-vec extension, which this venv's Python cannot
(built without loadable extensions), so Spikuit runs in a Python of the same minor
version that can, with this venv's packages on its path; without one the tests skip.
brainview itself reads the vectors with no extension (vec0's shadow tables)."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import sysconfig
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

from brainview.core.embedding import document_text
from brainview.services.project import Project
from brainview.services.recall import recall
from brainview.services.recall.result import RecallQuery
from brainview.store import recall_vectors
from brainview.store.discovery import discover
from brainview.store.recall_handle import close_all
from tests.compat.spikuit_builder import build_spikuit_project
from tests.embedder_server import configure, stand_in, vector

pytestmark = pytest.mark.compat
NOW = datetime.now(UTC).replace(microsecond=0)
DIM = 16
_CAN_LOAD = "import sqlite3; sqlite3.connect(':memory:').enable_load_extension(True)"


def _python_with_extensions() -> str | None:
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    for exe in (sys.executable, shutil.which(version), f"/usr/bin/{version}"):
        if exe and Path(exe).exists():
            ok = subprocess.run([exe, "-c", _CAN_LOAD], capture_output=True, timeout=30)
            if ok.returncode == 0:
                return exe
    return None


PYTHON = _python_with_extensions()
needs_spikuit_vec = pytest.mark.skipif(
    PYTHON is None, reason="no Python here can load sqlite-vec for Spikuit's embedder"
)


def _spikuit(root: Path, script: str) -> str:
    """Run ``script`` under Spikuit's embedder-capable Python (``ROOT`` = the agent
    brain's Spikuit root: a directory whose ``.spikuit`` is the agent brain's dir)."""
    assert PYTHON is not None
    env = {**os.environ, "PYTHONPATH": sysconfig.get_paths()["purelib"], "ROOT": str(root)}
    done = subprocess.run(
        [PYTHON, "-c", script], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


EMBED_ALL = (
    "import sys, os; from spikuit_cli.main import app; "
    "sys.argv = ['spkt', 'embed-all', '--yes', '--json', '--brain', os.environ['ROOT']]; app()"
)
READ_VEC = """
import json, os, sqlite3, sqlite_vec
c = sqlite3.connect(os.path.join(os.environ['ROOT'], '.spikuit', 'circuit.db'))
c.enable_load_extension(True); sqlite_vec.load(c)
rows = c.execute('SELECT m.neuron_id, vec_to_json(v.embedding) FROM neuron_vec v '
                 'JOIN neuron_vec_map m ON m.rowid = v.rowid').fetchall()
print(json.dumps({n: json.loads(v) for n, v in rows}))
"""
ADD = """
import asyncio, os
from spikuit_cli.helpers import _get_circuit
from spikuit_core import Neuron
async def main():
    c = _get_circuit(__import__('pathlib').Path(os.environ['ROOT']))
    await c.connect()
    await c.add_neuron(Neuron(id='n-0ab1c2d3e4f5', type='reflection', domain='curator',
        content='An echidna and a platypus are both monotremes'))
    await c.close()
asyncio.run(main())
"""


@pytest.fixture
def embedded(tmp_path: Path):  # type: ignore[no-untyped-def]
    built = build_spikuit_project(tmp_path / "real")
    agent_dir = built["agent"]["spikuit_dir"]
    spkt_root = tmp_path / "spkt"
    spkt_root.mkdir()
    os.symlink(agent_dir, spkt_root / ".spikuit")
    with stand_in(DIM) as server:
        configure(agent_dir / "config.toml", server.url + "/v1", dimension=DIM)
        yield built, spkt_root, server
    close_all()


@needs_spikuit_vec
def test_recall_uses_the_vectors_spikuit_stored_and_follows_its_adds(embedded) -> None:  # type: ignore[no-untyped-def]
    built, spkt_root, server = embedded
    out = json.loads(_spikuit(spkt_root, EMBED_ALL))
    db = built["agent"]["db_path"]
    lessons = (
        sqlite3.connect(db)
        .execute("SELECT id, content FROM neuron WHERE type = 'reflection' AND retired_at IS NULL")
        .fetchall()
    )
    assert out["embedded"] >= len(lessons) > 0
    # brainview reads vec0's shadow tables as sqlite-vec itself reads the table
    official = json.loads(_spikuit(spkt_root, READ_VEC))
    conn = sqlite3.connect(db)
    shape = recall_vectors.stored_shape(conn)
    mine = recall_vectors.stored(conn, [i for i, _c in lessons], DIM)
    conn.close()
    assert shape is not None and shape[0] == DIM
    assert set(mine) == {i for i, _c in lessons}
    for nid, content in lessons:
        assert np.allclose(mine[nid], official[nid], atol=1e-6)
        assert np.allclose(mine[nid], vector(document_text(content), DIM), atol=1e-5)
    asked = len(server.requests)
    with Project.open(discover(built["root"])) as p:
        res = recall(p, RecallQuery(text="fuse the egg laying cards"), now=NOW, log=False)
        assert res.semantic["on"] and res.semantic["stored"] == len(lessons)
        assert res.semantic["computed"] == 0
        assert [r["body"]["input"] for r in server.requests[asked:]] == [
            ["fuse the egg laying cards"]
        ]  # the query only: every lesson's vector was Spikuit's
        _spikuit(spkt_root, ADD)  # Spikuit adds a lesson and embeds it itself
        after = recall(p, RecallQuery(text="fuse the egg laying cards"), now=NOW, log=False)
    assert after.hits[0].reflection == "n-0ab1c2d3e4f5"
    assert "semantic" in after.hits[0].found_by and after.hits[0].bm25 == 0
    assert after.semantic["stored"] == len(lessons) + 1 and after.semantic["computed"] == 0


@needs_spikuit_vec
def test_stored_vectors_of_another_dimension_fall_back(embedded) -> None:  # type: ignore[no-untyped-def]
    built, spkt_root, server = embedded
    _spikuit(spkt_root, EMBED_ALL)
    configure(built["agent"]["config_path"], server.url + "/v1", dimension=2 * DIM)
    with Project.open(discover(built["root"])) as p:
        res = recall(p, RecallQuery(text="platypus"), now=NOW, log=False)
    assert res.semantic["on"] is False
    assert res.semantic["reason"] == (
        f"dimension mismatch: the agent brain's vectors have {DIM} dimensions, "
        f"the embedder config says {2 * DIM}"
    )
