"""Spikuit's change log for the agent-brain writes of a decision, and for their undo.

Every agent-brain write brainview makes goes through one ``changeset`` with
Spikuit-shaped ``event`` rows, as ``spikuit_core`` 0.7.1 would write them inside
``Circuit.transaction(tag=…, actor_id=<decider>, actor_kind="human")``:

* a **rejection lesson** (:func:`write_lesson`): ``neuron.add`` (null → the neuron's
  snapshot), then one ``synapse.add`` per ``relates_to`` row, in the order written
  (new → consulted, consulted → new, as ``add_synapse`` does for a bidirectional
  type).  Its FSRS card is written like ``add_neuron``'s: a row, no event.  Tag
  ``brainview:<proposal id>``, like an accepted consolidation item's changeset.
* a **lifecycle** batch (invalidate, reinstate): ``brainview.<verb>`` changesets
  written by :mod:`brainview.store.lifecycle_rows` with :data:`SNAPSHOTS`; undoing
  one adds a ``brainview.undo`` changeset (:func:`log_lifecycle_undo`).
* the **undo** of a decision that logged events (:func:`log_undo`): the decision's
  rows are put back by :func:`~brainview.store.effects.revert_effects`, which leaves
  the change log alone; this adds one changeset tagged ``brainview:undo:<proposal
  id>`` whose events say what the undo did to each row the decision's events named —
  ``neuron.delete`` / ``synapse.delete`` for a row it removed, ``neuron.add`` /
  ``synapse.add`` for one it brought back to life, ``*.retire`` / ``*.update``
  otherwise (:func:`~brainview.services.apply.plan.row_events`, the user brain's
  inverse uses the same).  Rows the decision changed without an event (spikes,
  cards, STDP weights — Spikuit's ``fire`` logs none) get none on undo either.

The change log only grows: nothing here, nor any undo, removes a changeset or event.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import Connection

from brainview.core import fsrs_math
from brainview.services.apply import snapshots as snap
from brainview.services.apply.plan import (
    TAG_PREFIX,
    UNDO_TAG_PREFIX,
    ChangesetInfo,
    EventRow,
    Plan,
    RowChange,
    row_events,
)
from brainview.services.apply.planner import new_changeset_id
from brainview.store.bv_schema_lifecycle import BatchLog, Change, read_row, stored_changes
from brainview.store.effects import Effect, EffectLog, stored_effects
from brainview.store.era import Era
from brainview.store.lifecycle_rows import Changeset
from brainview.store.rows import driver, insert_row
from brainview.store.writers import write_reflection

LOGGED = ("neuron", "synapse")
"""Tables whose rows Spikuit's events describe."""
SNAPSHOTS = (snap.neuron_snapshot, snap.synapse_snapshot)
"""How a lifecycle changeset writes rows into events: Spikuit's msgspec shape."""
LIFECYCLE_UNDO_TAG = "brainview.undo"


def write_lesson(
    log: EffectLog,
    era: Era,
    *,
    proposal_id: str,
    decider: str,
    neuron_id: str,
    content: str,
    skill: str,
    link_to: Sequence[str],
    weight: float,
    now: datetime,
    actor_kind: str = "human",
) -> str | None:
    """Write a rejection lesson, its links and card, and their changeset (through
    ``log``, so the decision's undo knows them); returns the changeset id (``None``
    when the era keeps no change log).  ``actor_kind``: ``agent`` for the lesson of a
    failed tutor or QABot outcome (:mod:`brainview.services.outcome`)."""
    neuron, links = write_reflection(log, era, neuron_id, content, skill, link_to, weight, now)
    if not era.has_changelog:
        return None
    events = [EventRow(snap.OP_NEURON_ADD, "neuron", neuron_id, None, snap.neuron_snapshot(neuron))]
    events += [
        EventRow(snap.OP_SYNAPSE_ADD, "synapse", snap.synapse_target(s), None,
                 snap.synapse_snapshot(s))
        for s in links
    ]  # fmt: skip
    cs = ChangesetInfo(
        new_changeset_id(),
        f"{TAG_PREFIX}{proposal_id}",
        decider,
        fsrs_math.format_ts(now),
        actor_kind,
    )
    changeset, rows = Plan("reflection", {}, cs, [], events).log_rows()
    log.insert("changeset", [changeset])
    log.insert("event", rows)
    return cs.id


def _target(effect: Effect) -> tuple[str, str]:
    return effect.tbl, "|".join(str(v) for v in effect.key.values())


def undo_events(effects: Sequence[Effect]) -> list[EventRow]:
    """The events of undoing ``effects`` (already reverted), for the rows their own
    events named, newest change first."""
    named = {
        (str(e.after["target_kind"]), str(e.after["target_id"]))
        for e in effects
        if e.tbl == "event" and e.after is not None
    }
    changes = [
        RowChange(e.tbl, tuple(e.key.values()), e.after, e.before)
        for e in reversed(effects)
        if e.tbl in LOGGED and _target(e) in named
    ]
    return [event for change in changes for event in row_events(change)]


def log_undo(
    conn: Connection, era: Era, decision_id: str, proposal_id: str, *, actor: str, now: datetime
) -> str | None:
    """After a decision's rows were reverted: its inverse changeset (``None`` when the
    decision logged no event, or the era keeps no change log)."""
    if not era.has_changelog:
        return None
    events = undo_events(stored_effects(conn, decision_id))
    if not events:
        return None
    cs = ChangesetInfo(
        new_changeset_id(), f"{UNDO_TAG_PREFIX}{proposal_id}", actor, fsrs_math.format_ts(now)
    )
    changeset, rows = Plan("undo", {}, cs, [], events).log_rows()
    raw = driver(conn)
    insert_row(raw, "changeset", changeset)
    for row in rows:
        insert_row(raw, "event", row)
    return cs.id


def log_lifecycle_undo(
    log: BatchLog, era: Era, batch_id: str, reverted: Sequence[Change], *, actor: str, at: str
) -> str | None:
    """After a lifecycle batch was reverted (``reverted``, in the order it made them):
    the undo's own changeset, through the undo batch's ``log``, for the rows the
    batch's events named (``None`` when it named none)."""
    named = {
        (str(c.after["target_kind"]), str(c.after["target_id"]))
        for c in stored_changes(log.conn, batch_id)
        if c.tbl == "event" and c.after is not None
    }
    cs = Changeset(log, era, LIFECYCLE_UNDO_TAG, actor, at, snapshots=SNAPSHOTS)
    for c in reversed(reverted):
        key = tuple(c.key.values())
        if c.tbl not in LOGGED or (c.tbl, "|".join(map(str, key))) not in named:
            continue
        restored = read_row(log.conn, c.tbl, c.key)
        if restored is None or c.op != "update":
            continue  # lifecycle batches only update Spikuit rows
        forward = {**restored, **(c.after or {})}
        for e in row_events(RowChange(c.tbl, key, forward, restored)):
            cs.event(e.op, e.target_kind, e.target_id, e.before_json, e.after_json)
    return cs.close()
