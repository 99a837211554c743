"""Streamed apply of a big domain rename/merge: the same rows, events and undo as the
in-memory plan, written in chunks; refused exactly when the in-memory one would be.

The threshold and the chunk size are lowered so a 3,000-neuron demo brain (≈600
neurons a domain) streams in several chunks; its twin, with streaming switched off,
takes the in-memory path with the same changeset ids: both user brains must end
byte-for-byte equal, change log included, after the accept and after the undo.
"""

from __future__ import annotations

import itertools
import json
import random
import sqlite3
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from fsrs import Scheduler

from brainview.demo.generator import DEMO_NOW, DemoSpec
from brainview.errors import ConflictError
from brainview.services import apply, intake, review
from brainview.services.apply import hooks, planner, snapshots, stream_plan
from brainview.services.project import Project
from brainview.services.review import detail
from brainview.services.review import revert as revert_mod

SPEC = DemoSpec(user_neurons=3_000, reflections=60, proposals=0, seed=3)
NOW = DEMO_NOW + timedelta(minutes=10)
LATER = NOW + timedelta(minutes=1)
CHUNK = 150


class Ids:
    """Changeset ids numbered from 1 again on :meth:`reset` (two runs, same ids)."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.counter = itertools.count(1)

    def __call__(self) -> str:
        return f"cs_{next(self.counter):012d}"


@pytest.fixture
def streamed(monkeypatch: pytest.MonkeyPatch) -> Ids:
    """Stream above 100 live neurons, 150 rows a chunk; changeset ids numbered."""
    monkeypatch.setattr(stream_plan, "STREAM_MIN_LIVE", 100)
    monkeypatch.setattr(stream_plan, "CHUNK_ROWS", CHUNK)
    ids = Ids()
    monkeypatch.setattr(planner, "new_changeset_id", ids)
    monkeypatch.setattr(revert_mod, "new_changeset_id", ids)
    return ids


def user_db(root: Path) -> sqlite3.Connection:
    return sqlite3.connect(root / ".spikuit" / "circuit.db")


def dump_user(root: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every table of the user brain, rows in rowid order (the change log included)."""
    conn = user_db(root)
    names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
    out = {n: conn.execute(f"SELECT rowid, * FROM {n} ORDER BY rowid").fetchall() for n in names}
    conn.close()
    return out


def queue(root: Path, pid: str, kind: str, params: dict[str, Any]) -> None:
    with Project.locate(root, write_agent=True) as p:
        intake.submit(p, [{"id": pid, "kind": kind, "params": params}], now=DEMO_NOW)


def accept(root: Path, pid: str) -> review.DecisionResult:
    with Project.locate(root, write_agent=True, write_user=True) as p:
        return review.decide(
            p,
            pid,
            "accept",
            decider="alice",
            now=NOW,
            scheduler=Scheduler(enable_fuzzing=False),
            applier=apply.applier_for(p.paths),
        )


def undo(root: Path, decision: str) -> review.UndoResult:
    with Project.locate(root, write_agent=True, write_user=True) as p:
        return review.undo(p, decision, now=LATER, actor="bob")


CASES = [
    ("p-rename", "rename_domain", {"old": "math", "new": "mathematics"}),
    ("p-merge", "merge_domains", {"sources": ["spanish", "math"], "target": "music"}),
]


def run(root: Path, pid: str) -> tuple[Any, list[str], Any, Any, Any, Any]:
    """Preview, accept and undo one proposal: (preview, hook steps, accept result, user
    brain after the accept, undo result, user brain after the undo)."""
    with Project.locate(root) as p:
        shown = detail.load(p, pid, NOW)
    steps: list[str] = []
    hooks.set_step_hook(steps.append)
    try:
        accepted = accept(root, pid)
        applied = dump_user(root)
        reverted = undo(root, accepted.decision_id)
    finally:
        hooks.set_step_hook(None)
    return shown, steps, accepted, applied, reverted, dump_user(root)


