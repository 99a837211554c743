"""A streamed domain rename (several chunks) on a brain built by the real Spikuit
0.7.1, checked by Spikuit: the same rows as ``Circuit.rename_domain``, event snapshots
byte-identical to Spikuit's own encoding of the neurons, and after the undo a brain
Spikuit reads exactly as before.  Hostile contents included (markup, escapes, C1
controls, RTL, emoji): the streamed encoder must write what msgspec writes."""

from __future__ import annotations

import shutil
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from brainview.services import review
from brainview.services.apply import stream_plan
from brainview.services.project import Project
from tests.compat.spikuit_builder import build_spikuit_project
from tests.compat.test_apply_real_spikuit import _db, accept, rows, spikuit

pytestmark = pytest.mark.compat


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("stream") / "proj"
    build_spikuit_project(root, n_neurons=120, hostile=True)
    return root


@pytest.fixture
def trio(template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, ...]:
    """brainview's copy, Spikuit's copy and an untouched one; streaming above 10 live
    neurons, 7 rows a chunk."""
    monkeypatch.setattr(stream_plan, "STREAM_MIN_LIVE", 10)
    monkeypatch.setattr(stream_plan, "CHUNK_ROWS", 7)
    out = tuple(tmp_path / name for name in ("brainview", "spikuit", "original"))
    for dst in out:
        shutil.copytree(template, dst)
    return out


def _encoded(root: Path, ids: list[str]) -> dict[str, str]:
    """Spikuit's own JSON of each live neuron (what its events hold)."""
    import msgspec

    async def run(c: Any) -> dict[str, str]:
        found = {nid: await c.get_neuron(nid) for nid in ids}
        return {k: msgspec.json.encode(n).decode() for k, n in found.items() if n is not None}

    return spikuit(root, run)  # type: ignore[no-any-return]


def test_streamed_rename_agrees_with_circuit_and_undoes_exactly(trio: tuple[Path, ...]) -> None:
    ours, theirs, original = trio
    before = rows(ours)
    stats_before = spikuit(original, lambda c: c.stats())
    shown, result = accept(ours, "p-big", "rename_domain", {"old": "math", "new": "mathematics"})
    assert shown.plan is not None and shown.plan.stream is not None
    moved = shown.plan.stream.rows
    assert moved > 3 * 7  # several chunks
    spikuit(theirs, lambda c: c.rename_domain("math", "mathematics"))
    assert rows(ours) == rows(theirs)
    assert spikuit(ours, lambda c: c.stats()) == spikuit(theirs, lambda c: c.stats())

    con = sqlite3.connect(_db(ours))
    logged = con.execute(
        "SELECT e.target_id, e.before_json, e.after_json FROM event e JOIN changeset c "
        "ON c.id = e.changeset_id WHERE c.tag = 'brainview:p-big' ORDER BY e.seq"
    ).fetchall()
    con.close()
    assert len(logged) == moved
    old = _encoded(original, [t for t, _b, _a in logged])
    new = _encoded(ours, [t for t, _b, _a in logged])
    assert old and all(old[t] == b and new[t] == a for t, b, a in logged if t in old)

    with Project.locate(ours, write_agent=True, write_user=True) as p:
        later = datetime.now(UTC) + timedelta(seconds=5)
        undone = review.undo(p, result.decision_id, now=later, actor="bob")
    assert undone.user_rows_restored == moved
    assert rows(ours) == before
    assert spikuit(ours, lambda c: c.stats()) == stats_before
    assert _encoded(ours, list(old)) == old  # Spikuit reads every neuron back as it was
