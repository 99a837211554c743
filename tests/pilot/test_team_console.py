"""Two people's consoles on the same brains (as ``brainview serve`` starts them for
signed-in people): presence marks, "decided by" notices, and roles enforced."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from brainview.core.identity import Identity
from brainview.demo.generator import DEMO_NOW
from brainview.errors import UsageError
from brainview.store.discovery import discover
from brainview.tui.app import BrainviewApp, identity_of, make_app
from brainview.tui.clock import frozen
from brainview.tui.role_gate import allowed
from brainview.tui.triage import TriageScreen
from tests.tui_helpers import settle


def _app(root: Path, name: str, role: str, presence: Path | None, start: str = "triage"):  # type: ignore[no-untyped-def]
    ident = Identity(name, role, str(presence) if presence else None)  # type: ignore[arg-type]
    app = make_app(discover(root), clock=frozen(DEMO_NOW), start=start, identity=ident)
    told: list[tuple[str, str]] = []
    shown = app.notify

    def notify(message: str, *args: object, **kwargs: object) -> None:
        told.append((str(kwargs.get("title") or ""), str(message)))
        shown(message, *args, **kwargs)  # type: ignore[arg-type]

    app.notify = notify  # type: ignore[method-assign]
    app.told = told  # type: ignore[attr-defined]
    return app


def _said(app: BrainviewApp, title: str | None = None) -> list[str]:
    """Every notification so far (a toast may time out on a slow machine before it is
    read), optionally only those titled ``title``."""
    return [m for t, m in app.told if title is None or t == title]  # type: ignore[attr-defined]


def _decisions(root: Path) -> list[tuple[str, str, str]]:
    conn = sqlite3.connect(root / ".spikuit" / "agent" / "circuit.db")
    rows = conn.execute(
        "SELECT proposal_id, verdict, decider FROM brainview_decision WHERE undone_at IS NULL"
    ).fetchall()
    conn.close()
    return sorted(rows)


async def test_each_sees_where_the_other_looks_and_who_decided(demo, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    # the polls run when the test says (the notice is read before it times out)
    monkeypatch.setattr(TriageScreen, "POLL_SECONDS", 3600.0)
    db = tmp_path / "presence.db"
    alice, bob = _app(root, "alice", "reviewer", db), _app(root, "bob", "reviewer", db)
    async with alice.run_test(size=(120, 40)) as pa, bob.run_test(size=(120, 40)) as pb:
        await settle(pa)
        await settle(pb)
        assert alice.title == "brainview · alice · reviewer"
        first = alice.screen.current_id
        await pa.press("j")  # alice looks at the second proposal
        await settle(pa)
        second = alice.screen.current_id
        assert second != first
        bob.call_later(bob.screen.poll)  # the 1 s tick, now (in bob's app)
        await settle(pb)
        queue = bob.screen.queue
        assert queue.holders == {second: "alice"}
        cell = queue.table.get_cell(second, "summary")
        assert str(cell).startswith("◉ alice ")
        await pb.press("j")  # bob opens the proposal alice holds: told so
        await settle(pb)
        assert bob.screen.current_id == second
        assert any(s.startswith("alice is looking at this since") for s in _said(bob))
        # bob decides it anyway: alice's queue loses the row at her next poll, which
        # names who decided it
        await pb.press("r")
        await pb.pause()
        await pb.press("enter")
        await settle(pb)
        assert _decisions(root) == [(second, "reject", "bob")]
        alice.call_later(alice.screen.poll)
        await settle(pa)
        assert second not in [r.id for r in alice.screen.rows]
        assert any(s.startswith("rejected by bob 0 s ago: ") for s in _said(alice))
    conn = sqlite3.connect(db)
    left = conn.execute("SELECT holder FROM claim").fetchall()
    conn.close()
    assert left == []  # quitting withdrew both claims


async def test_a_decision_elsewhere_is_named_by_the_reload_after_ones_own(  # type: ignore[no-untyped-def]
    demo, tmp_path, monkeypatch
) -> None:
    """The poll waits while this console's own decision runs, so the reload that follows
    it can be the first read to see someone else's decision: it names it too."""
    root, _ = demo
    monkeypatch.setattr(TriageScreen, "POLL_SECONDS", 3600.0)  # no poll gets there first
    db = tmp_path / "presence.db"
    alice, bob = _app(root, "alice", "reviewer", db), _app(root, "bob", "reviewer", db)
    async with alice.run_test(size=(120, 40)) as pa, bob.run_test(size=(120, 40)) as pb:
        await settle(pa)
        await settle(pb)
        first = alice.screen.current_id
        await pb.press("j")
        await settle(pb)
        second = bob.screen.current_id
        assert second != first and second in [r.id for r in alice.screen.rows]
        bob.call_later(bob.screen._actions._decide, [second], "dismiss", "dup", 1.0)
        await settle(pb)
        await pa.press("r")  # alice rejects the first; her reload sees bob's too
        await pa.pause()
        await pa.press("enter")
        await settle(pa)
        assert _decisions(root) == sorted([(first, "reject", "alice"), (second, "dismiss", "bob")])
        assert second not in [r.id for r in alice.screen.rows]
        assert any(s.startswith("dismissed by bob ") for s in _said(alice, "Decided elsewhere"))


