"""What a maintainer hit in a first real trial of triage, each fixed: the filter gives
the whole queue back, the decision shows first at 80×24 and 60×20, titles instead of
ids, one vocabulary for grades and verdicts, the mark key's move documented, all
consulted lessons one key away.  Real keys on demo brains."""

from __future__ import annotations

from pathlib import Path

from textual.geometry import Region
from textual.widgets import Static

from brainview.core.safe_text import first_line
from brainview.demo.generator import DEMO_NOW
from brainview.store.discovery import discover
from brainview.tui.app import BrainviewApp, make_app
from brainview.tui.clock import frozen
from brainview.tui.triage import TriageScreen
from brainview.tui.triage.panes import AgentPane, ProposalPane, UserPane
from tests.tui_helpers import settle


def _app(root: Path) -> BrainviewApp:
    return make_app(discover(root), clock=frozen(DEMO_NOW), start="triage", decider="tester")


def _screen(app: BrainviewApp) -> TriageScreen:
    screen = app.screen
    assert isinstance(screen, TriageScreen)
    return screen


def _visible(app: BrainviewApp) -> str:
    """What the terminal shows now (only what is on screen, not what a pane could
    scroll to)."""
    update = app.screen._compositor.render_update(full=True)
    return "\n".join("".join(s.text for strip in line for s in strip) for line in update.strips)


def _pane(app: BrainviewApp, selector: str) -> str:
    """All of a pane's text, as rendered (lines joined)."""
    static = app.screen.query_one(selector, Static)
    width, height = static.size
    lines = static.render_lines(Region(0, 0, width, height))
    return " ".join(" ".join(s.text for s in lines).split())


def _title(app: BrainviewApp) -> str:
    return str(app.screen.query_one("#queue-title", Static).render())


def _record_notes(app: BrainviewApp) -> list[str]:
    """Every notification's text as it is raised (a toast expires in real time; a loaded
    machine must not make the test miss it)."""
    seen: list[str] = []
    notify = app.notify

    def record(message: str, *args: object, **kwargs: object) -> None:
        seen.append(str(message))
        notify(message, *args, **kwargs)  # type: ignore[arg-type]

    app.notify = record  # type: ignore[method-assign]
    return seen


async def _go_to_kind(pilot, kind: str, rationale: str = "") -> str:  # type: ignore[no-untyped-def]
    screen = _screen(pilot.app)
    for row in screen.rows:
        if row.kind == kind and not row.stale:
            # straight to the row (as a click would): one detail read, not one per row
            screen.queue.move_to([r.id for r in screen.rows].index(row.id))
            await settle(pilot)
            detail = screen.detail
            assert detail is not None and detail.id == row.id
            if rationale in detail.rationale:
                return row.id
            await pilot.press("g")
            await settle(pilot)
    raise AssertionError(f"no fresh {kind} proposal in the demo")


