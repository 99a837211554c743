"""Multi-process soak: the real console decides while others use the same brains.

Three curator processes run ``brainview propose`` in a loop, one process reads and
writes both brains with plain ``sqlite3`` (opening and closing every time: the
trigger of the lost-WAL bug), and one opens the user brain with real Spikuit's
``Circuit``.  Meanwhile the console (pilot) accepts, rejects, undoes (accept then
``u`` with another process reading between the keys), bulk-decides and undoes the
bulk, and invalidates a reflection.  After every console action a *separate
process* must see exactly what the console shows; at the end both brains pass
``PRAGMA integrity_check``, the console holds no deleted WAL, no proposal is decided
twice and every live decision's spikes equal the grades it recorded.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from brainview.demo.generator import DEMO_NOW
from brainview.store.discovery import discover
from tests.tui_helpers import settle

pytestmark = pytest.mark.slow
ROUNDS = 1
"""Each round: accept then ``u`` 1.5 s later, a rejection, a bulk of two and its undo."""
REPO = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(REPO), "BRAINVIEW_NOW": DEMO_NOW.isoformat()}


def look(root: Path, sql: str, *params: Any, brain: str = "agent") -> list[list[Any]]:
    """Run one query in a *separate process* (what another tool would see)."""
    db = root / ".spikuit" / ("agent/circuit.db" if brain == "agent" else "circuit.db")
    code = (
        "import json, sqlite3, sys\n"
        "c = sqlite3.connect(sys.argv[1], timeout=10)\n"
        "print(json.dumps(c.execute(sys.argv[2], json.loads(sys.argv[3])).fetchall()))\n"
        "c.close()\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(db), sql, json.dumps(params)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return json.loads(out.stdout)


def status(root: Path, pid: str) -> str:
    return look(root, "SELECT status FROM brainview_proposal WHERE id=?", pid)[0][0]


def start_actors(root: Path, stop: Path) -> list[subprocess.Popen[str]]:
    roles = [("curator", 1), ("curator", 2), ("curator", 3), ("sqlite", 4), ("spikuit", 5)]
    roles = [r for r in roles if r[0] in os.environ.get("SOAK_ROLES", "curator,sqlite,spikuit")]
    return [
        subprocess.Popen(
            [sys.executable, "-m", "tests.soak.actors", role, str(root), str(seed), str(stop)],
            cwd=REPO,
            env=ENV,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for role, seed in roles
    ]


def deleted_brain_fds() -> list[str]:
    """Descriptors of this process that point at a deleted brain file or side file."""
    fd_dir = Path("/proc/self/fd")
    out = []
    for fd in fd_dir.iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if "circuit.db" in target and target.endswith("(deleted)"):
            out.append(target)
    return out


class Console:
    """The pilot plus what the console *shows*, checked against another process."""

    def __init__(self, app: Any, pilot: Any, root: Path) -> None:
        self.app, self.pilot, self.root = app, pilot, root
        self.actions = 0
        self.checks = 0
        self.phases: dict[str, float] = {}
        self._t = time.monotonic()

    def lap(self, name: str) -> None:
        now = time.monotonic()
        self.phases[name] = self.phases.get(name, 0.0) + now - self._t
        self._t = now

    @property
    def screen(self) -> Any:
        return self.app.screen

    def shown_pending(self) -> set[str]:
        return {r.id for r in self.screen.rows}

    async def press(self, *keys: str) -> None:
        for key in keys:
            await self.pilot.press(key)
        await settle(self.pilot, rounds=4)
        self.actions += 1

    async def wait_for(self, cond: Any, what: str, timeout: float = 15.0) -> None:
        end = time.monotonic() + timeout
        while not cond():
            if time.monotonic() > end:
                raise AssertionError(f"console never showed: {what}")
            await self.pilot.pause(0.1)

    def agree(self, pid: str, expect: str) -> None:
        """The console's claim about ``pid`` is what another process sees."""
        seen = status(self.root, pid)
        assert seen == expect, f"{pid}: console says {expect}, another process sees {seen}"
        shown = pid in self.shown_pending()
        assert shown == (expect == "pending"), f"{pid}: shown pending={shown}, DB {seen}"
        self.checks += 1

    async def fresh(self) -> str:
        """Put the cursor on the first decidable proposal (not stale, not flagged, not
        marked) and return its id."""
        rows = self.screen.rows
        i = next(
            i
            for i, r in enumerate(rows)
            if r.stale is None and r.suspicion is None and r.id not in self.screen.marked
        )
        self.screen.query_one("#queue").move_cursor(row=i)
        await settle(self.pilot)
        assert self.screen.current_id == rows[i].id
        return rows[i].id


