"""Triage driven by real keys on demo brains; asserts the rows written."""

from __future__ import annotations

import sqlite3

from brainview.demo.generator import DEMO_NOW
from brainview.services.intake import submit
from brainview.services.project import Project
from brainview.store.discovery import discover
from brainview.tui.app import make_app
from brainview.tui.clock import frozen
from tests.tui_helpers import settle


def _agent(root):  # type: ignore[no-untyped-def]
    return sqlite3.connect(root / ".spikuit" / "agent" / "circuit.db")


def _dump(root) -> dict[str, list[tuple]]:  # type: ignore[no-untyped-def]
    conn = _agent(root)
    tables = ["neuron", "synapse", "spike", "fsrs_state", "brainview_proposal", "brainview_consult"]
    out = {t: sorted(conn.execute(f"SELECT * FROM {t}").fetchall(), key=repr) for t in tables}
    # ``version`` is the optimistic-concurrency counter: it moves on every transition.
    out["brainview_proposal"] = sorted(
        conn.execute("SELECT id, status, stale_reason FROM brainview_proposal").fetchall()
    )
    conn.close()
    return out


async def _start(root, pilot_size=(120, 40)):  # type: ignore[no-untyped-def]
    return make_app(discover(root), clock=frozen(DEMO_NOW), start="triage", decider="tester")