async def test_a_double_decision_is_refused_and_says_so(demo, tmp_path) -> None:
    # Two apps run in one test: a call from the test goes through ``call_later`` so it
    # runs in that app's own task (as each console is its own process under serve).  # type: ignore[no-untyped-def]
    root, _ = demo
    db = tmp_path / "presence.db"
    alice, bob = _app(root, "alice", "reviewer", db), _app(root, "bob", "reviewer", db)
    async with alice.run_test(size=(120, 40)) as pa, bob.run_test(size=(120, 40)) as pb:
        await settle(pa)
        await settle(pb)
        first = alice.screen.current_id
        assert bob.screen.current_id == first
        await pa.press("r")
        await pa.pause()
        await pa.press("enter")
        await settle(pa)
        # bob rejects the same proposal from a queue read before alice's decision (his
        # poll may have run meanwhile, so the flow is driven with the id he saw)
        bob.call_later(bob.screen._actions._decide, [first], "reject", None, 1.0)
        await settle(pb)
        assert _decisions(root) == [(first, "reject", "alice")]
        assert _said(bob, "Refused")


async def test_a_reviewer_cannot_invalidate_from_any_screen(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    app = _app(root, "alice", "reviewer", None, start="communities")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert screen.check_action("lifecycle", ("invalidate",)) is False  # hidden
        assert allowed(screen, "decide", ("rescue",))  # rescue / let go: a reviewer may
        assert app.check_action("consolidate", ()) is False
        assert app.check_action("toggle_writing", ()) is False
        app.open_reflection(info.reflection_ids[0])
        await settle(pilot)
        assert app.screen.check_action("lifecycle", ("invalidate",)) is False
        await pilot.press("x")  # the key does nothing: hidden, and no dialog opens
        await settle(pilot)
        assert type(app.screen).__name__ == "ReflectionScreen"
        # reached anyway (as the palette or a script would): refused by the session
        from brainview.errors import RoleRefusedError

        with pytest.raises(RoleRefusedError, match=r"needs the maintainer role \(alice"):
            app.session.lifecycle("invalidate", [info.reflection_ids[0]], "bad")
    conn = sqlite3.connect(root / ".spikuit" / "agent" / "circuit.db")
    has = conn.execute(
        "SELECT COUNT(*) FROM sqlite_master WHERE name = 'brainview_lifecycle'"
    ).fetchone()[0]
    n = conn.execute("SELECT COUNT(*) FROM brainview_lifecycle").fetchone()[0] if has else 0
    conn.close()
    assert n == 0


async def test_a_viewer_cannot_decide(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    app = _app(root, "vic", "viewer", None)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert app.title == "brainview · vic · viewer"
        first = screen.current_id
        for verb in ("accept", "reject", "dismiss_proposal", "undo", "export", "edit_policy"):
            assert screen.check_action(verb, ()) is False
        await pilot.press("a")  # hidden: its twin says why
        await settle(pilot)
        assert any(
            s == "deciding proposals needs the reviewer role (vic is a viewer)" for s in _said(app)
        )
        await pilot.press("r")
        await settle(pilot)
        assert screen.current_id == first and app.screen is screen  # no reason prompt
        assert app.session.open_modes == [(False, False)]  # never opened for writing
    assert _decisions(root) == []


def test_a_bad_identity_is_one_usage_line() -> None:
    assert identity_of({}) is None
    with pytest.raises(UsageError, match="must be set together"):
        identity_of({"BRAINVIEW_AS": "alice"})
    with pytest.raises(UsageError, match="unknown role"):
        identity_of({"BRAINVIEW_AS": "alice", "BRAINVIEW_ROLE": "root"})
    ident = identity_of(
        {"BRAINVIEW_AS": "alice", "BRAINVIEW_ROLE": "reviewer", "BRAINVIEW_PRESENCE": "/tmp/p"}
    )
    assert ident == Identity("alice", "reviewer", "/tmp/p")


async def test_a_reviewer_cannot_undo_someone_elses_decision(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    alice = _app(root, "alice", "reviewer", None)
    async with alice.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        first = alice.screen.current_id
        await pilot.press("r")
        await pilot.pause()
        await pilot.press("enter")
        await settle(pilot)
    bob = _app(root, "bob", "reviewer", None)
    async with bob.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert bob.screen.last_decision is not None
        await pilot.press("u")  # this session decided nothing: the project's last is alice's
        await settle(pilot)
        assert type(bob.screen).__name__ == "TriageScreen"  # no "undo it?" dialog
        assert (
            "undoing someone else's decision needs the maintainer role (bob is a reviewer)"
            in _said(bob)
        )
    assert _decisions(root) == [(first, "reject", "alice")]


async def test_a_page_read_before_a_decision_never_brings_its_row_back(  # type: ignore[no-untyped-def]
    demo, tmp_path, monkeypatch
) -> None:
    """A reload in flight when a decision starts (a poll saw someone else's decision)
    read the queue before this one committed: its page must not put the decided row back
    under the cursor, where the next key press would decide it again."""
    import asyncio
    import threading

    from brainview.tui.triage import jobs

    root, _ = demo
    monkeypatch.setattr(TriageScreen, "POLL_SECONDS", 3600.0)
    read_gate, read_done, decide_gate = threading.Event(), threading.Event(), threading.Event()
    real_read, real_decide = jobs.read_queue, jobs.decide

    def held_read(*args, **kwargs):  # type: ignore[no-untyped-def]
        job = real_read(*args, **kwargs)

        def run(session):  # type: ignore[no-untyped-def]
            page = job(session)  # read now, before the decision …
            read_done.set()
            read_gate.wait(30)  # … shown once the decision has started
            return page

        return run

    def held_decide(*args, **kwargs):  # type: ignore[no-untyped-def]
        job = real_decide(*args, **kwargs)

        def run(session):  # type: ignore[no-untyped-def]
            decide_gate.wait(30)
            return job(session)

        return run

    app = _app(root, "ada", "reviewer", tmp_path / "presence.db")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        first = app.screen.current_id
        monkeypatch.setattr(jobs, "read_queue", held_read)
        app.screen.reload()
        assert await asyncio.to_thread(read_done.wait, 30)
        monkeypatch.setattr(jobs, "read_queue", real_read)
        monkeypatch.setattr(jobs, "decide", held_decide)
        await pilot.press("r")
        await pilot.pause()
        await pilot.press("enter")  # the row leaves at once; the decision waits
        await pilot.pause()
        assert first not in [r.id for r in app.screen.rows]
        read_gate.set()  # the page read before the decision arrives
        for _ in range(20):
            await pilot.pause(0.05)
        assert first not in [r.id for r in app.screen.rows]
        assert app.screen.current_id != first
        decide_gate.set()
        await settle(pilot)
        assert first not in [r.id for r in app.screen.rows]
    assert [d for d in _decisions(root) if d[0] == first] == [(first, "reject", "ada")]


async def test_a_page_that_lost_rows_is_patched_in_place_as_a_full_draw_would_show(  # type: ignore[no-untyped-def]
    demo, monkeypatch
) -> None:
    """Every console re-reads its page when anyone decides: a page that is the shown
    one less some rows (with some flags changed) is drawn by removing those rows and
    redrawing the changed cells only, and ends exactly as a full redraw would."""
    from dataclasses import replace

    from brainview.tui.triage.queue_cells import queue_cells

    root, _ = demo
    monkeypatch.setattr(TriageScreen, "POLL_SECONDS", 3600.0)
    app = _app(root, "ada", "reviewer", None)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        q = app.screen.queue
        await pilot.press("j", "j", "j")
        await settle(pilot)
        rows = list(q.rows)
        on = q.current_id
        assert on == rows[3].id
        new = [replace(r, stale="changed elsewhere") if i == 4 else r for i, r in enumerate(rows)]
        del new[1]  # decided by someone else, above the cursor

        def no_full_redraw() -> None:
            raise AssertionError("the table was rebuilt")

        monkeypatch.setattr(q, "_fill", no_full_redraw)
        q.show_page(new, q.total - 1, q.pending - 1, keep=on)
        await pilot.pause()
        now = app.now().timestamp()
        want = [[str(c) for c in queue_cells(r, False, now)] for r in new]
        got = [[str(c) for c in q.table.get_row(r.id)] for r in new]
        assert got == want
        assert [str(k.value) for k in q.table.rows] == [r.id for r in new]
        assert q.current_id == on  # the cursor stayed on the proposal it was on
        assert str(q.table.get_cell(new[3].id, "mark")).strip() == "↻"


async def test_a_detail_read_again_redraws_only_the_panes_whose_text_changed(  # type: ignore[no-untyped-def]
    demo, monkeypatch
) -> None:
    """After a decision elsewhere the current proposal is read again: a pane whose text
    is the same is not drawn again (each draw is a pass over the screen, in every
    console of a team); the pane whose text changed is."""
    import io
    from dataclasses import replace

    from rich.console import Console

    from brainview.tui.triage.panes import AgentPane, ProposalPane, UserPane

    root, _ = demo
    monkeypatch.setattr(TriageScreen, "POLL_SECONDS", 3600.0)
    app = _app(root, "ada", "reviewer", None)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        detail = screen.detail
        assert detail is not None and detail.consulted
        drawn: list[str] = []
        panes = [screen.query_one(t) for t in (ProposalPane, AgentPane, UserPane)]

        def counted(name: str, real):  # type: ignore[no-untyped-def]
            def update(*args, **kwargs):  # type: ignore[no-untyped-def]
                drawn.append(name)
                return real(*args, **kwargs)

            return update

        for pane in panes:
            monkeypatch.setattr(pane.body, "update", counted(type(pane).__name__, pane.body.update))
        for pane in panes:  # read again, equal
            pane.detail = replace(detail)
        await pilot.pause()
        assert drawn == []
        first = detail.consulted[0]
        moved = replace(first, state="challenged")  # by someone else, meanwhile
        again = replace(detail, consulted=[moved, *detail.consulted[1:]])
        for pane in panes:
            pane.detail = again
        await pilot.pause()
        assert "AgentPane" in drawn and "UserPane" not in drawn
        # the projections the proposal and user panes compare hold all they show: a
        # lesson's card moving (a grade fired elsewhere) changes neither text
        from brainview.tui.triage.panes import _lines

        graded = [
            replace(v, stability=(v.stability or 1) * 3, retrievability=0.5, recent_grades=[1, 4])
            for v in detail.consulted
        ]
        for pane in (panes[0], panes[2]):
            width = pane.body.size.width
            same = _lines(pane.render_detail(replace(detail, consulted=graded)), width)
            assert same == _lines(pane.render_detail(detail), width)
            assert pane.view(replace(detail, consulted=graded)) == pane.view(detail)
        shown = Console(width=80, record=True, file=io.StringIO())
        shown.print(panes[1].body.content)
        assert "challenged" in shown.export_text()