@pytest.mark.parametrize(("pid", "kind", "params"), CASES)
def test_streamed_apply_and_undo_write_what_the_in_memory_plan_writes(
    make_demo: Any,
    streamed: Ids,
    monkeypatch: pytest.MonkeyPatch,
    pid: str,
    kind: str,
    params: Any,
) -> None:
    ours, _ = make_demo(SPEC, name="streamed")
    twin, _ = make_demo(SPEC, name="in-memory")
    before = dump_user(ours)
    queue(ours, pid, kind, params)
    queue(twin, pid, kind, params)
    shown, steps, accepted, applied, reverted, after = run(ours, pid)
    assert shown.plan is not None and shown.plan.stream is not None
    rows = shown.plan.stream.rows
    assert steps.count("apply.user_chunk") >= 3 and steps.count("revert.user_chunk") >= 3
    assert accepted.apply_state == "applied" and reverted.user_rows_restored == rows

    monkeypatch.setattr(stream_plan, "STREAM_MIN_LIVE", 10**9)  # the twin: in memory
    streamed.reset()
    t_shown, t_steps, t_accepted, t_applied, t_reverted, t_after = run(twin, pid)
    assert t_shown.plan is not None and t_shown.plan.stream is None
    assert "apply.user_chunk" not in t_steps and t_accepted.apply_state == "applied"
    # The same rows and the same change log (ids, seq, snapshots, rowids).
    assert applied == t_applied
    assert after == t_after and t_reverted.user_rows_restored == rows
    assert after["neuron"] == before["neuron"]  # the undo is exact
    conn = user_db(ours)
    (n_events,) = conn.execute(
        "SELECT COUNT(*) FROM event e JOIN changeset c ON c.id = e.changeset_id WHERE c.tag = ?",
        (f"brainview:{pid}",),
    ).fetchone()
    conn.close()
    assert n_events == rows  # what the preview counted is what was logged


def test_preview_counts_every_row_the_apply_writes(make_demo: Any, streamed: Ids) -> None:
    root, _ = make_demo(SPEC)
    queue(root, "p-rename", "rename_domain", {"old": "math", "new": "mathematics"})
    conn = user_db(root)
    rows, live = conn.execute(
        "SELECT COUNT(*), SUM(retired_at IS NULL) FROM neuron WHERE domain = 'math'"
    ).fetchone()
    conn.close()
    with Project.locate(root) as p:
        shown = detail.load(p, "p-rename", NOW)
    assert rows > live  # retired neurons move too
    assert shown.preview == [("domain math", f"{rows:,} neurons ({live:,} live)", "→ mathematics")]
    assert f"{rows}× neuron.update" in shown.change_log and "summarised" in shown.change_log
    result = accept(root, "p-rename")
    with Project.locate(root) as p:
        recorded = detail.load(p, "p-rename", NOW)
    assert result.apply_state == "applied"
    assert recorded.preview == shown.preview  # the accepted plan shows the same lines
    conn = user_db(root)
    moved = conn.execute("SELECT COUNT(*) FROM neuron WHERE domain = 'mathematics'").fetchone()[0]
    conn.close()
    assert moved == rows


def test_a_change_between_accept_and_apply_rolls_the_accept_back(
    make_demo: Any, streamed: Ids
) -> None:
    root, _ = make_demo(SPEC)
    queue(root, "p-rename", "rename_domain", {"old": "math", "new": "mathematics"})
    before = dump_user(root)

    class Crash(Exception):
        pass

    def crash(step: str) -> None:
        if step == "decision.committed":
            raise Crash(step)

    hooks.set_step_hook(crash)
    try:
        with pytest.raises(Crash):
            accept(root, "p-rename")
    finally:
        hooks.set_step_hook(None)
    conn = user_db(root)  # spkt edits one neuron of the domain meanwhile (the last chunk)
    (nid,) = conn.execute(
        "SELECT id FROM neuron WHERE domain = 'math' ORDER BY rowid DESC LIMIT 1"
    ).fetchone()
    conn.execute("UPDATE neuron SET content = 'edited by spkt' WHERE id = ?", (nid,))
    conn.commit()
    conn.close()
    with Project.locate(root, write_agent=True, write_user=True) as p:
        outcomes = apply.recover(p, now=LATER)
    assert [o.state for o in outcomes] == ["rolled_back"]
    assert "changed since proposal p-rename was accepted" in (outcomes[0].note or "")
    after = dump_user(root)
    assert [r for r in after["neuron"] if r[1] != nid] == [
        r for r in before["neuron"] if r[1] != nid
    ]
    assert after["event"] == before["event"] and after["changeset"] == before["changeset"]