async def test_accept_fires_grades_and_moves_on(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    app = await _start(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        first = screen.current_id
        await pilot.press("a")
        await settle(pilot)
        conn = _agent(root)
        (status,) = conn.execute(
            "SELECT status FROM brainview_proposal WHERE id=?", (first,)
        ).fetchone()
        consulted = conn.execute(
            "SELECT reflection_id, stance FROM brainview_consult "
            "WHERE proposal_id=? AND role='consulted'",
            (first,),
        ).fetchall()
        dec = conn.execute(
            "SELECT id, decider FROM brainview_decision WHERE proposal_id=?", (first,)
        ).fetchone()
        spikes = dict(
            conn.execute(
                "SELECT neuron_id, grade FROM spike WHERE session_id=?", (dec[0],)
            ).fetchall()
        )
        retrieved = [
            r
            for (r,) in conn.execute(
                "SELECT reflection_id FROM brainview_consult "
                "WHERE proposal_id=? AND role='retrieved'",
                (first,),
            )
        ]
        conn.close()
        assert status == "accepted" and dec[1] == "tester"
        expected = {r: 4 if s == "support" else 1 for r, s in consulted if s != "annotate"}
        assert spikes == expected
        assert not set(retrieved) & set(spikes)
        assert screen.current_id != first and screen.total == 35


async def test_reject_with_reason_then_undo_is_exact(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    before = _dump(root)
    app = await _start(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        first = app.screen.current_id
        await pilot.press("r")
        await pilot.pause()
        await pilot.press(*"purposes differ")
        await pilot.press("enter")
        await settle(pilot)
        conn = _agent(root)
        (new_id,) = conn.execute(
            "SELECT new_reflection_id FROM brainview_decision WHERE proposal_id=?", (first,)
        ).fetchone()
        (content,) = conn.execute("SELECT content FROM neuron WHERE id=?", (new_id,)).fetchone()
        conn.close()
        assert "purposes differ" in content
        await pilot.press("u")
        await settle(pilot)
        assert app.screen.current_id == first
    assert _dump(root) == before


async def test_mark_range_and_bulk_reject(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    app = await _start(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        ids = [r.id for r in app.screen.rows[:4] if not r.stale]
        await pilot.press("space")  # marks row 0, cursor → row 1
        await pilot.press("j", "j")  # cursor → row 3
        await pilot.press("v")  # range-mark rows 0..3
        assert len(app.screen.marked) == 4
        await pilot.press("r")
        await pilot.pause()
        await pilot.press("enter")  # no reason
        await settle(pilot)
        conn = _agent(root)
        rejected = {
            r for (r,) in conn.execute("SELECT id FROM brainview_proposal WHERE status='rejected'")
        }
        conn.close()
        assert set(ids) <= rejected and len(rejected) == 4
        assert app.screen.total == 32 and not app.screen.marked


async def test_stale_cannot_be_accepted(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    app = await _start(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        rows = app.screen.rows
        idx = next(i for i, r in enumerate(rows) if r.stale)
        app.screen.queue.move_to(idx)  # as a click: one detail read, not one a row
        await settle(pilot)
        assert app.screen.current_id in info.stale_proposal_ids
        assert app.screen.check_action("accept", ()) is False  # hidden from the footer
        await pilot.press("a")  # its hidden twin says why
        await settle(pilot)
        assert any("stale" in str(n.message) for n in app._notifications)
        conn = _agent(root)
        (status,) = conn.execute(
            "SELECT status FROM brainview_proposal WHERE id=?", (app.screen.current_id,)
        ).fetchone()
        conn.close()
        assert status == "pending"


async def test_live_arrival_from_another_process(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    app = await _start(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.screen.total == 36
        live = [u for u in info.user_ids if u not in info.retired_user_ids]
        with Project.open(discover(root), write_agent=True) as project:
            submit(
                project,
                {
                    "id": "prop-live-1",
                    "kind": "retire_neuron",
                    "params": {"neuron": live[-1]},
                    "consulted": [{"reflection": info.reflection_ids[0]}],
                },
                now=DEMO_NOW,
            )
        app.screen.poll()
        await settle(pilot)
        assert app.screen.total == 37
        assert "prop-live-1" in [r.id for r in app.screen.rows]


async def test_filter_narrows_queue(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    app = await _start(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash")
        await pilot.press(*"merge_neurons")
        await settle(pilot)
        assert app.screen.rows and all(r.kind == "merge_neurons" for r in app.screen.rows)
        await pilot.press("enter", "escape")
        await pilot.pause()


async def test_long_queue_pages_in_as_the_cursor_moves(make_demo) -> None:  # type: ignore[no-untyped-def]
    from brainview.demo.generator import DemoSpec

    root, _ = make_demo(DemoSpec(user_neurons=3000, reflections=150, proposals=450, seed=5))
    app = await _start(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert screen.total == 450 and len(screen.rows) == 200
        await pilot.press("G")
        await settle(pilot)
        assert len(screen.rows) == 400
        await pilot.press("G")
        await settle(pilot)
        assert len(screen.rows) == 450
        assert len({r.id for r in screen.rows}) == 450


def _user(root):  # type: ignore[no-untyped-def]
    return sqlite3.connect(root / ".spikuit" / "circuit.db")


async def test_accept_applies_to_user_brain_and_undo_reverts(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    conn = _user(root)
    before = sorted(conn.execute("SELECT * FROM synapse").fetchall(), key=repr)
    conn.close()
    app = await _start(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert "accept applies" in str(app.screen.query_one("#queue-title").render())
        first = app.screen.current_id
        await pilot.press("a")
        await settle(pilot)
        conn = _user(root)
        tags = [t for (t,) in conn.execute("SELECT tag FROM changeset")]
        conn.close()
        assert f"brainview:{first}" in tags
        await pilot.press("u")
        await settle(pilot)
    conn = _user(root)
    after = sorted(conn.execute("SELECT * FROM synapse").fetchall(), key=repr)
    tags = [t for (t,) in conn.execute("SELECT tag FROM changeset")]
    conn.close()
    assert after == before
    assert f"brainview:undo:{first}" in tags


async def test_record_only_mode_changes_nothing_in_user_brain(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    (root / ".spikuit" / "brainview.toml").write_text("[review]\nrecord_only = true\n")
    conn = _user(root)
    before = conn.execute("SELECT COUNT(*) FROM changeset").fetchone()[0]
    conn.close()
    app = await _start(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert "record-only" in str(app.screen.query_one("#queue-title").render())
        first = app.screen.current_id
        await pilot.press("a")
        await settle(pilot)
    conn = _user(root)
    assert conn.execute("SELECT COUNT(*) FROM changeset").fetchone()[0] == before
    conn.close()
    conn = _agent(root)
    assert (
        conn.execute("SELECT status FROM brainview_proposal WHERE id=?", (first,)).fetchone()[0]
        == "accepted"
    )
    conn.close()


async def test_dismiss_stale_without_grades(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    app = await _start(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        idx = next(i for i, r in enumerate(app.screen.rows) if r.stale)
        app.screen.queue.move_to(idx)  # as a click: one detail read, not one a row
        await settle(pilot)
        pid = app.screen.current_id
        await pilot.press("d")
        await pilot.pause()
        await pilot.press("enter")
        await settle(pilot)
    conn = _agent(root)
    status = conn.execute("SELECT status FROM brainview_proposal WHERE id=?", (pid,)).fetchone()[0]
    dec = conn.execute("SELECT id FROM brainview_decision WHERE proposal_id=?", (pid,)).fetchone()
    spikes = conn.execute("SELECT COUNT(*) FROM spike WHERE session_id=?", (dec[0],)).fetchone()[0]
    conn.close()
    assert status == "dismissed" and spikes == 0 and pid in info.stale_proposal_ids
