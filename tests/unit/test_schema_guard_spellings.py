"""The schema guard is not fooled by the schema cookie nor by spelling, and covers what
makes a write *fail* (CHECK, UNIQUE, partial and expression indexes, extra NOT NULL
columns) as well as what a write would run.  An apply that fails after its decision was
recorded rolls the decision back, and ``brainview recover`` is a real command."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from test_cli import agent_db, cli, ok_json, user_db
from test_schema_guard import add_synapse_proposal, execute, reads_still_work, refused, state

from brainview.config import Config
from brainview.demo.generator import DEMO_NOW
from brainview.services.apply import hooks
from brainview.services.session import Session
from brainview.store.discovery import discover
from brainview.store.schema_guard import findings

USER_PLANTS = {
    "check": "ALTER TABLE synapse ADD COLUMN x INTEGER CHECK (x IS NULL OR x > 0)",
    "check-lower-comment": "ALTER TABLE synapse ADD COLUMN x INTEGER cHeCk/**/(x IS NULL)",
    "partial-unique": "CREATE UNIQUE INDEX evil ON synapse(type) WHERE weight > 5",
    "unique": "CREATE UNIQUE INDEX evil ON synapse(pre, post, type, weight)",
    "expression": "CREATE INDEX evil ON synapse(abs(weight))",
    "partial": "CREATE INDEX evil ON synapse(pre) WHERE type = 'x'",
    "generated-comment": "ALTER TABLE synapse ADD COLUMN g TEXT AS/**/(upper(pre))",
    "generated-always": "ALTER TABLE synapse ADD COLUMN g TEXT GENERATED ALWAYS AS (pre)",
    "not-null": "ALTER TABLE synapse ADD COLUMN n TEXT NOT NULL DEFAULT 'x'",
}


@pytest.mark.parametrize("plant", sorted(USER_PLANTS))
def test_what_would_fail_or_run_on_the_user_brain_refuses_the_accept(demo, plant: str) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    pid = add_synapse_proposal(root, info)
    execute(user_db(root), USER_PLANTS[plant])
    before = state(root)
    out = cli("proposals", "accept", pid, "-C", str(root))
    if plant == "not-null":  # a NOT NULL column *with* a default fails nothing: allowed
        assert out.returncode == 0, out.stderr
        return
    refused(out, "user brain")
    assert state(root) == before
    reads_still_work(root)


def test_an_extra_not_null_column_without_default_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    execute(
        db, "CREATE TABLE neuron (id TEXT PRIMARY KEY, content TEXT NOT NULL, evil TEXT NOT NULL)"
    )
    conn = sqlite3.connect(db)
    try:
        assert [f.what for f in findings(conn)] == ["a NOT NULL column Spikuit does not have"]
    finally:
        conn.close()


def test_a_brainview_table_named_in_another_case_is_checked(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    pid = add_synapse_proposal(root, info)
    execute(
        agent_db(root),
        "ALTER TABLE brainview_consult RENAME TO old_consult; "
        "CREATE TABLE BRAINVIEW_Consult AS SELECT * FROM old_consult WHERE 0; "
        "ALTER TABLE BRAINVIEW_Consult ADD COLUMN z INTEGER CHECK (z IS NULL AND 0);",
    )
    before = state(root)
    refused(cli("proposals", "accept", pid, "-C", str(root)), "BRAINVIEW_Consult")
    assert state(root) == before


def test_quotes_and_comments_that_merely_say_check_are_not_findings(tmp_path: Path) -> None:
    db = tmp_path / "y.db"
    execute(
        db,
        "CREATE TABLE brainview_x (a TEXT DEFAULT 'CHECK (0)', \"check\" TEXT, "
        "b TEXT -- CHECK (0)\n, c TEXT /* check(1) */, [check (x)] TEXT)",
    )
    conn = sqlite3.connect(db)
    try:
        assert findings(conn) == []
    finally:
        conn.close()


def test_the_schema_cookie_set_back_does_not_hide_a_planted_trigger(demo) -> None:  # type: ignore[no-untyped-def]
    """A long-running face (one session, one process) found the brain clean once; a
    trigger planted with the cookie set back to its old value is still found."""
    root, info = demo
    session = Session(paths=discover(root), config=Config(), clock=lambda: DEMO_NOW)
    pending = [r.id for r in session.queue_page()[0]]
    with session:
        session.decide([pending[0]], "reject")
        conn = sqlite3.connect(agent_db(root))
        try:
            cookie = conn.execute("PRAGMA schema_version").fetchone()[0]
            conn.executescript(
                "CREATE TRIGGER evil AFTER INSERT ON brainview_decision BEGIN "
                "UPDATE neuron SET content = 'PWNED'; END;"
            )
            conn.execute("PRAGMA writable_schema=ON")
            conn.execute(f"PRAGMA schema_version={cookie}")
        finally:
            conn.close()
        from brainview.errors import UnsafeSchemaError

        with pytest.raises(UnsafeSchemaError, match="evil"):
            session.decide([pending[1]], "reject")
    conn = sqlite3.connect(agent_db(root))
    try:
        assert (
            conn.execute("SELECT count(*) FROM neuron WHERE content = 'PWNED'").fetchone()[0] == 0
        )
    finally:
        conn.close()


def rebuild_synapse(db: Path, extra: str) -> None:
    """Spikuit's ``synapse`` table made anew with its rows, plus ``extra`` constraints."""
    execute(
        db,
        "CREATE TABLE s2 AS SELECT * FROM synapse; DROP TABLE synapse; "
        "CREATE TABLE synapse (pre TEXT NOT NULL, post TEXT NOT NULL, type TEXT NOT NULL,"
        " weight REAL NOT NULL DEFAULT 0.5, co_fires INTEGER NOT NULL DEFAULT 0,"
        " last_co_fire TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,"
        " confidence TEXT, confidence_score REAL, retired_at TEXT,"
        f" PRIMARY KEY (pre, post, type){extra}); INSERT INTO synapse SELECT * FROM s2;"
        " DROP TABLE s2;",
    )


