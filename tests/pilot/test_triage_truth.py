"""The triage screen never misstates: lifecycle changes by another process show within
the poll, a flagged accept asks first, a bulk undoes as one unit, and every refusal
says why.  Real keys on demo brains; asserts the rendered panes, the notifications and
the rows written."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from textual.geometry import Region
from textual.widgets import Static

from brainview.demo.generator import DEMO_NOW
from brainview.services import review
from brainview.services.project import Project
from brainview.store.discovery import discover
from brainview.tui.app import make_app
from brainview.tui.clock import frozen
from brainview.tui.widgets.confirm import ConfirmScreen
from tests.tui_helpers import settle

ENV = {"BRAINVIEW_NOW": DEMO_NOW.isoformat(), "XDG_CONFIG_HOME": "/nonexistent-bv-config"}


def _agent(root: Path) -> sqlite3.Connection:
    return sqlite3.connect(root / ".spikuit" / "agent" / "circuit.db")


def _rows(root: Path, query: str, *params: object) -> list[tuple]:  # type: ignore[type-arg]
    conn = _agent(root)
    try:
        return conn.execute(query, params).fetchall()
    finally:
        conn.close()


def _pane(app, selector: str = "#reflections") -> str:  # type: ignore[no-untyped-def]
    """The text a pane shows, as rendered (lines joined: phrases may wrap)."""
    static = app.screen.query_one(selector, Static)
    width, height = static.size
    lines = static.render_lines(Region(0, 0, width, height))
    return " ".join(" ".join(s.text for s in lines).split())


def _notes(app) -> list[str]:  # type: ignore[no-untyped-def]
    return [str(n.message) for n in app._notifications]


def _footer_keys(app) -> set[str]:  # type: ignore[no-untyped-def]
    """Keys the footer shows now (hidden twins and hidden verbs aside)."""
    return {k for k, a in app.screen.active_bindings.items() if a.binding.show}


def _app(root: Path):  # type: ignore[no-untyped-def]
    return make_app(discover(root), clock=frozen(DEMO_NOW), start="triage", decider="tester")


async def _go_to(pilot, pid: str) -> None:  # type: ignore[no-untyped-def]
    ids = [r.id for r in pilot.app.screen.rows]
    pilot.app.screen.queue.move_to(ids.index(pid))  # as a click: one detail read, not one a row
    await settle(pilot)
    assert pilot.app.screen.current_id == pid


def _supported(root: Path, stale: list[str]) -> tuple[str, str]:
    """A fresh pending proposal and a live reflection it consulted with ``support``."""
    for pid, rid in _rows(
        root,
        "SELECT c.proposal_id, c.reflection_id FROM brainview_consult c JOIN brainview_proposal "
        "p ON p.id = c.proposal_id WHERE c.role = 'consulted' AND c.stance = 'support' AND "
        "p.status = 'pending' AND p.suspicion IS NULL ORDER BY p.created_at, c.seq",
    ):
        if pid not in stale:
            return pid, rid
    raise AssertionError("no supported proposal in the demo")


async def test_invalidate_in_another_process_shows_within_the_poll(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    pid, rid = _supported(root, info.stale_proposal_ids)
    app = _app(root)
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        await _go_to(pilot, pid)
        before = _pane(app)
        assert "accept → █ strong" in before and "not graded:" not in before
        done = await asyncio.to_thread(
            subprocess.run,
            [sys.executable, "-m", "brainview", "reflect", "invalidate", rid,
             "--reason", "poisoned", "-C", str(root)],
            capture_output=True, text=True, env={**os.environ, **ENV}, timeout=120,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        for _ in range(40):  # the poll runs every second
            await pilot.pause(0.1)
            if "invalidated" in _pane(app):
                break
        await settle(pilot)
        after = _pane(app)
        assert "⊖ invalidated" in after and "not graded: invalidated" in after
        own = after[after.index(rid) :]
        assert own.index("not graded") < own.find("accept →") or "accept →" not in own
        assert "⚑ leans on" in _pane(app, "#proposal")
        row = next(r for r in app.screen.rows if r.id == pid)
        assert row.leans == ((rid, "invalidated"),)
        table = app.screen.query_one("#queue")
        assert "⚑" in table.get_cell(pid, "mark").plain
        # Accepting it asks first; escape writes nothing.
        await pilot.press("a")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        asked = " ".join(app.screen._lines)  # titles, not ids (issue 32)
        assert pid not in asked and rid not in asked and "is invalidated" in asked
        await pilot.press("escape")
        await settle(pilot)
        assert "Not accepted: nothing was written." in _notes(app)
        assert _rows(root, "SELECT status FROM brainview_proposal WHERE id = ?", pid) == [
            ("pending",)
        ]
        assert _rows(root, "SELECT COUNT(*) FROM brainview_decision") == [(0,)]
        # Confirmed, it is accepted, and the invalidated reflection gets no grade.
        await pilot.press("a")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert _rows(root, "SELECT status FROM brainview_proposal WHERE id = ?", pid) == [
            ("accepted",)
        ]
        graded = {r for (r,) in _rows(root, "SELECT reflection_id FROM brainview_grade")}
        assert graded and rid not in graded


async def test_the_pane_agrees_with_what_decide_grades(demo) -> None:  # type: ignore[no-untyped-def]
    """Challenged: still graded; invalidated: not graded — as ``decide`` does."""
    root, info = demo
    pid, rid = _supported(root, info.stale_proposal_ids)
    query = (
        "SELECT reflection_id FROM brainview_consult WHERE proposal_id = ? AND "
        "role = 'consulted' AND reflection_id != ? AND stance != 'annotate'"
    )
    others = [r for (r,) in _rows(root, query, pid, rid)]
    with Project.open(discover(root), write_agent=True) as project:
        from brainview.services import lifecycle

        lifecycle.invalidate(project, [rid], reason="bad", actor="t", now=DEMO_NOW)
        if others:
            lifecycle.challenge(project, others[:1], reason="odd", actor="t", now=DEMO_NOW)
    app = _app(root)
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        await _go_to(pilot, pid)
        text = _pane(app)
        if others:
            assert "still graded while challenged: accept →" in text
        await pilot.press("a")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
    graded = {r for (r,) in _rows(root, "SELECT reflection_id FROM brainview_grade")}
    assert rid not in graded and set(others[:1]) <= graded


async def test_a_bulk_decision_undoes_as_one_unit(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    app = _app(root)
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        rows = app.screen.rows
        assert "u" not in _footer_keys(app)  # nothing to undo yet: hidden
        start = next(i for i in range(len(rows)) if all(not r.stale for r in rows[i : i + 3]))
        await pilot.press(*(["j"] * start), "space", "space", "space")
        ids = sorted(app.screen.marked)
        assert len(ids) == 3
        await pilot.press("r")
        await pilot.pause()
        await pilot.press("enter")
        await settle(pilot)
        marks = ",".join("?" * 3)
        query = f"SELECT DISTINCT status FROM brainview_proposal WHERE id IN ({marks})"
        assert _rows(root, query, *ids) == [("rejected",)]
        assert "u" in _footer_keys(app)
        await pilot.press("u")
        await settle(pilot)
        assert _rows(root, query, *ids) == [("pending",)]
        assert _rows(root, "SELECT COUNT(*) FROM brainview_decision WHERE undone_at IS NULL") == [
            (0,)
        ]
        assert any("bulk decision of 3 proposals" in n for n in _notes(app))
        assert app.screen.total == 36


async def test_refusals_say_why(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    app = _app(root)
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        assert {"u", "E"}.isdisjoint(_footer_keys(app))
        await pilot.press("u")  # nothing to undo in the whole project
        await settle(pilot)
        assert any(n.startswith("Nothing to undo") for n in _notes(app))
        await pilot.press("E")  # not a policy proposal
        await settle(pilot)
        assert any("Only a policy proposal's text can be edited" in n for n in _notes(app))
        stale = next(r.id for r in app.screen.rows if r.stale)
        await _go_to(pilot, stale)
        assert "a" not in _footer_keys(app)
        await pilot.press("a")
        await settle(pilot)
        assert any(n.startswith("Not accepted: this proposal is stale") for n in _notes(app))
    assert _rows(root, "SELECT COUNT(*) FROM brainview_decision") == [(0,)]


async def test_after_a_restart_u_offers_the_projects_last_decision(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    fresh = [p for p in info.proposal_ids if p not in info.stale_proposal_ids][:2]
    with Project.open(discover(root), write_agent=True) as project:
        review.decide_many(project, fresh, "reject", decider="earlier", now=DEMO_NOW)
    app = _app(root)
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        assert "u" in _footer_keys(app)
        await pilot.press("u")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("escape")  # cancel: nothing written
        await settle(pilot)
        assert "Nothing undone." in _notes(app)
        assert _rows(root, "SELECT COUNT(*) FROM brainview_decision WHERE undone_at IS NULL") == [
            (2,)
        ]
        await pilot.press("u")
        await settle(pilot)
        body = _pane(app, "#confirm-body")
        assert "by earlier" in body and "1 other decision" in body
        await pilot.press("y")
        await settle(pilot)
        assert _rows(root, "SELECT COUNT(*) FROM brainview_decision WHERE undone_at IS NULL") == [
            (0,)
        ]
        assert "u" not in _footer_keys(app)


SPIKUIT_RETIRE = """
import asyncio, sys
from spikuit_core import Circuit

