"""``brainview mcp`` names a broken brain as the CLI does: never ``internal``.

A brain whose header and schema read fine but whose later pages are garbage passes the
check at start; the first tool to read those pages used to answer ``internal error:
DatabaseError: database disk image is malformed``.  Every tool now answers
``not_a_brain`` (exit code 8) for it, and a locked, read-only or full brain by its own
kind, whatever layer the SQLite error escaped from.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from mcp import ClientSession
from test_cli import agent_db, sql, user_db
from test_mcp import error, live_ids, note, session_run

from brainview.errors import ExitCode
from brainview.mcp.failures import database_kind, guarded


def _spoil(db: Path, where: str) -> None:
    """Overwrite the pages of the tables and indexes ``where`` picks (a condition on
    ``dbstat.name``) with a fixed pattern: the header, the schema and the other tables
    stay readable, so the brain passes the check at start and breaks only when a tool
    reads those rows."""
    pages = sql(db, f"SELECT DISTINCT pageno FROM dbstat WHERE pageno > 1 AND ({where})")
    assert pages
    raw = bytearray(db.read_bytes())
    size = int.from_bytes(raw[16:18], "big")
    for (page,) in pages:
        raw[(page - 1) * size : page * size] = b"\xa5" * size
    db.write_bytes(bytes(raw))


def _calls(root: Path) -> list[tuple[str, dict[str, Any]]]:
    users, refl = live_ids(root)
    return [
        ("decisions_since", {"since": "3650d"}),
        ("recall", {"text": "limits and continuity", "refs": users[:2]}),
        ("inspect_reflection", {"reflection_id": refl[-1]}),
        ("propose", {"proposals": note("prop-x", users[-1], [refl[-1]]), "dry_run": True}),
        ("report_outcome", {"outcome": {"id": "out-x", "skill": "tutor", "result": "success",
                                        "situation": "s", "consulted": []}}),
    ]  # fmt: skip


def _run(root: Path, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    async def body(s: ClientSession) -> list[Any]:
        return [await s.call_tool(name, args) for name, args in calls]

    return session_run(root, body)  # type: ignore[no-any-return]


def test_a_corrupt_agent_brain_is_not_a_brain_for_every_tool(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    calls = _calls(root)
    _spoil(
        agent_db(root),
        "name LIKE '%bv_decision%' OR name LIKE '%brainview_decision%' "
        "OR (name = 'neuron' AND pagetype = 'leaf')",
    )
    results = _run(root, calls)
    kinds = {}
    for (name, _), result in zip(calls, results, strict=True):
        if result.is_error:
            text, obj = error(result)
            assert obj["error"] != "internal", text
            kinds[name] = obj
    assert {"decisions_since", "recall"} <= set(kinds)
    for obj in kinds.values():
        assert obj["error"] == "not_a_brain" and obj["exit_code"] == 8, obj
        assert "truncated or corrupt database" in obj["message"]
    assert str(agent_db(root)) in kinds["decisions_since"]["message"]


def test_a_corrupt_user_brain_is_not_a_brain_for_every_tool(demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = demo
    calls = _calls(root)
    _spoil(user_db(root), "name = 'neuron' AND pagetype = 'leaf'")
    results = _run(root, calls)
    errors = [error(r)[1] for r in results if r.is_error]
    assert errors, "no tool read the spoiled pages"
    for obj in errors:
        assert (obj["error"], obj["exit_code"]) == ("not_a_brain", 8), obj
    assert error(results[1])[1]["error"] == "not_a_brain"  # recall reads user neurons


def test_sqlite_errors_are_named_whatever_wraps_them(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    holder = sqlite3.connect(db, timeout=0)
    holder.execute("CREATE TABLE t (a)")
    holder.execute("BEGIN EXCLUSIVE")
    other = sqlite3.connect(db, timeout=0)
    try:
        other.execute("SELECT * FROM t")
    except sqlite3.OperationalError as err:
        locked = err
    holder.rollback()
    corrupt = sqlite3.DatabaseError("database disk image is malformed")

    class Wrapped(Exception):  # what SQLAlchemy does: the DB-API error as .orig
        __module__ = "sqlalchemy.exc"

        def __init__(self, orig: BaseException) -> None:
            super().__init__(f"({type(orig).__name__}) {orig}")
            self.orig = orig

    def chained() -> None:
        try:
            raise corrupt
        except sqlite3.DatabaseError as err:
            raise RuntimeError("while reading") from err

    assert database_kind(locked) == ("locked", "database is locked")
    assert database_kind(Wrapped(corrupt))[0] == "not_a_brain"  # type: ignore[index]
    assert database_kind(sqlite3.OperationalError("attempt to write a readonly database")) == (
        "read_only", "attempt to write a readonly database",
    )  # fmt: skip
    assert database_kind(sqlite3.OperationalError("database or disk is full"))[0] == "disk_full"  # type: ignore[index]
    assert database_kind(KeyError("malformed")) is None  # not a database error
    assert database_kind(sqlite3.OperationalError("no such table: x")) is None
    said = guarded(chained).structured_content
    assert said == {
        "error": "not_a_brain", "exit_code": int(ExitCode.NOT_A_BRAIN),
        "message": "truncated or corrupt database: database disk image is malformed",
    }  # fmt: skip
    crashed = guarded(lambda: {}["x"])
    assert crashed.structured_content["error"] == "internal"  # type: ignore[index]
    other.close()
    holder.close()
