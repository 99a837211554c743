"""The shape of the hot queries, not their timing (timings live in ``bench/``).

* the plans SQLite picks for the queries the read model, the staleness checks and the
  card sampler issue (``EXPLAIN QUERY PLAN`` on the statements actually executed);
* the number of statements ``stats`` and a queue page issue does not grow with the
  number of proposals;
* the batched staleness checks give the reasons the per-proposal ones gave.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta

import pytest
from sqlalchemy import Connection, event

from brainview.core import fsrs_math
from brainview.demo.generator import DEMO_NOW, DemoSpec
from brainview.services.apply.stale import QueuedRef, stale_for, stale_reasons
from brainview.services.metrics import stats
from brainview.services.project import Project
from brainview.services.review import queue
from brainview.store import cards, readmodel
from brainview.store.discovery import discover
from brainview.store.readmodel import (
    counts,
    live_domains,
    live_synapse_keys,
    page_neurons,
    synapses_of,
)

Statement = tuple[str, tuple[object, ...]]


@contextmanager
def recorded(conn: Connection) -> Iterator[list[Statement]]:
    """Every statement (and its parameters) executed on ``conn`` inside the block."""
    seen: list[Statement] = []

    def hook(_c, _cur, statement, parameters, _ctx, _many) -> None:  # type: ignore[no-untyped-def]
        seen.append((statement, tuple(parameters or ())))

    event.listen(conn, "before_cursor_execute", hook)
    try:
        yield seen
    finally:
        event.remove(conn, "before_cursor_execute", hook)


def plan(conn: Connection, stmt: Statement) -> str:
    """SQLite's query plan for one recorded statement, as one line."""
    raw = conn.connection.driver_connection
    rows = raw.execute("EXPLAIN QUERY PLAN " + stmt[0], stmt[1]).fetchall()  # type: ignore[union-attr]
    return " | ".join(str(r[3]) for r in rows)


def plans(conn: Connection, seen: list[Statement], needle: str) -> list[str]:
    """Plans of the recorded statements whose SQL contains ``needle``."""
    found = [plan(conn, s) for s in seen if needle in s[0]]
    assert found, f"no statement containing {needle!r} was executed"
    return found


# -- plans ----------------------------------------------------------------------------


def test_synapse_probe_uses_the_primary_key(project: Project) -> None:
    with project.user.read() as conn:
        keys = [tuple(r) for r in conn.exec_driver_sql("SELECT pre, post, type FROM synapse")]
        with recorded(conn) as seen:
            found = live_synapse_keys(conn, project.user.era, keys[:5] + [("x", "y", "z")])
        assert found == set(keys[:5])
        for p in plans(conn, seen, "VALUES"):
            assert "sqlite_autoindex_synapse_1 (pre=? AND post=? AND type=?)" in p
            assert "idx_synapse_retired_at" not in p


def test_synapses_of_a_neuron_use_pre_and_post_indexes(project: Project) -> None:
    with project.agent.read() as conn:
        rid = conn.exec_driver_sql("SELECT pre FROM synapse LIMIT 1").scalar_one()
        with recorded(conn) as seen:
            assert synapses_of(conn, project.agent.era, rid)
        (p,) = plans(conn, seen, "FROM synapse")
        assert "idx_synapse_pre" in p and "idx_synapse_post" in p
        assert "retired_at" not in p


def test_live_synapse_predicate_never_drives_an_or_lookup(project: Project) -> None:
    """The shape blast.py and the STDP reads use: ``pre IN … OR post IN …``."""
    live = project.agent.era.live_synapse("s")
    with project.agent.read() as conn:
        sql = f"SELECT s.pre FROM synapse s WHERE {live} AND (s.pre IN (?, ?) OR s.post IN (?))"
        p = plan(conn, (sql, ("a", "b", "c")))
    assert "MULTI-INDEX OR" in p and "retired_at" not in p


