"""User-brain rows the apply reads and the change log it writes, on the raw driver.

* the sets of rows a planner overlays with its staged changes
  (:class:`~brainview.services.apply.view.UserView`): each row carries its ``rowid``
  as ``bv_rowid`` and they come in rowid order — what Spikuit's own un-ordered
  ``SELECT``s return;
* the rows Spikuit's graph state hash depends on
  (:mod:`brainview.services.apply.state_hash`);
* the ``changeset`` probe that keeps an apply idempotent and the ``event`` rows of a
  plan's change log.

Everything runs inside the caller's transaction (nothing opens or commits one).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Connection

from brainview.store.era import Era
from brainview.store.rows import PRIMARY_KEYS, Row, dicts, driver

SYNAPSE_ENDS = ("pre", "post")
VEC_MAP = "neuron_vec_map"
"""Spikuit's ``rowid ↔ neuron_id`` map of its sqlite-vec ``neuron_vec`` (with an
embedder): the one vector table brainview writes — it deletes a row, as Spikuit does on
retire and before re-embedding; ``neuron_vec`` itself (a virtual table this Python's
``sqlite3`` cannot open) is never touched."""
PRIMARY_KEYS.setdefault(VEC_MAP, ("rowid",))

# -- the change log ---------------------------------------------------------------------


def changeset_exists(raw: sqlite3.Connection, changeset_id: str) -> bool:
    """Whether the user brain already holds this changeset."""
    found = raw.execute("SELECT 1 FROM changeset WHERE id = ?", (changeset_id,)).fetchone()
    return found is not None


def insert_events(raw: sqlite3.Connection, events: Sequence[Mapping[str, Any]]) -> None:
    """Insert ``event`` rows (all with the first row's columns, in that order)."""
    if not events:
        return
    cols = list(events[0])
    raw.executemany(
        f"INSERT INTO event ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
        [tuple(e[c] for c in cols) for e in events],
    )


def table_exists_raw(conn: Connection, name: str) -> bool:
    """Whether a table exists, asked through the raw driver (cheap: runs per accept)."""
    found = (
        driver(conn)
        .execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,))
        .fetchone()
    )
    return found is not None


# -- rows a planner overlays ------------------------------------------------------------


def synapse_rows_at(raw: sqlite3.Connection, end: str, neuron_id: str) -> list[Row]:
    """Synapse rows (any state) whose ``end`` (``pre`` or ``post``) is ``neuron_id``."""
    if end not in SYNAPSE_ENDS:
        raise ValueError(f"a synapse end is pre or post, not {end!r}")
    return dicts(
        raw.execute(f"SELECT rowid AS bv_rowid, * FROM synapse WHERE {end} = ?", (neuron_id,))
    )


def synapse_rows_touching(raw: sqlite3.Connection, neuron_id: str) -> list[Row]:
    """Synapse rows (any state) with either end at ``neuron_id``."""
    return dicts(
        raw.execute(
            "SELECT rowid AS bv_rowid, * FROM synapse WHERE pre = ? OR post = ?",
            (neuron_id, neuron_id),
        )
    )


def neuron_rows_in_domain(raw: sqlite3.Connection, domain: str) -> list[Row]:
    """Neuron rows (retired ones too) whose domain is ``domain``."""
    return dicts(raw.execute("SELECT rowid AS bv_rowid, * FROM neuron WHERE domain = ?", (domain,)))


def source_link_rows(raw: sqlite3.Connection, neuron_id: str) -> list[Row]:
    """``neuron_source`` rows of a neuron (the caller checks the table exists)."""
    return dicts(
        raw.execute(
            "SELECT rowid AS bv_rowid, * FROM neuron_source WHERE neuron_id = ?", (neuron_id,)
        )
    )


# -- rows Spikuit's graph state hash reads ----------------------------------------------


def newest_live_neuron_ids(raw: sqlite3.Connection, era: Era, limit: int) -> list[str]:
    """The ids of the newest ``limit`` live neurons by ``created_at`` (newest first),
    as Spikuit's ``list_neurons(limit=...)`` loads them."""
    live = era.live("neuron")
    return [
        r[0]
        for r in raw.execute(
            f"SELECT id FROM neuron WHERE {live} ORDER BY created_at DESC LIMIT ?", (limit,)
        )
    ]


def live_synapse_edges(
    raw: sqlite3.Connection, era: Era
) -> list[tuple[int, str, str, str, float | None]]:
    """``(rowid, pre, post, type, weight)`` of every live synapse, in table order."""
    syn_live = era.live_synapse("synapse")
    return list(
        raw.execute(
            f"SELECT rowid, pre, post, type, weight FROM synapse WHERE {syn_live} ORDER BY rowid"
        )
    )


def synapse_rowid(raw: sqlite3.Connection, key: tuple[str, str, str]) -> int | None:
    """The ``rowid`` of the synapse row with key ``(pre, post, type)`` (any state)."""
    found = raw.execute(
        "SELECT rowid FROM synapse WHERE pre = ? AND post = ? AND type = ?", key
    ).fetchone()
    return int(found[0]) if found else None


def vec_map_rowids(raw: sqlite3.Connection, neuron_id: str) -> list[int]:
    """The ``neuron_vec_map`` rowids of a neuron's stored vector (none without an
    embedder's tables)."""
    if (
        raw.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (VEC_MAP,)
        ).fetchone()
        is None
    ):
        return []
    return [int(r[0]) for r in raw.execute(
        f"SELECT rowid FROM {VEC_MAP} WHERE neuron_id = ? ORDER BY rowid", (neuron_id,)
    )]  # fmt: skip
