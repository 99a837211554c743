"""Row writers for the decision path (agent brain), logging every change: undo is exact.

Everything here runs inside the caller's transaction (nothing opens one) and goes
through an :class:`~brainview.store.effects.EffectLog`.  Raw row access lives in
:mod:`brainview.store.rows` and the effect log in :mod:`brainview.store.effects`;
their public names are re-exported here for existing callers.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from fsrs import Card, Scheduler
from sqlalchemy import Connection

from brainview.core import fsrs_math, stdp
from brainview.store.effects import Effect, EffectLog, stored_effects
from brainview.store.era import Era
from brainview.store.rows import (
    CHUNK,
    KEY_GETTERS,
    PRIMARY_KEYS,
    KeyTuple,
    Row,
    delete_row,
    dicts,
    driver,
    dump_row,
    fetch_row,
    fetch_rows,
    insert_row,
    key_of,
    load_row,
    restore_row,
)

__all__ = [
    "PRIMARY_KEYS",
    "Effect",
    "EffectLog",
    "KeyTuple",
    "Row",
    "StdpStep",
    "delete_row",
    "driver",
    "dump_row",
    "fetch_row",
    "fetch_rows",
    "fresh_card",
    "insert_row",
    "key_of",
    "last_fires",
    "load_row",
    "restore_row",
    "stored_effects",
    "touching_synapses",
    "write_cards",
    "write_reflection",
    "write_spikes",
    "write_stdp",
]

_CHUNK = CHUNK


# -- reads the decision path needs ------------------------------------------------------


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
        for row in dicts(cur):
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
    key = KEY_GETTERS["synapse"]
    originals = {key(row): row for row in sorted(rows, key=key)}
    incoming: dict[str, list[KeyTuple]] = {}
    outgoing: dict[str, list[KeyTuple]] = {}
    for k in originals:  # in key order, so by (pre, type) and (post, type) below
        incoming.setdefault(k[1], []).append(k)
        outgoing.setdefault(k[0], []).append(k)
    # Days since each neuron last fired (Δt); a fire here makes it 0.
    age = {n: (now - t).total_seconds() / 86_400 for n, t in last_fire.items()}
    gains: dict[tuple[str, float], float | None] = {}
    state: dict[KeyTuple, list[Any]] = {}  # stepped rows: [weight, co_fires] so far
    steps: list[StdpStep] = []

    def fire(nid: str, keys: Sequence[KeyTuple], direction: str, end: int) -> None:
        for k in keys:
            other = k[end]
            dt = age.get(other)
            if other == nid or dt is None:
                continue
            at = (direction, dt)
            change = gains[at] if at in gains else gains.setdefault(at, stdp.delta(*at))
            if change is None:
                continue
            now_row = state.get(k)
            if now_row is None:
                w = originals[k]["weight"]
                co = originals[k].get("co_fires")
                now_row = state[k] = [float(w) if w is not None else 0.5, int(co or 0)]
            before = now_row[0]
            now_row[0] = after = stdp.clamp(before + change)
            now_row[1] += 1
            steps.append((k[0], k[1], k[2], before, after))

    for nid, grade in fired:
        if stdp.applies(grade):
            fire(nid, incoming.get(nid, ()), "in", 0)
            fire(nid, outgoing.get(nid, ()), "out", 1)
        age[nid] = 0.0
    stamp = [c for c in ("last_co_fire", "updated_at") if c in era.synapse_cols]
    counts = "co_fires" in era.synapse_cols
    cols = ["weight", *(["co_fires"] if counts else []), *stamp]
    changes: list[tuple[Row, Row]] = []
    for k, row in originals.items():
        stepped = state.get(k)
        if stepped is not None:
            values = stepped if counts else stepped[:1]
            values = values + [now_s] * len(stamp)
            if [row[c] for c in cols] != values:
                changes.append((row, dict(zip(cols, values, strict=True))))
    log.update("synapse", changes)
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
) -> tuple[Row, list[Row]]:
    """A new ``reflection`` neuron (with a fresh card where the era keeps cards in
    ``fsrs_state``, as Spikuit's ``add_neuron`` does) and ``relates_to`` rows in both
    directions to each of ``link_to``; returns the stored neuron and synapse rows."""
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
    (stored,) = log.insert("neuron", [neuron])
    if era.card_source == "fsrs_state":
        log.insert(
            "fsrs_state",
            [{"neuron_id": neuron_id, "card_json": fresh_card(neuron_id, now).to_json()}],
        )
    extra: Row = {"co_fires": 0} if "co_fires" in era.synapse_cols else {}
    extra.update({c: now_s for c in ("created_at", "updated_at") if c in era.synapse_cols})
    links = log.insert(
        "synapse",
        [
            {"pre": pre, "post": post, "type": "relates_to", "weight": weight, **extra}
            for rid in link_to
            for pre, post in ((neuron_id, rid), (rid, neuron_id))
        ],
    )
    return stored, links