async def main() -> None:
    circuit = Circuit(db_path=sys.argv[1])
    await circuit.connect()
    try:
        await circuit.remove_neuron(sys.argv[2])
    finally:
        await circuit.close()

asyncio.run(main())
"""


async def test_real_spikuit_retiring_a_reflection_shows_within_the_poll(demo) -> None:  # type: ignore[no-untyped-def]
    """A retirement outside brainview's lifecycle (real Spikuit's ``remove_neuron`` in
    another process) moves the fingerprint too: the pane stops promising a grade."""
    root, info = demo
    pid, rid = _supported(root, info.stale_proposal_ids)
    app = _app(root)
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        await _go_to(pilot, pid)
        assert "accept → █ strong" in _pane(app)
        agent_db = root / ".spikuit" / "agent" / "circuit.db"
        done = await asyncio.to_thread(
            subprocess.run,
            [sys.executable, "-c", SPIKUIT_RETIRE, str(agent_db), rid],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        for _ in range(40):
            await pilot.pause(0.1)
            if "not graded" in _pane(app) and "⚑ leans on" in _pane(app, "#proposal"):
                break
        await settle(pilot)
        after = _pane(app)
        own = after[after.index(rid) :]
        assert "not graded" in own, own[:300]
        assert "⚑ leans on" in _pane(app, "#proposal")


async def test_a_bulk_flagged_accept_names_every_proposals_lessons(demo) -> None:  # type: ignore[no-untyped-def]
    """Marked proposals whose details were never opened still name the lessons they lean
    on by title in the dialog (read for it), never by id (issue 32)."""
    root, info = demo
    pending = {
        p for (p,) in _rows(root, "SELECT id FROM brainview_proposal WHERE status = 'pending'")
    } - set(info.stale_proposal_ids)
    consult = _rows(
        root, "SELECT proposal_id, reflection_id FROM brainview_consult WHERE role = 'consulted'"
    )
    by_lesson: dict[str, list[str]] = {}
    for pid, rid in consult:
        if pid in pending:
            by_lesson.setdefault(rid, []).append(pid)
    rid, pids = next((r, ps) for r, ps in sorted(by_lesson.items()) if len(set(ps)) >= 2)
    a, b = sorted(set(pids))[:2]
    from brainview.services import lifecycle

    with Project.open(discover(root), write_agent=True) as project:
        lifecycle.invalidate(project, [rid], reason="poisoned", actor="someone", now=DEMO_NOW)
    app = _app(root)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        await _go_to(pilot, a)
        await pilot.press("space")
        await _go_to(pilot, b)
        await pilot.press("space")
        await settle(pilot)
        app.screen.details.clear()  # as if neither detail had been read
        await pilot.press("a")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        asked = " ".join(app.screen._lines)
        assert asked.count("is invalidated") >= 2 and rid not in asked, asked
        await pilot.press("escape")
        await settle(pilot)
    assert _rows(root, "SELECT COUNT(*) FROM brainview_decision") == [(0,)]
