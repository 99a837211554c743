"""EffectLog on any keyed table: what it records, how it is stored and read back, and
that revert / reapply restore rows exactly (types, floats, BLOBs, hostile text)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Connection, Engine, create_engine

from brainview.core.text_rules import text_problem
from brainview.errors import ConflictError, UnknownSchemaError
from brainview.store.bv_schema import ensure_schema
from brainview.store.effects import (
    Effect,
    EffectLog,
    reapply_effects,
    revert_effects,
    stored_effects,
)
from brainview.store.rows import PRIMARY_KEYS
from brainview.store.spikuit_schema import SPIKUIT_07_DDL

AT = "2026-11-30T09:00:00+00:00"


@pytest.fixture
def engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Engine]:
    path = tmp_path / "agent.db"
    raw = sqlite3.connect(path)
    raw.executescript(SPIKUIT_07_DDL)
    raw.execute("CREATE TABLE blobby (id TEXT PRIMARY KEY, data BLOB, n NUMERIC, r REAL)")
    raw.close()
    monkeypatch.setitem(PRIMARY_KEYS, "blobby", ("id",))  # any keyed table can be logged
    eng = create_engine(f"sqlite:///{path}")
    with eng.begin() as conn:
        ensure_schema(conn)
        conn.exec_driver_sql(
            "INSERT INTO neuron (id, content, type, domain, created_at, updated_at) VALUES "
            "('a', 'A', 'reflection', 'd', ?, ?), ('b', 'B', 'reflection', 'd', ?, ?)",
            (AT, AT, AT, AT),
        )
        conn.exec_driver_sql(
            "INSERT INTO synapse (pre, post, type, weight, created_at, updated_at) "
            "VALUES ('a', 'b', 'relates_to', 1, ?, ?)",
            (AT, AT),
        )
    yield eng
    eng.dispose()


def dump(engine: Engine) -> dict[str, list[tuple[Any, ...]]]:
    """Every table with each value's storage class and exact repr."""
    with engine.connect() as conn:
        names = [
            r[0]
            for r in conn.exec_driver_sql("SELECT name FROM sqlite_master WHERE type='table'")
            if r[0] != "brainview_effect"
        ]
        out = {}
        for name in sorted(names):
            cols = [r[1] for r in conn.exec_driver_sql(f"PRAGMA table_info({name})")]
            sql = ", ".join(f"typeof({c}), {c}" for c in cols)
            rows = conn.exec_driver_sql(f"SELECT {sql} FROM {name}").fetchall()
            out[name] = sorted(tuple(repr(v) for v in r) for r in rows)
    return out


def exact(effects: list[Effect]) -> str:
    """Effects compared exactly: ``repr`` tells 1 from 1.0, -0.0 from 0.0, b"" from ""."""
    return repr([(e.tbl, e.op, e.key, e.before, e.after) for e in effects])


def row(conn: Connection, sql: str, *args: Any) -> dict[str, Any]:
    cur = conn.exec_driver_sql(sql, args)
    return dict(zip(cur.keys(), cur.fetchone(), strict=True))


def write_a_change(conn: Connection) -> EffectLog:
    """Inserts, updates (one row twice), a delete and a hand-recorded change, on
    Spikuit's change-log tables, neurons, synapses and a table with a BLOB."""
    log = EffectLog(conn)
    log.insert("changeset", [{"id": "cs-1", "actor_id": "me", "actor_kind": "human",
                              "started_at": AT, "status": "committed", "tag": "t"}])  # fmt: skip
    log.insert("event", [
        {"id": f"ev-{i}", "changeset_id": "cs-1", "seq": i, "op": "neuron.update",
         "target_kind": "neuron", "target_id": "a", "before_json": '{"x": "\\u00e9"}',
         "after_json": None, "at": AT}
        for i in range(3)
    ])  # fmt: skip
    a = row(conn, "SELECT * FROM neuron WHERE id='a'")
    log.update("neuron", [(a, {"content": "A2", "updated_at": "later"})])
    log.update("neuron", [({**a, "content": "A2", "updated_at": "later"}, {"domain": "e"})])
    syn = row(conn, "SELECT * FROM synapse WHERE pre='a'")
    log.update("synapse", [(syn, {"weight": 0.1 + 0.2, "co_fires": 1})])
    odd = "[bold]évil[/] 👍\u200d\tend"  # markup, joiners, tabs: data the door lets in
    log.insert("neuron", [{"id": "c", "content": odd, "type": "reflection",
                           "created_at": AT, "updated_at": AT}])  # fmt: skip
    log.insert("blobby", [{"id": "x", "data": b"\x00\xff", "n": 3, "r": -1e308}])
    b = row(conn, "SELECT * FROM neuron WHERE id='b'")
    conn.exec_driver_sql("DELETE FROM neuron WHERE id='b'")
    log.record("neuron", b, None)
    return log


