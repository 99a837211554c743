"""The two-person rule on two live consoles (as ``brainview serve`` starts them for
signed-in people): the first accept holds and shows ``½ ada`` on everyone's row, a
second person's accept applies it, the same person cannot be both, either withdraws,
and the overview reports the pair's agreement."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from brainview.core.identity import Identity
from brainview.core.kinds import USER_KINDS
from brainview.demo.generator import DEMO_NOW
from brainview.store.discovery import discover
from brainview.tui.app import BrainviewApp, make_app
from brainview.tui.clock import frozen
from brainview.tui.triage import TriageScreen
from tests.tui_helpers import settle

AGENT = Path(".spikuit") / "agent" / "circuit.db"


def _rule_on(root: Path) -> None:
    kinds = json.dumps(sorted(USER_KINDS))
    (root / ".spikuit" / "brainview.toml").write_text(
        f"[two_person]\nenabled = true\nrules = {kinds}\n"
    )


def _app(root: Path, name: str, start: str = "triage") -> BrainviewApp:
    ident = Identity(name, "maintainer", None)
    app = make_app(discover(root), clock=frozen(DEMO_NOW), start=start, identity=ident)
    told: list[str] = []
    shown = app.notify

    def notify(message: str, *args: Any, **kwargs: Any) -> None:
        told.append(str(message))
        shown(message, *args, **kwargs)

    app.notify = notify  # type: ignore[method-assign]
    app.told = told  # type: ignore[attr-defined]
    return app


def _said(app: BrainviewApp) -> list[str]:
    return list(app.told)  # type: ignore[attr-defined]


def _sql(root: Path, query: str, *args: object) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(root / AGENT)
    try:
        return conn.execute(query, args).fetchall()
    finally:
        conn.close()


def _plain(root: Path, info: Any) -> str:
    """A pending user-kind proposal with no flag and not stale (accept asks nothing)."""
    fresh = [p for p in info.proposal_ids if p not in info.stale_proposal_ids]
    kinds = "', '".join(USER_KINDS)
    rows = _sql(
        root,
        "SELECT id FROM brainview_proposal WHERE status = 'pending' AND suspicion IS NULL "
        f"AND kind IN ('{kinds}') ORDER BY created_at",
    )
    return next(p for (p,) in rows if p in fresh)


async def _on(app: BrainviewApp, pilot: Any, pid: str) -> None:
    app.screen.queue.move_to(next(i for i, r in enumerate(app.screen.rows) if r.id == pid))
    await settle(pilot)
    assert app.screen.current_id == pid


async def test_first_accept_holds_second_persons_accept_applies(demo, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    _rule_on(root)
    pid = _plain(root, info)
    monkeypatch.setattr(TriageScreen, "POLL_SECONDS", 3600.0)  # polls when the test says
    ada, bob = _app(root, "ada"), _app(root, "bob")
    async with ada.run_test(size=(120, 40)) as pa, bob.run_test(size=(120, 40)) as pb:
        await settle(pa)
        await settle(pb)
        await _on(ada, pa, pid)
        await pa.press("a")
        await settle(pa)
        assert any("your vote is recorded, nothing applied" in s for s in _said(ada))
        assert _sql(root, "SELECT status FROM brainview_proposal WHERE id = ?", pid) == [
            ("pending",)
        ]
        # ada's row is back, marked; she cannot be the second person too
        assert str(ada.screen.queue.table.get_cell(pid, "summary")).startswith("½ ada ")
        await _on(ada, pa, pid)
        await pa.press("a")
        await settle(pa)
        assert any("ada already accepted this" in s for s in _said(ada))
        # bob's poll shows the mark on his row and the line in the detail
        bob.call_later(bob.screen.poll)
        await settle(pb)
        assert str(bob.screen.queue.table.get_cell(pid, "summary")).startswith("½ ada ")
        await _on(bob, pb, pid)
        assert bob.screen.details[pid].approval == ("ada", "accept")
        await pb.press("a")
        await settle(pb)
        assert _sql(
            root, "SELECT verdict, decider FROM brainview_decision WHERE proposal_id = ?", pid
        ) == [("accept", "bob")]
        assert pid not in [r.id for r in bob.screen.rows]
        ada.call_later(ada.screen.poll)
        await settle(pa)
        assert pid not in [r.id for r in ada.screen.rows]


async def test_either_person_withdraws_and_the_overview_reports_agreement(  # type: ignore[no-untyped-def]
    demo, monkeypatch
) -> None:
    root, info = demo
    _rule_on(root)
    pid = _plain(root, info)
    monkeypatch.setattr(TriageScreen, "POLL_SECONDS", 3600.0)
    ada, bob = _app(root, "ada"), _app(root, "bob")
    async with ada.run_test(size=(120, 40)) as pa, bob.run_test(size=(120, 40)) as pb:
        await settle(pa)
        await settle(pb)
        await _on(ada, pa, pid)
        await pa.press("a")
        await settle(pa)
        bob.call_later(bob.screen.poll)
        await settle(pb)
        await _on(bob, pb, pid)
        await pb.press("W")  # bob withdraws ada's approval: asked first, escape keeps it
        await settle(pb)
        from brainview.tui.widgets.confirm import ConfirmScreen

        assert isinstance(bob.screen, ConfirmScreen)
        await pb.press("escape")
        await settle(pb)
        assert any("Not withdrawn" in s for s in _said(bob))
        assert [e for (e,) in _sql(root, "SELECT event FROM brainview_approval")] == ["vote"]
        await pb.press("W")
        await settle(pb)
        await pb.press("y")
        await settle(pb)
        assert any("withdrew ada's approval" in s for s in _said(bob))
        assert not str(bob.screen.queue.table.get_cell(pid, "summary")).startswith("½")
        assert [
            e for (e,) in _sql(root, "SELECT event FROM brainview_approval ORDER BY rowid")
        ] == [
            "vote",
            "withdraw",
        ]
        # now bob is first, ada second: applied, and the pair agrees
        await _on(bob, pb, pid)
        await pb.press("a")
        await settle(pb)
        ada.call_later(ada.screen.poll)
        await settle(pa)
        await _on(ada, pa, pid)
        await pa.press("a")
        await settle(pa)
        assert _sql(
            root, "SELECT verdict, decider FROM brainview_decision WHERE proposal_id = ?", pid
        ) == [("accept", "ada")]
    viewer = _app(root, "cy", start="overview")
    async with viewer.run_test(size=(120, 40)) as pc:
        await settle(pc)
        from brainview.tui.overview.team_line import TeamLine

        lines = viewer.screen.query_one(TeamLine).lines
        assert any(line.startswith("agreement: 1 of 1 agreed") for line in lines), lines


async def _invalidate(app: BrainviewApp, pilot: Any, rid: str, reason: str) -> None:
    from brainview.tui.lifecycle import InvalidateScreen
    from brainview.tui.reflection import ReflectionScreen

    app.push_screen(ReflectionScreen(rid))
    await settle(pilot)
    await pilot.press("x")
    await settle(pilot)
    assert isinstance(app.screen, InvalidateScreen)
    await pilot.press(*reason, "enter")
    await settle(pilot)
    await pilot.press("enter")  # the focused "Yes" button
    await settle(pilot)


def _retired(root: Path, rid: str) -> bool:
    (row,) = _sql(root, "SELECT retired_at FROM neuron WHERE id = ?", rid)
    return row[0] is not None


async def test_a_held_invalidation_says_so_and_a_second_person_applies_it(demo) -> None:  # type: ignore[no-untyped-def]
    """Invalidating needs two people (a default rule): the first console records a vote,
    says so (not "0 reflection(s) · U undoes"), and has nothing to undo; the second
    person's invalidation applies it, and that one undoes exactly."""
    root, info = demo
    (root / ".spikuit" / "brainview.toml").write_text(
        '[two_person]\nenabled = true\nrules = ["invalidate"]\n'
    )
    rid = info.reflection_ids[4]
    ada, bob = _app(root, "ada", start="overview"), _app(root, "bob", start="overview")
    async with ada.run_test(size=(120, 40)) as pa, bob.run_test(size=(120, 40)) as pb:
        await settle(pa)
        await settle(pb)
        await _invalidate(ada, pa, rid, "planted")
        said = _said(ada)
        assert any("½ your approval to invalidate 1 reflection(s) is recorded" in s for s in said)
        assert not any("U undoes" in s for s in said), said
        assert not _retired(root, rid)
        from brainview.tui.widgets.audit_view import AuditView

        shown = ada.screen.query_one(AuditView).waiting
        assert shown and shown[0].startswith("½ approved by ada — needs a second person")
        await pa.press("U")  # nothing of ada's to undo: the vote is withdrawn, not undone
        await settle(pa)
        assert any("No lifecycle action to undo" in s for s in _said(ada))
        assert [e for (e,) in _sql(root, "SELECT event FROM brainview_approval")] == ["vote"]
        from brainview.tui.reflection import ReflectionScreen

        bob.push_screen(ReflectionScreen(rid))  # the other person sees the vote waiting
        await settle(pb)
        assert bob.screen.query_one(AuditView).waiting[0].startswith("½ approved by ada")
        bob.pop_screen()
        await settle(pb)
        await _invalidate(bob, pb, rid, "planted, agreed")
        assert _retired(root, rid)
        assert any("U undoes" in s for s in _said(bob))
        await pb.press("U")
        await settle(pb)
        assert not _retired(root, rid)


