"""One guarded door for every write (issue 28).

The door is the store's write transaction — :meth:`brainview.store.brain.Brain.write`
and the recall handle's :meth:`~brainview.store.recall_handle.Handle.writing` — which
refuses a replaced brain and an unsafe schema inside the transaction, and the
:class:`~brainview.store.effects.EffectLog` every agent-brain row goes through, which
refuses text that free text may not hold.  These tests keep every path behind it:

* statically: SQL that writes lives only in ``store/``; Spikuit's tables are written
  only by the effect log and the few row writers the user-brain apply uses; only the
  door begins write transactions on a brain or opens one writable;
* at run time: every write the session offers (enumerated from its methods, so a new
  one without a case here fails), the curator's intake, recall logging and outcomes are
  refused — nothing written — on a brain with a planted trigger;
* hostile text reaching the effect log on any path is refused whole.
"""

from __future__ import annotations

import ast
import inspect
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_cli import agent_db, cli, dump, fresh, user_db

from brainview.config import Config
from brainview.core.outcomes import OutcomeReport
from brainview.demo.generator import DEMO_NOW
from brainview.errors import InvalidInputError, UnsafeSchemaError
from brainview.services.session import Session
from brainview.store.discovery import discover

SRC = Path(__file__).resolve().parents[2] / "brainview"
SQL_WRITE = re.compile(
    r"\bINSERT\s+(OR\s+[A-Z]+\s+)?INTO\b|\bUPDATE\s+\{?\w+\}?\s+SET\b|\bDELETE\s+FROM\b|"
    r"\bREPLACE\s+INTO\b"
)
SPIKUIT_WRITE = re.compile(
    r"\b(INTO|UPDATE|FROM)\s+(neuron|synapse|spike|fsrs_state|neuron_predecessor|"
    r"neuron_source|changeset|event|source|retrieval_boost|quiz_item|quiz_item_neuron)\b"
)
SPIKUIT_WRITERS = {
    "store/effects.py",
    "store/rows.py",
    "store/apply_rows.py",
    "store/domain_stream.py",
}
"""The effect log, and the row writers of the user-brain apply (rows from a plan whose
text was checked at intake) — nothing else writes Spikuit's tables."""
TRANSACTION_OPENERS = {"store/brain.py", "store/recall_handle.py"}
NOT_BRAINS = {"store/presence.py", "store/recall_index.py", "store/recall_vectors.py"}
"""SQLite files that are not brains (presence claims, the recall cache and its vectors)."""