def test_revert_and_reapply_restore_every_row_exactly(engine: Engine) -> None:
    before = dump(engine)
    with engine.begin() as conn:
        log = write_a_change(conn)
        assert log.flush("dec-1") == 9
        in_memory = exact(log.effects)
    after = dump(engine)
    with engine.connect() as conn:
        assert exact(stored_effects(conn, "dec-1")) == in_memory
        runs = conn.exec_driver_sql(
            "SELECT tbl, op FROM brainview_effect WHERE decision_id='dec-1' ORDER BY seq"
        ).fetchall()
    assert runs == [
        ("changeset", "insert_rows"), ("event", "insert_rows"), ("neuron", "update_rows"),
        ("synapse", "update_rows"), ("neuron", "insert_rows"), ("blobby", "insert_rows"),
        ("neuron", "update_rows"),
    ]  # fmt: skip
    log_tables = ("changeset", "event")  # Spikuit's change log: never reverted
    with engine.begin() as conn:
        assert revert_effects(conn, "dec-1") == 9 - 4
    assert dump(engine) == {t: (after if t in log_tables else before)[t] for t in before}
    with engine.begin() as conn:
        assert reapply_effects(conn, "dec-1") == 9 - 4
    assert dump(engine) == after


def test_a_row_touched_twice_keeps_first_before_and_last_after(engine: Engine) -> None:
    with engine.begin() as conn:
        log = write_a_change(conn)
    (neuron_a,) = [e for e in log.effects if e.tbl == "neuron" and e.key == {"id": "a"}]
    assert neuron_a.before is not None and neuron_a.after is not None
    assert (neuron_a.before["content"], neuron_a.before["domain"]) == ("A", "d")
    assert (neuron_a.after["content"], neuron_a.after["domain"]) == ("A2", "e")
    (synapse,) = [e for e in log.effects if e.tbl == "synapse"]
    assert synapse.before is not None and synapse.before["weight"] == 1  # an int …
    assert synapse.after is not None and synapse.after["weight"] == 0.30000000000000004


def test_undo_is_refused_when_a_row_changed_since(engine: Engine) -> None:
    with engine.begin() as conn:
        write_a_change(conn).flush("dec-1")
    with engine.begin() as conn:
        conn.exec_driver_sql("UPDATE neuron SET content = 'x' WHERE id = 'c'")
    snapshot = dump(engine)
    with pytest.raises(ConflictError, match="neuron c changed since"), engine.begin() as conn:
        revert_effects(conn, "dec-1")
    assert dump(engine) == snapshot


def test_rows_with_other_columns_round_trip_as_whole_objects(engine: Engine) -> None:
    with engine.begin() as conn:
        log = EffectLog(conn)
        log.record("brainview_proposal", {"id": "p", "status": "pending"}, {"id": "p"})
        log.record("brainview_proposal", {"id": "q", "x": 1}, {"id": "q", "x": 1.0, "y": b""})
        log.record("neuron", None, {"id": "n", "content": "only two"})
        log.record("neuron", None, {"content": "other order", "id": "m"})
        log.flush("dec-x")
        assert exact(stored_effects(conn, "dec-x")) == exact(log.effects)


def test_a_row_inserted_then_deleted_is_not_stored(engine: Engine) -> None:
    with engine.begin() as conn:
        log = EffectLog(conn)
        (c,) = log.insert("neuron", [{"id": "c", "content": "C", "created_at": AT,
                                      "updated_at": AT}])  # fmt: skip
        conn.exec_driver_sql("DELETE FROM neuron WHERE id='c'")
        log.record("neuron", c, None)
        log.update("neuron", [(c, {})])  # no new values: nothing to write
        assert log.flush("dec-y") == 0
        assert stored_effects(conn, "dec-y") == []