async def test_a_policy_needs_two_people_on_two_consoles(demo, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The default rules (on with ``enabled = true``) put policy promotions under two
    people: ada's accept of a drafted policy holds and writes no policy; bob's applies it."""
    root, info = demo
    (root / ".spikuit" / "brainview.toml").write_text("[two_person]\nenabled = true\n")
    monkeypatch.setattr(TriageScreen, "POLL_SECONDS", 3600.0)
    import os
    import subprocess
    import sys

    queued = subprocess.run(  # the consolidation planner drafts the policies, as `z` does
        [sys.executable, "-m", "brainview", "reflect", "consolidate", "-C", str(root)],
        capture_output=True, text=True, timeout=300,
        env={**os.environ, "BRAINVIEW_NOW": DEMO_NOW.isoformat()},
    )  # fmt: skip
    assert queued.returncode == 0, queued.stderr
    rows = _sql(
        root,
        "SELECT id FROM brainview_proposal WHERE status = 'pending' AND suspicion IS NULL "
        "AND kind = 'summarize_community' ORDER BY created_at, id",
    )
    pid = rows[0][0]

    def policies() -> int:
        return _sql(root, "SELECT COUNT(*) FROM neuron WHERE type = 'policy'")[0][0]

    before = policies()
    ada, bob = _app(root, "ada"), _app(root, "bob")
    async with ada.run_test(size=(120, 40)) as pa, bob.run_test(size=(120, 40)) as pb:
        await settle(pa)
        await settle(pb)
        await _on(ada, pa, pid)
        await pa.press("a")
        await settle(pa)
        assert any("your vote is recorded, nothing applied" in s for s in _said(ada))
        assert policies() == before
        bob.call_later(bob.screen.poll)
        await settle(pb)
        await _on(bob, pb, pid)
        assert bob.screen.details[pid].approval == ("ada", "accept")
        await pb.press("a")
        await settle(pb)
        assert _sql(
            root, "SELECT verdict, decider FROM brainview_decision WHERE proposal_id = ?", pid
        ) == [("accept", "bob")]
        assert policies() == before + 1