async def test_console_with_curators_sqlite_and_spikuit(demo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from brainview.tui.app import make_app
    from brainview.tui.clock import frozen
    from brainview.tui.reflection import ReflectionScreen

    root, info = demo
    stop = tmp_path / "stop"
    actors = start_actors(root, stop)
    started = time.monotonic()
    app = make_app(discover(root), clock=frozen(DEMO_NOW), start="triage", decider="tester")
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            c = Console(app, pilot, root)
            await settle(pilot, rounds=8)
            for round_ in range(ROUNDS):
                # accept, then u about 1.5 s later with another process reading between keys
                pid = await c.fresh()
                await c.press("a")
                c.agree(pid, "accepted")
                look(root, "SELECT count(*) FROM spike")
                await pilot.pause(1.5 if round_ == 0 else 0.3)
                await c.press("u")
                await c.wait_for(lambda p=pid: p in c.shown_pending(), f"{pid} pending again")
                c.agree(pid, "pending")
                c.lap("accept+u")
                # reject with a reason
                pid = await c.fresh()
                await c.press("r")
                await c.press(*f"no{round_}", "enter")
                c.agree(pid, "rejected")
                c.lap("reject")
                # a bulk of two, then one u undoes the whole bulk
                for _ in range(2):
                    await c.fresh()
                    await c.press("space")
                bulk = sorted(c.screen.marked)
                assert len(bulk) == 2
                await c.press("a")
                for p in bulk:
                    c.agree(p, "accepted")
                await c.press("u")
                await c.wait_for(lambda b=bulk: set(b) <= c.shown_pending(), "bulk pending again")
                for p in bulk:
                    c.agree(p, "pending")
                c.lap("bulk+u")
            # invalidate a reflection from its view; another process sees it retired
            rid = info.reflection_ids[7]
            app.push_screen(ReflectionScreen(rid))
            await settle(pilot)
            await c.press("x")
            await c.press(*"soak: planted", "enter")
            await c.press("enter")
            from brainview.tui.widgets.audit_view import AuditView

            trail = app.screen.query_one("#audit", AuditView).trail
            assert trail is not None and trail.status.state == "invalidated"  # the console says
            retired = look(root, "SELECT retired_at FROM neuron WHERE id=?", rid)[0][0]
            assert retired, "the console invalidated a reflection nobody else can see retired"
            c.checks += 1
            app.pop_screen()
            await settle(pilot)
            c.lap("invalidate")
            # the queue notices the curators' proposals without a restart
            await c.wait_for(
                lambda: any(p.startswith("soak-") for p in c.shown_pending()),
                "a curator's proposal",
            )
            c.lap("curator seen")
            assert not deleted_brain_fds(), deleted_brain_fds()
    finally:
        stop.touch()
        reports = [a.communicate(timeout=60) for a in actors]
    c.lap("actors stop")
    for actor, (_out, err) in zip(actors, reports, strict=True):
        assert actor.returncode == 0, err[-2000:]
    done = [json.loads(o.strip().splitlines()[-1]) for o, _ in reports]
    assert sum(d.get("curator", {}).get("sent", 0) for d in done) > 0
    assert all(d.get("curator", {}).get("failed", 0) == 0 for d in done), done
    for brain in ("agent", "user"):
        assert look(root, "PRAGMA integrity_check", brain=brain) == [["ok"]], brain
    twice = look(
        root,
        "SELECT proposal_id FROM brainview_decision WHERE undone_at IS NULL "
        "GROUP BY proposal_id HAVING count(*) > 1",
    )
    assert twice == []
    grades = look(
        root,
        "SELECT d.id, d.undone_at IS NULL, "
        "(SELECT count(*) FROM brainview_grade g WHERE g.decision_id = d.id), "
        "(SELECT count(*) FROM spike s WHERE s.session_id = d.id), "
        "(SELECT count(*) FROM brainview_grade g JOIN spike s ON s.session_id = g.decision_id "
        " AND s.neuron_id = g.reflection_id AND s.grade = g.grade WHERE g.decision_id = d.id) "
        "FROM brainview_decision d WHERE d.decider = 'tester'",
    )
    assert grades, "the console decided nothing"
    for dec, live, n_grades, n_spikes, matched in grades:
        if live:
            assert n_spikes == n_grades == matched, (dec, n_grades, n_spikes, matched)
        else:
            assert n_spikes == 0, (dec, "undone but its spikes remain")
    phases = " ".join(f"{k} {v:.1f}s" for k, v in c.phases.items())
    print(
        f"soak ({phases}): {len(actors)} other processes {done}, {c.actions} console actions, "
        f"{c.checks} cross-process checks, {time.monotonic() - started:.1f} s"
    )