async def test_escape_after_deciding_every_match_gives_the_whole_queue_back(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    app = _app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = _screen(app)
        await pilot.press("slash", *"add_synapse", "enter")
        await settle(pilot)
        matches = [r.id for r in screen.rows]
        assert matches and all(r.kind == "add_synapse" for r in screen.rows)
        assert _title(app).startswith(f"{len(matches)} of 36 ")
        await pilot.press(*(["space"] * len(matches)), "r")
        await pilot.pause()
        await pilot.press("enter")
        await settle(pilot)
        left = 36 - len(matches)
        assert screen.total == 0 and _title(app).startswith(f"0 of {left} ")
        assert "escape clears the filter" in _pane(app, "#proposal")
        await pilot.press("escape")
        await settle(pilot)
        assert screen.queue.needle == "" and not screen.queue.bar.display
        assert screen.total == left and len(screen.rows) == left
        assert _title(app).startswith(f"{left} pending")
        assert "Nothing pending" not in _pane(app, "#proposal")


async def test_escape_in_the_filter_box_clears_the_filter(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    app = _app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = _screen(app)
        await pilot.press("slash", *"merge_neurons")
        await settle(pilot)
        assert screen.total < 36
        await pilot.press("escape")  # still typing in the box
        await settle(pilot)
        assert screen.queue.needle == "" and screen.total == 36
        assert not screen.queue.bar.display and screen.queue.bar.value == ""


async def test_at_80x24_the_change_and_every_consulted_lesson_show_first(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    app = _app(root)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = _screen(app)
        detail = screen.detail
        assert detail is not None and detail.preview and detail.consulted
        shown = _visible(app)
        assert "change" in shown and "after" in shown
        for what, _before, _after in detail.preview:
            assert what.split()[0] in shown  # each change row is on screen
        assert shown.count("accept →") == len(detail.consulted)
        for v in detail.consulted:
            assert first_line(v.display or v.content, 60)[:16] in shown
        assert screen.queue.table.size.height - 1 > 4  # more than four queue rows


async def test_at_60x20_nothing_collapses(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    app = _app(root)
    async with app.run_test(size=(60, 20)) as pilot:
        await settle(pilot)
        screen = _screen(app)
        assert screen.query_one(ProposalPane).size.height > 2
        assert screen.query_one(AgentPane).size.height >= 3
        assert screen.queue.table.size.height - 1 >= 3
        assert "consulted (" in _visible(app)


async def test_z_shows_every_consulted_lesson_full_screen(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    app = _app(root)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = _screen(app)
        await pilot.press("z")
        await settle(pilot)
        assert screen.maximized is screen.query_one(AgentPane)
        detail = screen.detail
        assert detail is not None
        assert _visible(app).count("accept →") == len(detail.consulted)
        await pilot.press("escape")
        await settle(pilot)
        assert screen.maximized is None
        await pilot.press("n")
        await settle(pilot)
        assert screen.maximized is screen.query_one(UserPane)


async def test_titles_not_ids_where_a_person_reads(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    app = _app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = _screen(app)
        await _go_to_kind(pilot, "add_synapse")
        detail = screen.detail
        assert detail is not None
        pre, post = detail.params["pre"], detail.params["post"]
        row = screen.queue.row(detail.id)
        assert row is not None and row.title_summary is not None
        assert "⟦" in row.title_summary and pre not in row.title_summary
        cell = screen.queue.table.get_cell(detail.id, "summary").plain
        assert pre not in cell and "⟦" in cell
        text = _pane(app, "#proposal")
        assert pre not in text and post not in text and "synapse ⟦" in text
        # A domain rename names no single neuron: the pane says so, never "none".
        await pilot.press("g")
        await _go_to_kind(pilot, "rename_domain")
        user = _pane(app, "#user-neurons")
        assert "no user neurons named" not in user
        assert "names a domain" in user
        # "Superseded by a newer, fuller note" names the note.
        await pilot.press("g")
        await _go_to_kind(pilot, "retire_neuron", "Superseded")
        why = _pane(app, "#proposal")
        assert "Superseded by ⟦" in why and "[user:" not in why


async def test_one_vocabulary_for_grades_and_verdicts(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    app = _app(root)
    notes = _record_notes(app)
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        screen = _screen(app)
        detail = screen.detail
        assert detail is not None
        lessons = _pane(app, "#reflections")
        assert "accept → █ strong" in lessons or "accept → ▁ miss" in lessons
        for other in ("✓✓", "◆", "✓ fire", "accept → strong", "S —"):
            assert other not in lessons
        await pilot.press("a")
        await settle(pilot)
        note = next(n for n in notes if n.startswith("✓ accepted"))
        assert "grades fired:" in note and ("█ strong" in note or "▁ miss" in note)


def test_space_moving_the_cursor_is_documented() -> None:
    mark = next(b for b in TriageScreen.BINDINGS if getattr(b, "id", None) == "triage.mark")
    assert "move" in (mark.tooltip or "")
    assert "move" in (TriageScreen.__doc__ or "").split("`space`")[1].split("\n")[0]


async def test_a_decision_shows_the_next_proposal_in_the_same_frame(demo) -> None:  # type: ignore[no-untyped-def]
    """Accepting takes the row off and puts the next proposal's (prefetched) detail in
    every pane before the key's handler returns: the frame that shows the queue
    without the decided row already shows what comes next, not the old detail or
    "loading…" for a frame or two while a message makes its way up the tree."""
    root, _ = demo
    app = _app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = _screen(app)
        while screen.rows[screen.queue.table.cursor_row].stale:  # stale ones refuse accept
            await pilot.press("s")
            await settle(pilot)
        first, nxt = screen.current_id, screen.queue.neighbour_id(1)
        assert nxt is not None and nxt in screen.details  # prefetched while reading first
        screen.action_accept()  # what the key runs, with no message handled after it
        assert first not in [r.id for r in screen.rows]
        for pane in (ProposalPane, AgentPane, UserPane):
            shown = screen.query_one(pane).detail
            assert shown is not None and shown.id == nxt
        await settle(pilot)
        assert screen.current_id == nxt and screen.detail is not None
        assert screen.detail.id == nxt