def _pending_intents(root: Path) -> int:
    conn = sqlite3.connect(agent_db(root))
    try:
        return conn.execute(
            "SELECT count(*) FROM brainview_apply_intent WHERE state = 'pending'"
        ).fetchone()[0]
    finally:
        conn.close()


@pytest.mark.parametrize("guard", ["guard", "no-guard"])
def test_an_apply_that_fails_after_the_decision_rolls_the_decision_back(  # type: ignore[no-untyped-def]
    demo, guard: str, monkeypatch
) -> None:
    """A CHECK planted between the decision's commit and the user-brain apply: the
    apply's guard refuses it (or, without the guard, SQLite does), the decision is
    rolled back, nothing is wedged, and once the constraint is gone the same proposal
    is accepted and undone."""
    root, info = demo
    if guard == "no-guard":  # what SQLite does with a constraint the guard missed
        from brainview.store import brain

        real = brain.Brain.refuse_unsafe_schema
        calls: list[int] = []

        def late(self, conn) -> None:  # type: ignore[no-untyped-def]
            calls.append(1)
            if len(calls) <= 1:
                real(self, conn)

        monkeypatch.setattr(brain.Brain, "refuse_unsafe_schema", late)
        monkeypatch.setattr(brain, "refuse_unsafe", lambda *a, **k: None)
    pid = add_synapse_proposal(root, info)
    user_before = state(root)[2]

    def plant(step: str) -> None:
        if step == "decision.committed":
            rebuild_synapse(user_db(root), ", CHECK (created_at < '2026-11-30T08')")

    session = Session(paths=discover(root), config=Config(), clock=lambda: DEMO_NOW)
    hooks.set_step_hook(plant)
    try:
        from brainview.errors import ConflictError

        with session, pytest.raises(ConflictError, match="was rolled back"):
            session.decide([pid], "accept")
    finally:
        hooks.set_step_hook(None)
    assert _pending_intents(root) == 0
    status = ok_json("proposals", "show", pid, "-C", str(root))
    assert status["status"] == "pending"
    assert state(root)[2]["synapse"] == user_before["synapse"]
    # the constraint removed: the accept goes through, and undo works
    rebuild_synapse(user_db(root), "")
    assert cli("proposals", "accept", pid, "-C", str(root)).returncode == 0
    assert cli("proposals", "undo", pid, "-C", str(root)).returncode == 0


def test_recover_is_a_real_command(demo) -> None:  # type: ignore[no-untyped-def]
    """A crash after the decision's commit leaves an intent pending; ``brainview
    recover`` finishes it, ``--roll-back`` undoes the decision instead."""
    root, info = demo
    pid = add_synapse_proposal(root, info)

    class Crash(Exception):
        pass

    def crash(step: str) -> None:
        if step == "decision.committed":
            raise Crash

    def accept_and_crash(proposal: str) -> None:
        session = Session(paths=discover(root), config=Config(), clock=lambda: DEMO_NOW)
        hooks.set_step_hook(crash)
        try:
            with session, pytest.raises(Crash):
                session.decide([proposal], "accept")
        finally:
            hooks.set_step_hook(None)

    accept_and_crash(pid)
    assert _pending_intents(root) == 1
    out = ok_json("recover", "-C", str(root), "--json")
    assert out["count"] == 1 and out["intents"][0]["state"] == "done"
    assert ok_json("proposals", "show", pid, "-C", str(root))["status"] == "accepted"
    assert _pending_intents(root) == 0
    nothing = cli("recover", "-C", str(root))
    assert nothing.returncode == 0 and "nothing to recover" in nothing.stderr

    assert cli("proposals", "undo", pid, "-C", str(root)).returncode == 0
    accept_and_crash(pid)
    out = ok_json("recover", "--roll-back", "-C", str(root), "--json")
    assert [i["state"] for i in out["intents"]] == ["rolled_back"]
    assert ok_json("proposals", "show", pid, "-C", str(root))["status"] == "pending"


def test_tables_earlier_releases_created_pass_and_nothing_planted_in_them(tmp_path: Path) -> None:
    """``brainview_learning`` and its root were made with a UNIQUE and a CHECK before this
    release: exactly those definitions pass, any change to them is a finding."""
    from brainview.store.schema_guard import OWN_BEFORE

    db = tmp_path / "old.db"
    execute(db, ";".join(OWN_BEFORE))
    conn = sqlite3.connect(db)
    try:
        assert findings(conn) == []
        conn.execute("ALTER TABLE brainview_learning ADD COLUMN z INTEGER CHECK (z IS NULL)")
        assert {f.what for f in findings(conn)} >= {"a CHECK constraint"}
    finally:
        conn.close()
