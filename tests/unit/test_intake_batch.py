"""Intake checks a batch set-based: the statements do not grow with the proposals, and
the first problem reported is the one a proposal-by-proposal check would find."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from sqlalchemy import event

from brainview.errors import InvalidInputError
from brainview.services import intake
from brainview.services.project import Project
from brainview.store import intake_reads
from brainview.store.discovery import discover


def _notes(info, n: int, start: int = 0, domains: list[str] | None = None) -> list[dict]:  # type: ignore[no-untyped-def]
    """``n`` note proposals (every other one a domain rename, given ``domains``)."""
    retired = set(info.retired_user_ids)
    users = [u for u in info.user_ids if u not in retired]
    lessons = [r for ids in info.themes.values() for r in ids]

    def params(k: int) -> tuple[str, dict]:  # type: ignore[type-arg]
        if domains and k % 2:
            old = domains[k % len(domains)]
            return "rename_domain", {"old": old, "new": f"{old}-{k}"}
        return "note", {"neurons": [users[k % len(users)]]}

    return [
        {
            "id": f"prop-batch-{start + k}",
            "kind": params(k)[0],
            "params": params(k)[1],
            "rationale": "batch test",
            "consulted": [{"reflection": lessons[k % len(lessons)]}],
            "retrieved": [lessons[(k + 1) % len(lessons)]],
        }
        for k in range(n)
    ]


@contextmanager
def _traced(project: Project) -> Iterator[list[str]]:
    """Every statement SQLite runs on either brain's connections inside the block
    (driver-level: statements that bypass SQLAlchemy are counted too)."""
    seen: list[str] = []
    engines = [project.user.engine, project.agent.engine]  # type: ignore[union-attr]

    def checkout(dbapi_conn, _rec, _proxy) -> None:  # type: ignore[no-untyped-def]
        dbapi_conn.set_trace_callback(seen.append)

    def checkin(dbapi_conn, _rec) -> None:  # type: ignore[no-untyped-def]
        dbapi_conn.set_trace_callback(None)

    for engine in engines:
        event.listen(engine, "checkout", checkout)
        event.listen(engine, "checkin", checkin)
    try:
        yield seen
    finally:
        for engine in engines:
            event.remove(engine, "checkout", checkout)
            event.remove(engine, "checkin", checkin)


def test_checks_run_a_constant_number_of_statements(demo, now) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    db = sqlite3.connect(f"file:{root / '.spikuit' / 'circuit.db'}?mode=ro", uri=True)
    domains = [d for (d,) in db.execute("SELECT DISTINCT domain FROM neuron WHERE domain != ''")]
    db.close()
    counts = []
    with Project.open(discover(root)) as project:
        for n in (5, 150):
            batch = intake.parse_batch(_notes(info, n, domains=domains), now)
            with _traced(project) as seen:
                intake.check_against_brains(project, batch)
            counts.append(len([s for s in seen if s.lstrip().upper().startswith("SELECT")]))
    assert counts[0] == counts[1] > 0


def test_first_problem_in_batch_order(demo, now) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    raw = _notes(info, 8)
    raw[5]["params"] = {"neurons": ["n-no-such-neuron"]}
    raw[3]["consulted"] = [{"reflection": "r-no-such-reflection"}]
    with Project.open(discover(root)) as project:
        batch = intake.parse_batch(raw, now)
        # user-brain problems are found before agent-brain ones, as one by one
        with pytest.raises(InvalidInputError, match=r"proposal\[5\].*does not exist"):
            intake.check_against_brains(project, batch)
        raw[5] = _notes(info, 1, start=5)[0]
        with pytest.raises(InvalidInputError, match=r"proposal\[3\].*r-no-such-reflection"):
            intake.check_against_brains(project, intake.parse_batch(raw, now))


def test_chunks_name_the_index_in_their_chunk(demo, now) -> None:  # type: ignore[no-untyped-def]
    root, info = demo
    first, second = _notes(info, 4), _notes(info, 4, start=4)
    second[2]["params"] = {"neurons": ["n-no-such-neuron"]}
    with Project.open(discover(root)) as project:
        chunks = [intake.parse_batch(first, now), intake.parse_batch(second, now)]
        with pytest.raises(InvalidInputError, match=r"proposal\[2\].*n-no-such-neuron"):
            intake.check_chunks(project, chunks)
        intake.check_chunks(project, chunks[:1])  # the first chunk alone is fine


@pytest.mark.parametrize("scan_from", [0, 10**9], ids=["one scan", "probed by id"])
def test_a_scan_and_probes_by_id_read_the_same_neurons(demo, monkeypatch, scan_from) -> None:  # type: ignore[no-untyped-def]
    """Many ids are read with one scan of the table, few by primary key: the same rows
    either way (retired, missing and repeated ids included), on both brains."""
    root, info = demo
    monkeypatch.setattr(intake_reads, "_SCAN_FROM", scan_from)
    users = [*info.user_ids, "n-missing", info.user_ids[0]]
    lessons = [*info.reflection_ids, *info.superseded_ids, "r-missing", info.reflection_ids[0]]
    with Project.open(discover(root)) as project:
        with project.user.read() as conn:
            live = intake_reads.liveness(conn, project.user.era, users)
        agent = project.require_agent()
        with agent.read() as conn:
            kinds = intake_reads.kinds_and_retired(conn, agent.era, lessons)
    retired = set(info.retired_user_ids)
    assert retired and retired <= set(info.user_ids) and info.superseded_ids
    assert live == {u: u not in retired for u in info.user_ids}
    assert set(kinds) == {*info.reflection_ids, *info.superseded_ids}
    assert {r for r, (_t, gone) in kinds.items() if gone is not None} == set(info.superseded_ids)
    assert {t for t, _r in kinds.values()} == {"reflection"}
