"""brainview on brains built by the real Spikuit 0.7.1 package (Python API, no embedder)."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from fsrs import Card, Scheduler

from brainview.core import fsrs_math
from brainview.services.intake.refs import resolve
from brainview.services.metrics.stats import project_stats
from brainview.services.project import Project
from brainview.store.cards import card_of
from brainview.store.discovery import discover
from tests.compat.spikuit_builder import build_spikuit_project

pytestmark = pytest.mark.compat


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict:
    root = tmp_path_factory.mktemp("real")
    return build_spikuit_project(root, hostile=True)


def test_counts_agree_with_rows_and_spkt(built: dict) -> None:
    with Project.open(discover(built["root"])) as project:
        assert project.user.era.name == "0.7"
        data = project_stats(project)
    u, c = data["user"], built["user"]["counts"]
    assert u["neurons"] == c["neurons_live"] == built["user"]["stats"]["neurons"]
    assert u["neurons_retired"] == c["neurons_retired"] == built["user"]["stats"]["neurons_retired"]
    assert u["synapses"] == c["synapse_rows_live"]
    assert u["spikes"] == c["spikes"]
    assert u["domains"] == {(k or ""): v for k, v in c["per_domain"].items()}
    a, ac = data["agent"], built["agent"]["counts"]
    assert a["neurons"] == ac["neurons_live"]
    assert sum(a["reflections_per_skill"].values()) == a["reflections"]


def test_cards_and_retrievability_match_pyfsrs(built: dict) -> None:
    db = Path(built["user"]["db_path"])
    conn = sqlite3.connect(db)
    rows = dict(conn.execute("SELECT neuron_id, card_json FROM fsrs_state").fetchall())
    conn.close()
    now = fsrs_math.parse_ts("2026-12-15T12:00:00+00:00")
    with Project.open(discover(built["root"])) as project, project.user.read() as c:
        for nid, card_json in rows.items():
            info = card_of(c, project.user.era, nid)
            assert info is not None and info.card_json == card_json
            expected = Scheduler().get_card_retrievability(Card.from_json(card_json), now)
            assert abs(info.retrievability(now) - expected) < 1e-9
    cards = [Card.from_json(j) for j in rows.values()]
    reviewed = [c for c in cards if c.stability is not None]
    ours = fsrs_math.retrievability(
        np.array([c.stability for c in reviewed]),
        np.array([c.last_review.timestamp() for c in reviewed]),
        now,
    )
    theirs = [Scheduler().get_card_retrievability(c, now) for c in reviewed]
    assert np.allclose(ours, theirs, atol=1e-9, rtol=0)


def test_user_refs_flag_dangling_and_retired(built: dict) -> None:
    ids = built["agent"]["ids"]
    with Project.open(discover(built["root"])) as project:
        text = f"[user:{ids['dangling_ref']}] [user:{ids['retired_ref']}]"
        refs = {r.neuron_id: r.status for r in resolve(project, text)}
    assert refs == {ids["dangling_ref"]: "dangling", ids["retired_ref"]: "retired"}


def test_hostile_brain_stats_cli_is_clean(built: dict) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "brainview", "stats", str(built["root"])],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert "\x1b" not in out.stdout and "\x9b" not in out.stdout
    data = json.loads(
        subprocess.run(
            [sys.executable, "-m", "brainview", "stats", str(built["root"]), "--json"],
            capture_output=True,
            text=True,
            timeout=120,
        ).stdout
    )
    assert data["user"]["neurons"] == built["user"]["counts"]["neurons_live"]


def test_brainview_reading_leaves_spikuit_happy(built: dict) -> None:
    import asyncio

    from spikuit_core import Circuit

    with Project.open(discover(built["root"])) as project:
        project_stats(project)

    async def reopen() -> dict:
        circuit = Circuit(db_path=built["user"]["db_path"])
        await circuit.connect()
        try:
            return await circuit.stats()
        finally:
            await circuit.close()

    stats = asyncio.run(reopen())
    assert stats["neurons"] == built["user"]["stats"]["neurons"]
