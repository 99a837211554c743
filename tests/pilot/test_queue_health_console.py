"""Queue health and no self-approval in the console (issue 34, items 1 and 2), at 80×24
and 120×40: the triage title and the overview say the queue is stale or growing, and a
decider who proposed the highlighted proposal is refused with one line, nothing written."""

from __future__ import annotations

import sqlite3
from datetime import timedelta
from pathlib import Path

import pytest

from brainview.demo.generator import DEMO_NOW
from brainview.services.metrics.queue_health import queue_health
from brainview.services.project import Project
from brainview.store.discovery import discover
from brainview.tui.app import BrainviewApp, make_app
from brainview.tui.clock import frozen
from brainview.tui.overview.vitals import QueueAlert
from tests.tui_helpers import settle

SIZES = [(80, 24), (120, 40)]


def _screen_text(app: BrainviewApp) -> str:
    update = app.screen._compositor.render_update(full=True)
    return "\n".join("".join(s.text for strip in line for s in strip) for line in update.strips)


def _agent(root: Path) -> sqlite3.Connection:
    return sqlite3.connect(root / ".spikuit" / "agent" / "circuit.db")


def _rows(root: Path) -> dict[str, list[tuple[object, ...]]]:
    conn = _agent(root)
    names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    out = {n: sorted(conn.execute(f"SELECT * FROM {n}").fetchall(), key=repr) for n in names}
    conn.close()
    return out


def _healthy(root: Path) -> None:
    """Every pending proposal one hour old, and a queue that does not grow."""
    conn = _agent(root)
    with conn:
        at = (DEMO_NOW - timedelta(hours=1)).isoformat()
        conn.execute("UPDATE brainview_proposal SET created_at = ?", (at,))
    conn.close()
    (root / ".spikuit" / "brainview.toml").write_text("[queue]\ngrowth_min = 1000\n")


@pytest.mark.parametrize("size", SIZES)
async def test_triage_title_shows_the_alert(demo, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    with Project.open(discover(root)) as project:
        health = queue_health(project, DEMO_NOW)
    assert health.stale_alert and health.growth_alert  # the demo's queue: 10 days, none decided
    app = make_app(discover(root), clock=frozen(DEMO_NOW), start="triage", decider="tester")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        title = app.screen.queue.title_text()
        alert = f"◷ {health.stale} waiting >7d · +{health.net_growth} in 7d"
        assert f"36 pending · {alert} · sort age" in title
        assert f"◷ {health.stale} waiting >7d" in _screen_text(app)


async def test_triage_title_is_quiet_when_healthy(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    _healthy(root)
    app = make_app(discover(root), clock=frozen(DEMO_NOW), start="triage", decider="tester")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert "◷" not in app.screen.queue.title_text()
        assert app.screen.queue.title_text().startswith("36 pending · sort age")


@pytest.mark.parametrize("size", SIZES)
async def test_overview_shows_the_alert(demo, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    app = make_app(discover(root), clock=frozen(DEMO_NOW), start="overview")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        alert = app.screen.query_one(QueueAlert)
        assert alert.display and len(alert.reasons) == 2
        shown = _screen_text(app)
        assert "pending proposal(s) waiting more than 7 days (oldest 10 days)" in shown
        assert "◷ queue grew by " in shown and " in 7 days: " in shown


async def test_overview_hides_the_alert_when_healthy(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    _healthy(root)
    app = make_app(discover(root), clock=frozen(DEMO_NOW), start="overview")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        alert = app.screen.query_one(QueueAlert)
        assert not alert.display and alert.reasons == []
        assert "waiting more than" not in _screen_text(app)
        assert "queue grew" not in _screen_text(app)


@pytest.mark.parametrize("size", SIZES)
async def test_the_author_is_refused_in_the_console(demo, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    before = _rows(root)
    probe = make_app(discover(root), clock=frozen(DEMO_NOW), start="triage", decider="probe")
    async with probe.run_test(size=size) as pilot:
        await settle(pilot)
        first = probe.screen.current_id
    conn = _agent(root)
    sql = "SELECT runtime FROM brainview_proposal WHERE id = ?"
    (author,) = conn.execute(sql, (first,)).fetchone()
    conn.close()
    app = make_app(discover(root), clock=frozen(DEMO_NOW), start="triage", decider=author)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        assert app.screen.current_id == first
        await pilot.press("a")
        await settle(pilot)
        said = [str(n.message) for n in app._notifications]
        assert any(f"refused: {author} proposed {first} and cannot accept it" in m for m in said)
        assert app.screen.current_id == first and app.screen.total == 36  # back in the queue
    assert _rows(root) == before


async def test_two_live_consoles_alert_refuse_the_author_and_let_the_other_decide(  # type: ignore[no-untyped-def]
    demo, monkeypatch
) -> None:
    """Two people at once (issue 34's two live consoles): both titles carry the stale
    queue's alert; the proposal's author is refused in hers, the other person accepts it
    in his, and her console drops it at its next poll."""
    from brainview.tui.triage import TriageScreen

    monkeypatch.setattr(TriageScreen, "POLL_SECONDS", 3600.0)  # polls when the test says
    root, _ = demo
    with Project.open(discover(root)) as project:
        health = queue_health(project, DEMO_NOW)
    probe = make_app(discover(root), clock=frozen(DEMO_NOW), start="triage", decider="probe")
    async with probe.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        first = probe.screen.current_id
    conn = _agent(root)
    (author,) = conn.execute(
        "SELECT runtime FROM brainview_proposal WHERE id = ?", (first,)
    ).fetchone()
    conn.close()
    her = make_app(discover(root), clock=frozen(DEMO_NOW), start="triage", decider=author)
    him = make_app(discover(root), clock=frozen(DEMO_NOW), start="triage", decider="bob")
    async with her.run_test(size=(120, 40)) as ph, him.run_test(size=(80, 24)) as pb:
        await settle(ph)
        await settle(pb)
        for app in (her, him):
            assert f"◷ {health.stale} waiting >7d" in app.screen.queue.title_text()
        await ph.press("a")
        await settle(ph)
        said = [str(n.message) for n in her._notifications]
        assert any(f"refused: {author} proposed {first}" in m for m in said)
        assert him.screen.current_id == first
        await pb.press("a")
        await settle(pb)
        conn = _agent(root)
        decided = conn.execute(
            "SELECT verdict, decider FROM brainview_decision WHERE proposal_id = ?", (first,)
        ).fetchall()
        conn.close()
        assert decided == [("accept", "bob")]
        her.call_later(her.screen.poll)
        await settle(ph)
        assert first not in [r.id for r in her.screen.rows]
