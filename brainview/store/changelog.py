"""Reading Spikuit's change log (``changeset`` + ``event``) for one neuron.

The log is append-only — brainview never removes or rewrites a changeset or event, an
undo adds its own — so a neuron's first event is fixed once written: that is where
:mod:`brainview.services.audit` reads a reflection's origin from.  Changesets brainview
writes only to change a neuron's *state* (``brainview.<verb>`` lifecycle batches, their
``brainview.undo``, and ``brainview:undo:<proposal>`` inverses) never count as an
origin: their ``neuron.add`` brings a reflection back, it does not write it.
Callers check the era has a change log first.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection, text

STATE_TAGS = ("brainview.%", "brainview:undo:%")
"""``changeset.tag`` patterns (LIKE) of brainview's state changes."""

_ORDER = "ORDER BY julianday(e.at), e.rowid"
"""Oldest first: by time (any spelling), then as written."""


@dataclass(frozen=True)
class LoggedEvent:
    """One event about a neuron, with its changeset."""

    at: str
    op: str
    changeset_id: str
    tag: str | None
    actor: str | None
    actor_kind: str | None


def first_event(conn: Connection, neuron_id: str) -> tuple[str, str, str, str, str] | None:
    """``(op, at, actor_id, actor_kind, tag)`` of the neuron's first event outside
    brainview's state changes (``None``: it has none)."""
    row = conn.execute(
        text(
            "SELECT e.op, e.at, c.actor_id, c.actor_kind, c.tag FROM event e "
            "JOIN changeset c ON c.id = e.changeset_id "
            "WHERE e.target_kind = 'neuron' AND e.target_id = :r "
            "AND COALESCE(c.tag, '') NOT LIKE :a AND COALESCE(c.tag, '') NOT LIKE :b "
            f"{_ORDER} LIMIT 1"
        ),
        {"r": neuron_id, "a": STATE_TAGS[0], "b": STATE_TAGS[1]},
    ).first()
    if row is None:
        return None
    op, at, actor, kind, tag = row
    return str(op), str(at), str(actor), str(kind), str(tag)


def neuron_events(conn: Connection, neuron_id: str) -> list[LoggedEvent]:
    """Every event about the neuron, oldest first (its history in Spikuit's log)."""
    rows = conn.execute(
        text(
            "SELECT e.at, e.op, e.changeset_id, c.tag, c.actor_id, c.actor_kind FROM event e "
            "LEFT JOIN changeset c ON c.id = e.changeset_id "
            f"WHERE e.target_kind = 'neuron' AND e.target_id = :r {_ORDER}"
        ),
        {"r": neuron_id},
    )
    return [LoggedEvent(str(at), str(op), str(cs), *rest) for at, op, cs, *rest in rows]


def lifecycle_fingerprint(conn: Connection) -> int:
    """Moves whenever a lifecycle batch is recorded or the change log grows (a prune
    accepted here, ``spkt`` retiring a neuron, a rejection's lesson): O(1) reads of two
    ``MAX(rowid)``.  Only compared for equality."""
    names = {
        r[0]
        for r in conn.exec_driver_sql(
            "SELECT name FROM sqlite_master WHERE type = 'table' "
            "AND name IN ('brainview_lifecycle_batch', 'event')"
        )
    }
    batch = event = 0
    if "brainview_lifecycle_batch" in names:
        batch = int(
            conn.exec_driver_sql(
                "SELECT COALESCE(MAX(rowid), 0) FROM brainview_lifecycle_batch"
            ).scalar_one()
        )
    if "event" in names:
        event = int(conn.exec_driver_sql("SELECT COALESCE(MAX(rowid), 0) FROM event").scalar_one())
    return batch * 1_000_003 + event if event else batch
