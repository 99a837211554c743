"""The presence database: soft claims with expiry, shared by processes, and never a
reason for a console to stop."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from brainview.demo.generator import DEMO_NOW, DemoInfo
from brainview.services.presence import HEARTBEAT, TTL, Presence, decided_elsewhere
from brainview.services.session import Session
from brainview.store.discovery import discover
from brainview.store.presence import live_claims, open_presence

ROOT = Path(__file__).resolve().parents[2]


class Clock:
    """A hand-moved wall clock (seconds since the epoch)."""

    def __init__(self, at: float = 1_800_000_000.0) -> None:
        self.at = at

    def __call__(self) -> float:
        return self.at


def test_a_claim_is_seen_by_others_not_by_its_console_and_expires(tmp_path: Path) -> None:
    db, clock = tmp_path / "presence.db", Clock()
    alice = Presence(db, "alice", clock=clock)
    bob = Presence(db, "bob", clock=clock)
    assert not db.exists() or alice.others() == {}
    alice.look_at("p-1")
    assert db.is_file()
    assert alice.others() == {}
    claim = bob.others()["p-1"]
    assert (claim.holder, claim.since) == ("alice", clock.at)
    clock.at += 12
    assert claim.seconds(clock()) == 12
    clock.at += TTL  # no heartbeat for longer than the claim holds: gone
    assert bob.others() == {}
    assert alice.broken is None and bob.broken is None


def test_the_heartbeat_keeps_since_and_a_move_starts_again(tmp_path: Path) -> None:
    db, clock = tmp_path / "presence.db", Clock()
    alice, bob = Presence(db, "alice", clock=clock), Presence(db, "bob", clock=clock)
    start = clock.at
    alice.look_at("p-1")
    clock.at += HEARTBEAT - 1
    assert alice.heartbeat() is False  # not due yet: no write
    clock.at += 2
    assert alice.heartbeat() is True
    clock.at += TTL - 1  # past the first claim's expiry, within the refreshed one
    assert bob.others()["p-1"].since == start
    alice.look_at("p-2")
    assert list(bob.others()) == ["p-2"] and bob.others()["p-2"].since == clock.at
    alice.look_at(None)
    assert bob.others() == {}


def test_two_consoles_of_one_person_are_two_claims_and_quitting_withdraws(
    tmp_path: Path,
) -> None:
    db, clock = tmp_path / "presence.db", Clock()
    tab1, tab2 = Presence(db, "alice", clock=clock), Presence(db, "alice", clock=clock)
    tab1.look_at("p-1")
    assert tab2.others()["p-1"].holder == "alice"
    tab1.close()
    assert tab2.others() == {}


def test_an_unusable_presence_path_turns_presence_off_in_one_line(
    tmp_path: Path, demo: tuple[Path, DemoInfo]
) -> None:
    root, _ = demo
    target = tmp_path / "real.db"
    link = tmp_path / "link.db"
    link.symlink_to(target)
    brain = root / ".spikuit" / "agent" / "circuit.db"
    with Session.start(discover(root)) as session, session.project():
        # the brain is opened by this process: refused as a presence database
        for bad in (tmp_path, link, brain):
            p = Presence(bad, "alice")
            p.look_at("p-1")
            assert p.others() == {}
            assert p.broken is not None and "\n" not in p.broken
            assert p.broken.startswith("presence off: ")
    assert not target.exists()
    conn = sqlite3.connect(brain)
    tables = {t for (t,) in conn.execute("SELECT name FROM sqlite_master")}
    conn.close()
    assert "claim" not in tables  # never a presence table in a brain


SECOND = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from brainview.services.presence import Presence

    db, rounds = Path(sys.argv[1]), int(sys.argv[2])
    bob = Presence(db, "bob", timeout=10.0)
    seen = 0
    for i in range(rounds):
        bob.look_at(f"q-{i % 5}")
        seen += "p-1" in bob.others()
    print(seen, bob.broken)
    bob.look_at("q-final")
    """
)


def test_a_second_process_writes_and_reads_the_same_presence_db(tmp_path: Path) -> None:
    db = tmp_path / "presence.db"
    alice = Presence(db, "alice", timeout=10.0)
    alice.look_at("p-1")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    second = subprocess.Popen(
        [sys.executable, "-c", SECOND, str(db), "300"],
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    others_seen = 0
    while second.poll() is None:  # read and write while the other process does
        alice.look_at("p-1")
        others_seen += bool(alice.others())
    out, _ = second.communicate()
    assert second.returncode == 0
    seen, broken = out.split()
    assert int(seen) == 300 and broken == "None"  # every one of its reads saw alice
    assert alice.broken is None
    assert alice.others()["q-final"].holder == "bob"
    conn = open_presence(db, timeout=5.0)
    holders = sorted(c.holder for c in live_claims(conn, now=alice.clock()))
    conn.close()
    assert holders == ["alice", "bob"]


def test_decided_elsewhere_names_the_decider_of_the_shown_proposals(
    demo: tuple[Path, DemoInfo],
) -> None:
    root, info = demo
    first, second, third = info.proposal_ids[:3]
    with Session.start(discover(root), clock=lambda: DEMO_NOW, decider="bob") as bob:
        bob.decide([first], "reject", reason="no")
        bob.decide([second], "reject")
        bob.undo()  # the second one is pending again: not decided
        with bob.project() as project:
            got = decided_elsewhere(project, [first, second, third])
    assert [(d.proposal_id, d.verdict, d.decider) for d in got] == [(first, "reject", "bob")]


def test_a_decision_landing_while_the_queue_is_read_is_read_again(
    demo: tuple[Path, DemoInfo], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A console's queue page carries the fingerprint its next poll compares: a decision
    another process commits while the page is read must leave that fingerprint behind
    (the poll reads again), never in it with the row still shown (never re-read)."""
    from brainview.services.review import queue
    from brainview.tui.triage.jobs import read_queue

    root, info = demo
    target = info.proposal_ids[0]
    real_page = queue.page

    def page_then_decided_elsewhere(*args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        got = real_page(*args, **kwargs)  # type: ignore[arg-type]
        done = subprocess.run(
            [sys.executable, "-m", "brainview", "proposals", "reject", target,
             "--decider", "ada", "-C", str(root)],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        return got

    monkeypatch.setattr(queue, "page", page_then_decided_elsewhere)
    with Session.start(discover(root), clock=lambda: DEMO_NOW, decider="bob") as bob:
        read = read_queue("age", "", 50)(bob)
        monkeypatch.setattr(queue, "page", real_page)
        with bob.project() as project:
            now = queue.signature(project)
    assert target in [r.id for r in read.rows]  # read before ada's decision …
    assert read.signature != now  # … so the fingerprint it carries is older: re-read