@pytest.mark.parametrize("edit", ["content", "domain"])
def test_undo_is_refused_when_a_renamed_neuron_changed_since(
    make_demo: Any, streamed: Ids, edit: str
) -> None:
    root, _ = make_demo(SPEC)
    queue(root, "p-rename", "rename_domain", {"old": "math", "new": "mathematics"})
    decision = accept(root, "p-rename").decision_id
    conn = user_db(root)
    (nid,) = conn.execute(
        "SELECT id FROM neuron WHERE domain = 'mathematics' ORDER BY rowid LIMIT 1 OFFSET 200"
    ).fetchone()
    value = "edited by spkt" if edit == "content" else "elsewhere"
    conn.execute(f"UPDATE neuron SET {edit} = ? WHERE id = ?", (value, nid))
    conn.commit()
    conn.close()
    before = dump_user(root)
    with pytest.raises(ConflictError, match="changed since it was planned.*nothing was undone"):
        undo(root, decision)
    assert dump_user(root) == before


def test_a_streamed_plan_is_accepted_alone(make_demo: Any, streamed: Ids) -> None:
    root, info = make_demo(SPEC)
    queue(root, "p-rename", "rename_domain", {"old": "math", "new": "mathematics"})
    live = sorted(set(info.user_ids) - set(info.retired_user_ids))
    queue(root, "p-edit", "edit_content", {"neuron": live[7], "content": "# New\n\ntext"})
    before = dump_user(root)
    with (
        Project.locate(root, write_agent=True, write_user=True) as p,
        pytest.raises(ConflictError, match="accept it alone"),
    ):
        review.decide_many(
            p,
            ["p-edit", "p-rename"],
            "accept",
            decider="alice",
            now=NOW,
            applier=apply.applier_for(p.paths),
        )
    assert dump_user(root) == before


def test_snapshot_pair_is_the_general_encoder(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(7)
    alphabet = 'ab"\\/\x00\x1f\x7f\x85\u2028\u202e é😀中\n\t\r'
    stamps = ["2026-05-12T10:00:00+00:00", "2026-05-12 10:00:00.000001Z", "2026-05-12", None, 7]
    for _ in range(2_000):
        row: dict[str, Any] = {
            name: "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
            for name in ("id", "content", "type", "domain")
        }
        row["source"] = rng.choice([None, "s", 3, 2.5, b"\x00x"])
        row["created_at"], row["updated_at"] = rng.choice(stamps), rng.choice(stamps)
        new = rng.choice(["n\u2028", None, "x"])
        try:
            expected = (
                snapshots.neuron_snapshot(row),
                snapshots.neuron_snapshot({**row, "domain": new}),
            )
        except TypeError:  # bytes: not JSON for either
            with pytest.raises(TypeError):
                snapshots.neuron_snapshot_pair(row, new)
            continue
        assert snapshots.neuron_snapshot_pair(row, new) == expected, json.dumps(row, default=str)


def test_other_connections_never_see_a_half_renamed_domain(make_demo: Any, streamed: Ids) -> None:
    """Between two chunks a reader sees the domain as before, whole; a writer (spkt)
    waits for the one transaction instead of landing between chunks."""
    root, _ = make_demo(SPEC)
    queue(root, "p-rename", "rename_domain", {"old": "math", "new": "mathematics"})
    conn = user_db(root)
    (rows,) = conn.execute("SELECT COUNT(*) FROM neuron WHERE domain = 'math'").fetchone()
    seen: list[tuple[int, int]] = []
    refused: list[str] = []

    def look(step: str) -> None:
        if step != "apply.user_chunk":
            return
        other = sqlite3.connect(root / ".spikuit" / "circuit.db", timeout=0)
        seen.append(
            other.execute(
                "SELECT SUM(domain = 'math'), SUM(domain = 'mathematics') FROM neuron"
            ).fetchone()
        )
        try:
            other.execute("UPDATE neuron SET content = 'spkt' WHERE domain = 'math'")
        except sqlite3.OperationalError as err:
            refused.append(str(err))
        other.close()

    hooks.set_step_hook(look)
    try:
        assert accept(root, "p-rename").apply_state == "applied"
    finally:
        hooks.set_step_hook(None)
    assert len(seen) >= 3 and set(seen) == {(rows, 0)}
    assert len(refused) == len(seen) and all("locked" in r for r in refused)
    assert (
        conn.execute("SELECT COUNT(*) FROM neuron WHERE domain = 'mathematics'").fetchone()[0]
        == rows
    )
    conn.close()