def _strings(path: Path) -> list[str]:
    """Every string constant of a module except docstrings."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {
        id(n.body[0].value)
        for n in ast.walk(tree)
        if isinstance(n, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        and n.body
        and isinstance(n.body[0], ast.Expr)
        and isinstance(n.body[0].value, ast.Constant)
    }
    return [
        n.value
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs
    ]


def _modules() -> list[tuple[str, Path]]:
    out = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if rel.split("/")[0] not in ("demo", "sim", "bench"):
            out.append((rel, path))
    return out


def test_sql_that_writes_lives_in_the_store_and_spikuit_tables_behind_the_effect_log() -> None:
    outside, spikuit = [], []
    for rel, path in _modules():
        writes = [s for s in _strings(path) if SQL_WRITE.search(s)]
        if writes and not rel.startswith("store/"):
            outside.append(rel)
        if any(SPIKUIT_WRITE.search(s) for s in writes) and rel not in SPIKUIT_WRITERS:
            spikuit.append(rel)
    assert outside == [], "SQL that writes belongs to store/"
    assert spikuit == [], "write Spikuit's tables through the EffectLog (the text door)"


def test_only_the_door_begins_write_transactions_or_opens_a_brain_writable() -> None:
    begins, writable = [], []
    for rel, path in _modules():
        text = path.read_text(encoding="utf-8")
        if any("BEGIN IMMEDIATE" in s for s in _strings(path)) and rel not in (
            TRANSACTION_OPENERS | NOT_BRAINS
        ):
            begins.append(rel)
        if re.search(r"\bconnect\([^)]*write=(True|write)", text) and rel not in (
            TRANSACTION_OPENERS | {"store/connect.py"}
        ):
            writable.append(rel)
    assert begins == [] and writable == []


def test_only_the_session_opens_a_project_for_writing() -> None:
    """Faces (and services) ask :class:`Session` to write: a call passing a write flag
    that is not plainly ``False`` appears in the session and its mixins alone (and in
    the project's own ``locate``, which passes its parameters on)."""
    found = []
    for rel, path in _modules():
        if re.fullmatch(r"services/session(_\w+)?\.py|services/project\.py", rel):
            continue  # the session and its mixins; the project passes its flags on
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            for kw in node.keywords:
                plain_false = isinstance(kw.value, ast.Constant) and kw.value.value is False
                if kw.arg in ("write_agent", "write_user") and not plain_false:
                    found.append(f"{rel}:{node.lineno}: {kw.arg}")
    assert found == []


def _plant(root: Path) -> None:
    conn = sqlite3.connect(agent_db(root))
    try:
        conn.executescript(
            "CREATE TRIGGER evil AFTER INSERT ON spike BEGIN "
            "UPDATE neuron SET content = 'PWNED'; END;"
        )
    finally:
        conn.close()


def _reflections(root: Path) -> list[str]:
    conn = sqlite3.connect(agent_db(root))
    try:
        rows = conn.execute(
            "SELECT id FROM neuron WHERE type = 'reflection' AND retired_at IS NULL ORDER BY id"
        ).fetchall()
    finally:
        conn.close()
    return [r for (r,) in rows]


def _cases(root: Path, info: Any) -> dict[str, Callable[[Session], object]]:
    from brainview.services.lifecycle.blast import BlastAction

    pid = fresh(info)[0]
    refl = _reflections(root)[:2]
    report = OutcomeReport(
        "o-door", "tutor", "failure", "hint failed", [(refl[0], "support", None)]
    )
    return {
        "decide": lambda s: s.decide([pid], "accept"),
        "dismiss": lambda s: s.dismiss(pid, "later"),
        "undo": lambda s: s.undo(None),
        "undo_named": lambda s: s.undo_named(s.undo_target(None)),
        "lifecycle": lambda s: s.lifecycle("challenge", refl[:1], "suspicious"),
        "lifecycle_quarantine": lambda s: s.lifecycle("quarantine", refl[:1], "poison?"),
        "blast": lambda s: s.blast(BlastAction("challenge", tuple(refl[:1]), reason="odd")),
        "undo_lifecycle": lambda s: s.undo_lifecycle(None),
        "set_writing": lambda s: s.set_writing(False, "pause"),
        "toggle_writing": lambda s: s.toggle_writing(),
        "report_outcome": lambda s: s.report_outcome(report),
        "undo_outcome": lambda s: s.undo_outcome("o-door"),
        "decide_fading": lambda s: s.decide_fading(refl[1], "rescue", threshold=0.7),
        "undo_fading": lambda s: s.undo_fading(1),
        "queue_consolidation": lambda s: s.queue_consolidation(_plan(s)),
        "recover_all": lambda s: s.recover_all(roll_back=True),
        "propose": lambda s: s.propose(
            {"kind": "note", "params": {}, "rationale": "look", "skill": "curator"}
        ),
        "import_spkt_plan": lambda s: s.import_spkt_plan({"items": []}),
        "queue_tier_moves": lambda s: s.queue_tier_moves(),
        "import_learnings": lambda s: s.import_learnings(root / ".learnings"),
        "report_held_back": lambda s: s.report_held_back(_held_back(root, refl[0])),
        "decide_held_back": lambda s: s.decide_held_back("hb-door", "rightly_held_back"),
        "undo_held_back": lambda s: s.undo_held_back("hb-door"),
        "withdraw_approval": lambda s: s.withdraw_approval(pid, "second thoughts"),
    }


def _held_back(root: Path, lesson: str) -> dict[str, Any]:
    """A held-back report naming a live user neuron and ``lesson``."""
    conn = sqlite3.connect(user_db(root))
    try:
        (user,) = conn.execute("SELECT id FROM neuron WHERE retired_at IS NULL").fetchone()
    finally:
        conn.close()
    draft = {"kind": "note", "params": {"neurons": [user]}, "rationale": "a quiz"}
    return {"id": "hb-door", "action": "withdrawn", "draft": draft, "lessons": [lesson]}


def _plan(session: Session) -> object:
    from brainview.services.consolidate.api import plan

    with session.project() as project:
        return plan(project, now=DEMO_NOW, in_process=True)


NOT_BRAIN_WRITES = {"export_rows", "export_served", "recover"}
"""Session methods that take the role check but write no brain row themselves
(``export_rows`` writes a file; ``recover`` only calls ``recover_all``)."""


def test_every_session_write_has_a_case_here(demo) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    writes = {
        name
        for cls in Session.__mro__
        if cls.__module__.startswith("brainview.")
        for name, fn in vars(cls).items()
        if callable(fn)
        and not name.startswith("_")
        and re.search(r"self\.(require|_require_undo)\(", inspect.getsource(fn))
    }
    missing = writes - set(_cases(root, info)) - NOT_BRAIN_WRITES
    assert missing == set(), f"add a door case for {sorted(missing)}"


@pytest.mark.parametrize(
    "case",
    [
        "decide", "dismiss", "lifecycle", "lifecycle_quarantine", "blast", "set_writing",
        "toggle_writing",
        "report_outcome", "decide_fading", "queue_consolidation", "propose",
        "report_held_back", "withdraw_approval",
    ],
)  # fmt: skip
def test_every_session_write_is_refused_on_an_unsafe_schema(demo, case: str) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    run = _cases(root, info)[case]
    _plant(root)
    before = (dump(agent_db(root), skip=set()), dump(user_db(root), skip=set()))
    session = Session(paths=discover(root), config=Config(), clock=lambda: DEMO_NOW)
    with session, pytest.raises(UnsafeSchemaError, match="evil"):
        run(session)
    assert (dump(agent_db(root), skip=set()), dump(user_db(root), skip=set())) == before


def test_intake_and_recall_logging_are_refused_on_an_unsafe_schema(demo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root, _info = demo
    _plant(root)
    before = dump(agent_db(root), skip=set())
    note = tmp_path / "p.json"
    note.write_text(
        '{"kind": "note", "params": {}, "rationale": "look at this", "skill": "curator"}'
    )
    for argv in (("propose", str(note)), ("recall", "--text", "merge duplicates")):
        out = cli(*argv, "-C", str(root))
        assert out.returncode == 13, (argv, out.stderr)
    assert dump(agent_db(root), skip=set()) == before


HOSTILE = ["\x1b]52;c;cm0gLXJmIH4=\x07", "\x1b[2J", "\u202eevil", "nul\x00", "c1\x9b31m"]


@pytest.mark.parametrize("bad", HOSTILE)
def test_hostile_text_in_an_outcome_is_refused_naming_the_field(demo, bad: str) -> None:  # type: ignore[no-untyped-def]
    root, _info = demo
    refl = _reflections(root)[0]
    before = dump(agent_db(root), skip=set())
    for fld, report in (
        ("situation", OutcomeReport("o-1", "tutor", "failure", f"x {bad}", [])),
        ("lesson", OutcomeReport("o-2", "qabot", "failure", "x", [], lesson=f"l {bad}")),
        (
            "consulted[0].note",
            OutcomeReport("o-3", "tutor", "success", "x", [(refl, "support", bad)]),
        ),
    ):
        session = Session(paths=discover(root), config=Config(), clock=lambda: DEMO_NOW)
        with session, pytest.raises(Exception, match=re.escape(f"outcome.{fld}")):
            session.report_outcome(report)
    assert dump(agent_db(root), skip=set()) == before


def test_the_effect_log_refuses_hostile_text_from_any_path(demo) -> None:  # type: ignore[no-untyped-def]
    """A path that forgot its own checks still cannot store an escape sequence."""
    from brainview.services.project import Project
    from brainview.store.effects import EffectLog

    root, _info = demo
    before = dump(agent_db(root), skip=set())
    with Project.open(discover(root), write_agent=True) as project:
        agent = project.require_agent()
        refused = pytest.raises(InvalidInputError, match=r"neuron\.content: control character")
        with refused, agent.write() as conn:
            EffectLog(conn).insert(
                    "neuron",
                    [{"id": "r-x", "content": "\x1b]8;;http://x\x1b\\link", "type": "reflection",
                      "created_at": "2026-11-30", "updated_at": "2026-11-30"}],
                )  # fmt: skip
    assert dump(agent_db(root), skip=set()) == before


def test_an_outcome_over_the_cli_with_an_escape_is_one_line_exit_4(demo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import json

    root, _info = demo
    before = dump(agent_db(root), skip=set())
    report = tmp_path / "o.json"
    report.write_text(
        json.dumps({"skill": "tutor", "result": "failure", "situation": "x \x1b]52;c;AAAA\x07"})
    )
    out = cli("outcome", "report", str(report), "-C", str(root))
    assert out.returncode == 4 and "outcome.situation" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1 and "\x1b" not in out.stderr
    assert dump(agent_db(root), skip=set()) == before


def test_the_effect_log_refuses_a_string_past_the_doors_size_limit(demo) -> None:  # type: ignore[no-untyped-def]
    from brainview.core.text_rules import MAX_STORED_TEXT
    from brainview.services.project import Project
    from brainview.store.effects import EffectLog

    root, _info = demo
    before = dump(agent_db(root), skip=set())
    row = {"id": "r-big", "type": "reflection", "created_at": "2026-11-30",
           "updated_at": "2026-11-30", "content": "x" * (MAX_STORED_TEXT + 1)}  # fmt: skip
    with Project.open(discover(root), write_agent=True) as project:
        refused = pytest.raises(InvalidInputError, match="neuron.content: longer than")
        with refused, project.require_agent().write() as conn:
            EffectLog(conn).insert("neuron", [row])
    assert dump(agent_db(root), skip=set()) == before