def test_live_domains_probe_the_domain_index_once_each(project: Project) -> None:
    with project.user.read() as conn:
        with recorded(conn) as seen:
            got = live_domains(conn, project.user.era, ["math", "music", "nowhere", "math"])
        (p,) = plans(conn, seen, "FROM neuron")
    assert got == {"math", "music"}
    assert "SEARCH neuron USING INDEX idx_neuron_domain (domain=?)" in p
    assert "retired_at" not in p and "SCAN neuron" not in p


def test_counts_find_retired_rows_through_their_index(project: Project) -> None:
    with project.user.read() as conn:
        with recorded(conn) as seen:
            counts(conn, project.user.era)
        grouped = [
            plan(conn, s) for s in seen if "GROUP BY" in s[0] and "retired_at IS NOT NULL" in s[0]
        ]
    assert len(grouped) == 2
    assert all("idx_neuron_retired_at" in p for p in grouped)


@pytest.mark.parametrize(
    "filters",
    [{}, {"type_": "concept"}, {"domain": "math"}, {"type_": "concept", "domain": "math"}],
)
def test_keyset_page_walks_the_primary_key(
    project: Project, filters: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Common filters: the page is read in id order, no sort, no live-index walk."""
    monkeypatch.setattr(readmodel, "_threshold", lambda _c, _n: 20)  # 61 per domain
    with project.user.read() as conn:
        with recorded(conn) as seen:
            rows = page_neurons(conn, project.user.era, limit=10, **filters)
        assert rows and [r.id for r in rows] == sorted(r.id for r in rows)
        p = plans(conn, seen, "ORDER BY id")[0]
    assert "TEMP B-TREE" not in p and "retired_at" not in p


def test_keyset_page_uses_a_selective_filter_index(project: Project) -> None:
    with project.agent.read() as conn:
        with recorded(conn) as seen:
            rows = page_neurons(conn, project.agent.era, limit=10, type_="policy")
        assert rows and all(r.type == "policy" for r in rows)
        p = plans(conn, seen, "ORDER BY id")[0]
    assert "idx_neuron_type" in p


def test_card_sample_probes_rows_by_rowid(project: Project) -> None:
    sql = cards._STRIDE_SQL.format(where=cards._NOT_RETIRED)
    with project.user.read() as conn:
        p = plan(conn, (sql, (3, 3, 3, 1000)))
    assert "SEARCH f USING INTEGER PRIMARY KEY (rowid=?)" in p
    assert "SCAN f" not in p and "idx_neuron_retired_at" in p


def test_card_sample_of_a_small_brain_is_every_live_card(project: Project) -> None:
    """Stride 1: the sample is exactly the live cards, epochs to the millisecond."""
    with project.user.read() as conn:
        stab, last, population = cards.sample_cards(conn, project.user.era)
        raw = conn.exec_driver_sql(
            "SELECT f.card_json FROM fsrs_state f JOIN neuron n ON n.id = f.neuron_id "
            "WHERE n.retired_at IS NULL"
        ).fetchall()
        live = conn.exec_driver_sql(
            "SELECT COUNT(*) FROM neuron WHERE retired_at IS NULL"
        ).scalar_one()
    want = []
    for (card_json,) in raw:
        d = json.loads(card_json)
        if d.get("stability") is not None and d.get("last_review"):
            want.append((d["stability"], fsrs_math.parse_ts(d["last_review"]).timestamp()))
    got = sorted((s, t) for s, t in zip(stab, last, strict=True) if s == s)
    assert population == live
    assert len(got) == len(want) > 0
    for (gs, gt), (ws, wt) in zip(got, sorted(want), strict=True):
        assert gs == ws and abs(gt - wt) < 0.002


# -- query counts do not grow with the number of proposals ------------------------------


def _statements(root, fn) -> int:  # type: ignore[no-untyped-def]
    """How many statements ``fn(project)`` runs on both brains."""
    total = 0
    with Project.open(discover(root)) as project:
        engines = [project.user.engine, project.agent.engine]  # type: ignore[union-attr]

        def hook(*_args) -> None:  # type: ignore[no-untyped-def]
            nonlocal total
            total += 1

        for engine in engines:
            event.listen(engine, "before_cursor_execute", hook)
        try:
            fn(project)
        finally:
            for engine in engines:
                event.remove(engine, "before_cursor_execute", hook)
    return total


def test_stats_and_queue_pages_run_a_constant_number_of_statements(make_demo) -> None:  # type: ignore[no-untyped-def]
    small, _ = make_demo(DemoSpec(proposals=12), "small")
    large, _ = make_demo(DemoSpec(proposals=120), "large")
    sizes = []
    for root in (small, large):
        with Project.open(discover(root)) as p:
            sizes.append(queue.pending_total(p))
    assert sizes[1] >= 10 * sizes[0] > 0

    def stale_count(p: Project) -> int:
        with p.agent.read() as conn:  # type: ignore[union-attr]
            return stats.pending_stale(p, conn)

    for fn in (
        stats.project_stats,
        stale_count,
        lambda p: queue.page(p, limit=200),
    ):
        assert _statements(small, fn) == _statements(large, fn)


# -- the batched checks give the per-proposal reasons -----------------------------------


def _ref(pid: str, kind: str, params: dict | str) -> QueuedRef:
    made = fsrs_math.format_ts(DEMO_NOW + timedelta(days=1))
    body = params if isinstance(params, str) else json.dumps(params)
    return QueuedRef(pid, kind, body, made)


def test_batched_stale_reasons(make_demo) -> None:  # type: ignore[no-untyped-def]
    root, _info = make_demo(name="stale")
    paths = discover(root)
    ts = fsrs_math.format_ts(DEMO_NOW)
    with sqlite3.connect(paths.user_db) as c:
        dead_dom, live_dom = "music", "math"
        c.execute("UPDATE neuron SET retired_at = ? WHERE domain = ?", (ts, dead_dom))
        keep, gone = c.execute(
            "SELECT s.pre, s.post, s.type FROM synapse s JOIN neuron a ON a.id = s.pre "
            "JOIN neuron b ON b.id = s.post WHERE s.retired_at IS NULL AND a.retired_at IS "
            "NULL AND b.retired_at IS NULL AND s.type != 'summarizes' ORDER BY s.rowid LIMIT 2"
        ).fetchall()
        c.execute(
            "UPDATE synapse SET retired_at = ? WHERE pre = ? AND post = ? AND type = ?", (ts, *gone)
        )
        retired = c.execute(
            "SELECT id FROM neuron WHERE domain = ? LIMIT 1", (dead_dom,)
        ).fetchone()
    edge = dict(zip(("pre", "post", "type"), keep, strict=True))
    edge_gone = dict(zip(("pre", "post", "type"), gone, strict=True))
    items = [
        _ref("dom-dead", "rename_domain", {"old": dead_dom, "new": "x"}),
        _ref("dom-live", "rename_domain", {"old": live_dom, "new": "x"}),
        _ref("dom-none", "merge_domains", {"sources": [live_dom, "nowhere"], "target": "x"}),
        _ref("add-dup", "add_synapse", edge),
        _ref("add-again", "add_synapse", edge_gone),
        _ref("rm-gone", "remove_synapse", edge_gone),
        _ref("w-live", "set_synapse_weight", {**edge, "weight": 0.3}),
        _ref("ret-dead", "retire_neuron", {"neuron": retired[0]}),
        _ref("ret-none", "retire_neuron", {"neuron": "n-nope"}),
        _ref("bad", "note", "{not json"),
    ]
    arrow = f"{keep[0]} -{keep[2]}→ {keep[1]}"
    expected = {
        "dom-dead": f"domain {dead_dom} has no live neurons",
        "dom-none": "domain nowhere has no live neurons",
        "add-dup": f"synapse {arrow} already exists",
        "rm-gone": f"synapse {gone[0]} -{gone[2]}→ {gone[1]} no longer exists",
        "ret-dead": f"neuron {retired[0]} was retired",
        "ret-none": "neuron n-nope no longer exists",
        "bad": "params no longer valid",
    }
    with Project.open(paths) as project:
        with project.user.read() as uconn:
            assert stale_reasons(uconn, project.user.era, items) == expected
        assert stale_for(project, items) == expected