def test_unknown_table_and_unknown_stored_shape_are_clear_errors(engine: Engine) -> None:
    with engine.begin() as conn:
        with pytest.raises(ValueError, match="no primary key known for table 'quiz'"):
            EffectLog(conn).record("quiz", None, {"id": 1})
        conn.exec_driver_sql(
            "INSERT INTO brainview_effect VALUES ('dec-z', 0, 'neuron', 'merge_rows', '[]', "
            "NULL, NULL)"
        )
        with pytest.raises(UnknownSchemaError, match="newer brainview"):
            stored_effects(conn, "dec-z")


values = st.one_of(
    st.none(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=False),
    st.text().filter(lambda t: text_problem(t) is None),  # what the door lets in
    st.binary(max_size=8),
)
# Values a NUMERIC / REAL column stores as given, or converts to an equal number
# (``EffectLog.update`` callers pass values of the column's type).
numbers = st.one_of(
    st.none(), st.integers(min_value=-(2**53), max_value=2**53), st.floats(allow_nan=False)
)
# Equal in Python, different in a row: an exact log must keep them apart.
twins = st.sampled_from([(1, 1.0), (1.0, 1), (0.0, -0.0), (-0.0, 0.0), (b"a", "a")])


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(
        st.tuples(
            st.sampled_from("abcd"),
            st.booleans(),
            values,
            values,
            st.one_of(twins, st.tuples(values, values)),
        ),
        max_size=12,
    )
)
def test_any_values_round_trip_through_storage(engine: Engine, steps: list[Any]) -> None:
    with engine.begin() as conn:
        log = EffectLog(conn)
        for key, inserted, v1, v2, (old, new) in steps:
            after = {"id": key, "data": v1, "n": new, "r": v2}
            log.record("blobby", None if inserted else {**after, "n": old}, after)
        log.flush("dec-h")
        assert exact(stored_effects(conn, "dec-h")) == exact(log.effects)
        conn.exec_driver_sql("DELETE FROM brainview_effect")


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(
        st.one_of(
            st.tuples(st.sampled_from("abc"), st.just("data"), values),  # BLOB: kept as is
            st.tuples(st.sampled_from("abc"), st.sampled_from(["n", "r"]), numbers),
        ),
        min_size=1,
        max_size=15,
    )
)
def test_any_writes_revert_and_reapply_exactly(engine: Engine, writes: list[Any]) -> None:
    with engine.begin() as conn:
        conn.exec_driver_sql("DELETE FROM brainview_effect")
        conn.exec_driver_sql("DELETE FROM blobby")
        conn.exec_driver_sql("INSERT INTO blobby VALUES ('a', x'00', 1, 2.5)")
    start = dump(engine)
    with engine.begin() as conn:
        log = EffectLog(conn)
        for key, col, value in writes:
            current = conn.exec_driver_sql("SELECT * FROM blobby WHERE id = ?", (key,))
            found = current.mappings().first()
            if found is None:
                log.insert("blobby", [{"id": key, col: value}])
            else:
                log.update("blobby", [(dict(found), {col: value})])
        log.flush("dec-w")
    done = dump(engine)
    with engine.begin() as conn:
        revert_effects(conn, "dec-w")
    assert dump(engine) == start
    with engine.begin() as conn:
        reapply_effects(conn, "dec-w")
    assert dump(engine) == done


@pytest.mark.parametrize(
    "damage",
    [
        "before_json = substr(before_json, 1, 20)",
        'after_json = \'{"cols": ["id"], "rows": []}\'',
        "key_json = '[\"nope\"]'",
    ],
)
def test_a_damaged_effect_row_refuses_undo_and_writes_nothing(engine: Engine, damage: str) -> None:
    with engine.begin() as conn:
        write_a_change(conn).flush("dec-1")
        conn.exec_driver_sql(f"UPDATE brainview_effect SET {damage} WHERE seq = 3")
    snapshot = dump(engine)
    damaged = "effect log of decision dec-1 is damaged \\(row 3"
    with pytest.raises(ConflictError, match=damaged), engine.begin() as conn:
        revert_effects(conn, "dec-1")
    assert dump(engine) == snapshot
