"""Row writers for the decision path, recording every change so undo is exact.

Everything here runs inside the caller's transaction (nothing opens one).  Spikuit's
tables are SQLite-only, so statements go straight to the driver connection behind the
SQLAlchemy :class:`~sqlalchemy.Connection` (same transaction, ``?`` placeholders, no
statement compilation or result wrapping): a decision issues a dozen statements and
reads a few hundred rows, and ``bench/bench_decide.py`` holds it to 2× hand-written
``sqlite3``.

Each changed row is remembered once, as an :class:`Effect`, and
:meth:`EffectLog.flush` stores them as ``brainview_effect`` rows:

* ``tbl``: ``spike``, ``fsrs_state``, ``synapse``, ``neuron``, ``brainview_proposal``,
  ``brainview_grade`` or ``sqlite_sequence``;
* ``op``: ``insert`` (no row before; undo deletes it) or ``update`` (undo writes the
  before-image back);
* ``key_json``: the primary key as a JSON object (``{"pre": …, "post": …, "type": …}``);
* ``before_json``: every column of the row before, as a JSON object (``null`` for
  an insert);
* ``after_json``: for an insert, every column of the new row; for an update, only
  the columns whose value changed (the full after-image is ``{**before, **after}``;
  this halves what a decision writes, e.g. a synapse update stores 4 columns, not 11,
  and a long proposal rationale is not stored twice).

Floats keep full precision, text is ASCII-escaped so any string round-trips, BLOBs
are ``{"$bytes": "<hex>"}``.  :func:`stored_effects` returns full images again.

A row touched twice keeps one effect: the first before-image and the last after-image.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from operator import itemgetter
from typing import Any

from fsrs import Card, Scheduler
from sqlalchemy import Connection

from brainview.core import fsrs_math, stdp
from brainview.store.era import Era

Row = dict[str, Any]
KeyTuple = tuple[Any, ...]

PRIMARY_KEYS: dict[str, tuple[str, ...]] = {
    "neuron": ("id",),
    "synapse": ("pre", "post", "type"),
    "spike": ("id",),
    "fsrs_state": ("neuron_id",),
    "sqlite_sequence": ("name",),
    "brainview_proposal": ("id",),
    "brainview_grade": ("decision_id", "reflection_id"),
}
"""Tables the decision path writes, and the columns that identify one row."""

_CHUNK = 400


# -- JSON images ----------------------------------------------------------------------


def _bytes_default(value: Any) -> Any:
    if isinstance(value, bytes | bytearray | memoryview):
        return {"$bytes": bytes(value).hex()}
    raise TypeError(f"cannot store {type(value).__name__} in an effect image")


def _bytes_hook(obj: dict[str, Any]) -> Any:
    if len(obj) == 1 and "$bytes" in obj:
        return bytes.fromhex(obj["$bytes"])
    return obj


_ENCODER = json.JSONEncoder(separators=(",", ":"), default=_bytes_default)
_DECODER = json.JSONDecoder(object_hook=_bytes_hook)


def _fast_encoder() -> Callable[[Any], str]:
    """CPython's C encoder, built once: ``JSONEncoder.encode`` rebuilds it on every
    call, a third of the cost for a small row.  Falls back to the public encoder when
    the private hook is missing or its output differs."""
    try:
        from json.encoder import c_make_encoder, encode_basestring_ascii  # type: ignore

        make = c_make_encoder(
            None, _bytes_default, encode_basestring_ascii, None, ":", ",", False, False, True
        )

        def encode(obj: Any) -> str:
            return "".join(make(obj, 0))

        sample = {"s": 'é\u202e\x85"}', "f": 0.1 + 0.2, "i": -3, "n": None, "b": b"\x00"}
        if encode(sample) == _ENCODER.encode(sample):
            return encode
    except Exception:  # noqa: BLE001 - any surprise: use the public API
        pass
    return _ENCODER.encode


_encode = _fast_encoder()


def dump_row(row: Mapping[str, Any] | None) -> str | None:
    """A row as JSON (``None`` stays ``None``)."""
    return None if row is None else _encode(row)


def load_row(text: str | None) -> Row | None:
    """Inverse of :func:`dump_row`."""
    return None if text is None else _DECODER.decode(text)


# -- raw access ------------------------------------------------------------------------


def driver(conn: Connection) -> sqlite3.Connection:
    """The sqlite3 connection under ``conn`` (same transaction)."""
    raw = conn.connection.driver_connection
    assert isinstance(raw, sqlite3.Connection)
    return raw


def _dicts(cur: sqlite3.Cursor) -> list[Row]:
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]  # noqa: B905 - same width by SQL


def _getter(cols: tuple[str, ...]) -> Callable[[Mapping[str, Any]], KeyTuple]:
    get = itemgetter(*cols)
    if len(cols) == 1:
        return lambda row: (get(row),)
    return get  # type: ignore[return-value]


_KEY_GETTERS = {table: _getter(cols) for table, cols in PRIMARY_KEYS.items()}


def key_of(table: str, row: Mapping[str, Any]) -> KeyTuple:
    """The primary-key values of ``row``."""
    return _KEY_GETTERS[table](row)


def _where(table: str) -> str:
    return " AND ".join(f"{c} = ?" for c in PRIMARY_KEYS[table])


def fetch_rows(conn: Connection, table: str, keys: Iterable[KeyTuple]) -> dict[KeyTuple, Row]:
    """Full rows by primary key, in few statements (absent keys are simply missing)."""
    cols = PRIMARY_KEYS[table]
    unique = list(dict.fromkeys(tuple(k) for k in keys))
    raw = driver(conn)
    out: dict[KeyTuple, Row] = {}
    for start in range(0, len(unique), _CHUNK):
        chunk = unique[start : start + _CHUNK]
        # By the first key column (indexed everywhere), then exact keys in Python.
        firsts = list(dict.fromkeys(k[0] for k in chunk))
        wanted = set(chunk)
        sql = f"SELECT * FROM {table} WHERE {cols[0]} IN ({','.join('?' * len(firsts))})"
        for row in _dicts(raw.execute(sql, firsts)):
            k = key_of(table, row)
            if k in wanted:
                out[k] = row
    return out


def fetch_row(conn: Connection, table: str, key: KeyTuple) -> Row | None:
    """One full row by primary key."""
    return fetch_rows(conn, table, [key]).get(tuple(key))


# -- the effect log --------------------------------------------------------------------


@dataclass
class Effect:
    """One changed row."""

    tbl: str
    op: str
    key: Row
    before: Row | None
    after: Row | None


class EffectLog:
    """Writes rows and remembers each one's before- and after-image."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.raw = driver(conn)
        self._effects: dict[tuple[str, KeyTuple], Effect] = {}

    def record(self, table: str, before: Row | None, after: Row | None) -> None:
        """Remember a change already made (first before-image, last after-image win)."""
        source = after if after is not None else before
        assert source is not None
        k = key_of(table, source)
        known = self._effects.get((table, k))
        if known is not None:
            known.after = after
            return
        key = dict(zip(PRIMARY_KEYS[table], k, strict=True))
        self._effects[(table, k)] = Effect(
            table, "insert" if before is None else "update", key, before, after
        )

    @property
    def effects(self) -> list[Effect]:
        """Effects in the order rows were first touched."""
        return list(self._effects.values())

    def insert(self, table: str, rows: Sequence[Row]) -> list[Row]:
        """Insert rows that carry their whole primary key (all naming the same columns);
        return the stored rows, read back so column defaults are in the after-image."""
        if not rows:
            return []
        cols = list(rows[0])
        sql = f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})"
        self.raw.executemany(sql, [tuple(r[c] for c in cols) for r in rows])
        keys = [key_of(table, r) for r in rows]
        stored = fetch_rows(self.conn, table, keys)
        out = [stored[k] for k in keys]
        for row in out:
            self.record(table, None, row)
        return out

    def insert_autoid(self, table: str, rows: Sequence[Row]) -> list[Row]:
        """Insert rows whose integer ``id`` the database assigns; return the stored rows
        in the given order.

        Inside our write transaction nobody else inserts, and SQLite gives new rows
        rowids above the current maximum, so the rows past the old maximum are ours.
        """
        if not rows:
            return []
        cols = list(rows[0])
        top = self.raw.execute(f"SELECT MAX(rowid) FROM {table}").fetchone()[0] or 0
        sql = f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})"
        self.raw.executemany(sql, [tuple(r[c] for c in cols) for r in rows])
        out = _dicts(
            self.raw.execute(f"SELECT * FROM {table} WHERE rowid > ? ORDER BY rowid", (top,))
        )
        if len(out) != len(rows):
            raise RuntimeError(f"{table}: inserted {len(rows)} rows but found {len(out)}")
        for row in out:
            self.record(table, None, row)
        return out

    def update(self, table: str, changes: Sequence[tuple[Row, Row]]) -> None:
        """Apply ``(full current row, new values)`` pairs; pairs changing the same
        columns share one ``executemany``."""
        groups: dict[tuple[str, ...], list[tuple[Row, Row]]] = {}
        for before, new in changes:
            groups.setdefault(tuple(new), []).append((before, new))
        pk = PRIMARY_KEYS[table]
        for cols, items in groups.items():
            sets = ", ".join(f"{c} = ?" for c in cols)
            self.raw.executemany(
                f"UPDATE {table} SET {sets} WHERE {_where(table)}",
                [tuple(new[c] for c in cols) + tuple(b[c] for c in pk) for b, new in items],
            )
            for before, new in items:
                self.record(table, before, {**before, **new})

    def snapshot_sequence(self, name: str) -> Row | None:
        """The ``sqlite_sequence`` row of an AUTOINCREMENT table (``None`` if absent)."""
        try:
            cur = self.raw.execute("SELECT * FROM sqlite_sequence WHERE name = ?", (name,))
        except sqlite3.OperationalError:  # no AUTOINCREMENT table in this file yet
            return None
        found = _dicts(cur)
        return found[0] if found else None

    def record_sequence(self, name: str, before: Row | None) -> None:
        """Remember how ``sqlite_sequence`` moved since :meth:`snapshot_sequence`."""
        after = self.snapshot_sequence(name)
        if before != after:
            self.record("sqlite_sequence", before, after)

    def flush(self, decision_id: str) -> int:
        """Store the effects as ``brainview_effect`` rows; return how many."""
        enc = _encode
        rows = [
            (
                decision_id,
                seq,
                e.tbl,
                e.op,
                enc(e.key),
                None if e.before is None else enc(e.before),
                None if e.after is None else enc(_delta(e.before, e.after)),
            )
            for seq, e in enumerate(self._effects.values())
        ]
        self.raw.executemany(
            "INSERT INTO brainview_effect (decision_id, seq, tbl, op, key_json, "
            "before_json, after_json) VALUES (?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
        return len(rows)


def _delta(before: Row | None, after: Row) -> Row:
    """``after`` as stored: whole for an insert, the changed columns for an update."""
    if before is None:
        return after
    return {
        c: v
        for c, v in after.items()
        if c not in before or type(before[c]) is not type(v) or before[c] != v
    }


# -- reads the decision path needs ------------------------------------------------------


def consulted_of(conn: Connection, proposal_id: str) -> list[tuple[str, str]]:
    """``(reflection_id, stance)`` of the consulted reflections, in consulted order."""
    rows = driver(conn).execute(
        "SELECT reflection_id, stance FROM brainview_consult WHERE proposal_id = ? "
        "AND role = 'consulted' ORDER BY seq, reflection_id",
        (proposal_id,),
    )
    return [(r, s or "support") for r, s in rows]


def liveness(conn: Connection, era: Era, ids: Sequence[str]) -> dict[str, bool]:
    """``{id: is_live}`` for those of ``ids`` that exist."""
    retired = "retired_at" if era.has_retire else "NULL"
    raw = driver(conn)
    out: dict[str, bool] = {}
    for start in range(0, len(ids), _CHUNK):
        chunk = list(ids[start : start + _CHUNK])
        rows = raw.execute(
            f"SELECT id, {retired} FROM neuron WHERE id IN ({','.join('?' * len(chunk))})",
            chunk,
        )
        out.update((nid, ret is None) for nid, ret in rows)
    return out


def touching_synapses(conn: Connection, era: Era, ids: Sequence[str]) -> list[Row]:
    """Live synapse rows (full) with either end in ``ids``, each once, in key order.

    The unary ``+`` keeps SQLite off ``idx_synapse_retired_at`` (which would scan
    every live synapse) and on ``idx_synapse_pre`` / ``idx_synapse_post``.
    """
    live = "+retired_at IS NULL" if "retired_at" in era.synapse_cols else "1=1"
    raw = driver(conn)
    out: dict[KeyTuple, Row] = {}
    for start in range(0, len(ids), _CHUNK):
        chunk = list(ids[start : start + _CHUNK])
        marks = ",".join("?" * len(chunk))
        cur = raw.execute(
            f"SELECT * FROM synapse WHERE (pre IN ({marks}) OR post IN ({marks})) AND {live}",
            chunk + chunk,
        )
        for row in _dicts(cur):
            out[key_of("synapse", row)] = row
    return [out[k] for k in sorted(out)]


def last_fires(
    conn: Connection, ids: Iterable[str], now: datetime, window_days: float
) -> dict[str, datetime]:
    """Each neuron's latest spike at or before ``now`` and at most ``window_days`` older.

    SQLite's ``julianday`` (which reads all three timestamp spellings) picks the
    latest row per neuron; its ``fired_at`` text is then parsed exactly in Python.
    """
    unique = sorted(set(ids))
    now_s = fsrs_math.format_ts(now)
    # Dates lead every spelling, so a date-prefix bound is index-friendly and safe;
    # two days of margin cover odd offsets.  The exact window is applied after parsing.
    lo = (now - timedelta(days=window_days + 2)).date().isoformat()
    raw = driver(conn)
    out: dict[str, datetime] = {}
    for start in range(0, len(unique), _CHUNK):
        chunk = unique[start : start + _CHUNK]
        rows = raw.execute(
            "SELECT neuron_id, fired_at, MAX(julianday(fired_at)) FROM spike "
            f"WHERE neuron_id IN ({','.join('?' * len(chunk))}) AND fired_at >= ? "
            "AND julianday(fired_at) <= julianday(?) GROUP BY neuron_id",
            (*chunk, lo, now_s),
        )
        for nid, fired_at, _jd in rows:
            try:
                when = fsrs_math.parse_ts(str(fired_at))
            except ValueError:
                continue
            if when <= now and (now - when).total_seconds() <= window_days * 86_400:
                out[nid] = when
    return out


# -- the decision's row changes ---------------------------------------------------------


def fresh_card(neuron_id: str, now: datetime) -> Card:
    """A never-reviewed card, as Spikuit's ``Card()`` but with a deterministic id
    (48 bits of a hash of the neuron id instead of the wall clock)."""
    digest = hashlib.blake2b(neuron_id.encode(), digest_size=6).digest()
    return Card(card_id=int.from_bytes(digest, "big"), due=now)


def write_spikes(
    log: EffectLog,
    era: Era,
    fired: Sequence[tuple[str, int]],
    fired_at: str,
    session_id: str,
    notes: str,
) -> list[Row]:
    """One ``spike`` row per ``(neuron_id, grade)``, in order (ids ascend); the
    ``sqlite_sequence`` move is logged too.  Columns the era lacks are left out."""
    if not fired:
        return []
    seq_before = log.snapshot_sequence("spike")
    extra = {"session_id": session_id, "notes": notes}
    extra = {k: v for k, v in extra.items() if k in era.spike_cols}
    rows = log.insert_autoid(
        "spike", [{"neuron_id": n, "grade": g, "fired_at": fired_at, **extra} for n, g in fired]
    )
    log.record_sequence("spike", seq_before)
    return rows


def write_cards(
    log: EffectLog, fired: Sequence[tuple[str, int]], now: datetime, scheduler: Scheduler
) -> None:
    """Review each neuron's ``fsrs_state`` card (a fresh one if none) and store it."""
    if not fired:
        return
    stored = fetch_rows(log.conn, "fsrs_state", [(n,) for n, _g in fired])
    updates: list[tuple[Row, Row]] = []
    inserts: list[Row] = []
    for nid, grade in fired:
        before = stored.get((nid,))
        card = (
            fsrs_math.card_from_json(before["card_json"])
            if before is not None
            else fresh_card(nid, now)
        )
        card, _review_log = scheduler.review_card(card, fsrs_math.GRADE_TO_RATING[grade], now)
        if before is None:
            inserts.append({"neuron_id": nid, "card_json": card.to_json()})
        else:
            updates.append((before, {"card_json": card.to_json()}))
    log.update("fsrs_state", updates)
    log.insert("fsrs_state", inserts)


StdpStep = tuple[str, str, str, float, float]


def write_stdp(
    log: EffectLog,
    era: Era,
    fired: Sequence[tuple[str, int]],
    rows: Sequence[Row],
    last_fire: Mapping[str, datetime],
    now: datetime,
) -> list[StdpStep]:
    """STDP (contracts §4) for neurons that fire one after another, all at ``now``.

    ``fired`` is processed **in order**, as if Spikuit's ``Circuit.fire`` ran for
    each in turn: neuron *i* sees ``last_fire`` (the spike log before these fires)
    plus the neurons fired before it here (Δt = 0); later ones have not fired yet.
    For each live synapse row touching a neuron F that fired with grade ≥ weak —
    incoming rows by ``(pre, type)``, then outgoing by ``(post, type)``, self-loops
    skipped — whose other end fired within tau: incoming weight ``+ a_plus·e^(−Δt/τ)``,
    outgoing ``− a_minus·e^(−Δt/τ)``, clamped to [0.05, 1]; ``co_fires += 1``;
    ``last_co_fire`` and ``updated_at`` = now.  A miss changes no weight but still
    counts as a fire for the neurons after it.  ``rows`` are the full live synapse
    rows touching ``fired``.  Returns every step ``(pre, post, type, before, after)``.
    """
    now_s = fsrs_math.format_ts(now)
    current: dict[KeyTuple, Row] = {}
    originals: dict[KeyTuple, Row] = {}
    incoming: dict[str, list[KeyTuple]] = {}
    outgoing: dict[str, list[KeyTuple]] = {}
    for row in sorted(rows, key=_KEY_GETTERS["synapse"]):
        k = key_of("synapse", row)
        originals[k] = row
        current[k] = dict(row)
        incoming.setdefault(row["post"], []).append(k)
        outgoing.setdefault(row["pre"], []).append(k)
    stamp = [c for c in ("last_co_fire", "updated_at") if c in era.synapse_cols]
    counts = "co_fires" in era.synapse_cols
    steps: list[StdpStep] = []
    fired_at = dict(last_fire)
    for nid, grade in fired:
        if stdp.applies(grade):
            # Keys were collected in (pre, post, type) order, so these are already by
            # (pre, type) and (post, type).
            edges = [("in", k, k[0]) for k in incoming.get(nid, ())]
            edges += [("out", k, k[1]) for k in outgoing.get(nid, ())]
            for direction, k, other in edges:
                if other == nid or other not in fired_at:
                    continue
                change = stdp.delta(direction, (now - fired_at[other]).total_seconds() / 86_400)
                if change is None:
                    continue
                row = current[k]
                before = float(row["weight"]) if row["weight"] is not None else 0.5
                row["weight"] = stdp.clamp(before + change)
                if counts:
                    row["co_fires"] = int(row["co_fires"] or 0) + 1
                for col in stamp:
                    row[col] = now_s
                steps.append((k[0], k[1], k[2], before, row["weight"]))
        fired_at[nid] = now
    cols = ["weight", *(["co_fires"] if counts else []), *stamp]
    log.update(
        "synapse",
        [
            (originals[k], {c: row[c] for c in cols})
            for k, row in current.items()
            if row != originals[k]
        ],
    )
    return steps


def write_reflection(
    log: EffectLog,
    era: Era,
    neuron_id: str,
    content: str,
    domain: str,
    link_to: Sequence[str],
    weight: float,
    now: datetime,
) -> None:
    """A new ``reflection`` neuron (with a fresh card where the era keeps cards in
    ``fsrs_state``, as Spikuit's ``add_neuron`` does) and ``relates_to`` rows in both
    directions to each of ``link_to``."""
    now_s = fsrs_math.format_ts(now)
    neuron: Row = {
        "id": neuron_id,
        "content": content,
        "type": "reflection",
        "domain": domain,
        "created_at": now_s,
    }
    if "updated_at" in era.neuron_cols:
        neuron["updated_at"] = now_s
    log.insert("neuron", [neuron])
    if era.card_source == "fsrs_state":
        log.insert(
            "fsrs_state",
            [{"neuron_id": neuron_id, "card_json": fresh_card(neuron_id, now).to_json()}],
        )
    extra: Row = {"co_fires": 0} if "co_fires" in era.synapse_cols else {}
    extra.update({c: now_s for c in ("created_at", "updated_at") if c in era.synapse_cols})
    log.insert(
        "synapse",
        [
            {"pre": pre, "post": post, "type": "relates_to", "weight": weight, **extra}
            for rid in link_to
            for pre, post in ((neuron_id, rid), (rid, neuron_id))
        ],
    )


# -- undo helpers -----------------------------------------------------------------------


def stored_effects(conn: Connection, decision_id: str) -> list[Effect]:
    """A decision's effects in the order they were recorded."""
    rows = driver(conn).execute(
        "SELECT tbl, op, key_json, before_json, after_json FROM brainview_effect "
        "WHERE decision_id = ? ORDER BY seq",
        (decision_id,),
    )
    out = []
    for tbl, op, key, before_json, after_json in rows:
        before, after = load_row(before_json), load_row(after_json)
        if before is not None and after is not None:
            after = {**before, **after}
        out.append(Effect(tbl, op, json.loads(key), before, after))
    return out


def delete_row(conn: Connection, table: str, key: Mapping[str, Any]) -> None:
    """Delete one row by primary key."""
    driver(conn).execute(
        f"DELETE FROM {table} WHERE {_where(table)}",
        tuple(key[c] for c in PRIMARY_KEYS[table]),
    )


def restore_row(conn: Connection, table: str, row: Mapping[str, Any]) -> None:
    """Write every column of ``row`` back (the row exists; keys do not change)."""
    pk = PRIMARY_KEYS[table]
    cols = [c for c in row if c not in pk]
    driver(conn).execute(
        f"UPDATE {table} SET {', '.join(f'{c} = ?' for c in cols)} WHERE {_where(table)}",
        tuple(row[c] for c in cols) + tuple(row[c] for c in pk),
    )


def insert_row(conn: Connection, table: str, row: Mapping[str, Any]) -> None:
    """Insert one full row as recorded."""
    cols = list(row)
    driver(conn).execute(
        f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
        tuple(row[c] for c in cols),
    )
