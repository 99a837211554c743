"""The user brain as a planner sees it: the stored rows plus the changes staged so far.

Planners never write.  They read through :class:`UserView` and stage new row images
through :class:`Builder`; later reads see the staged images (a merge sees the
synapses it already redirected; the second proposal of a batch sees the first one's
changes).  Row order is the table's rowid order — what Spikuit's own un-ordered
``SELECT``s return — and staged inserts come after every stored row.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from brainview.core import fsrs_math
from brainview.errors import ConflictError
from brainview.services.apply.plan import ChangesetInfo, EventRow, Plan, RowChange
from brainview.store import apply_rows
from brainview.store.era import Era
from brainview.store.rows import PRIMARY_KEYS, KeyTuple, Row, fetch_rows_raw, key_of

_STAGED_ROWID = 1 << 62


@dataclass(frozen=True)
class Ctx:
    """Who applies, when, and under which changeset."""

    now: datetime
    changeset: ChangesetInfo

    @property
    def at(self) -> str:
        """The timestamp written into rows and the change log."""
        return fsrs_math.format_ts(self.now)


class UserView:
    """Reads of the user brain with staged changes laid over them."""

    def __init__(self, raw: sqlite3.Connection, era: Era) -> None:
        self.raw = raw
        self.era = era
        self._staged: dict[tuple[str, KeyTuple], Row | None] = {}
        self._order: dict[tuple[str, KeyTuple], int] = {}

    # -- single rows ----------------------------------------------------------------

    def row(self, table: str, key: KeyTuple) -> Row | None:
        """The row as it would be after the staged changes (``None``: absent)."""
        k = (table, tuple(key))
        if k in self._staged:
            staged = self._staged[k]
            return None if staged is None else dict(staged)
        return fetch_rows_raw(self.raw, table, [tuple(key)]).get(tuple(key))

    def neuron(self, neuron_id: str) -> Row | None:
        """A neuron row in any state."""
        return self.row("neuron", (neuron_id,))

    def live_neuron(self, neuron_id: str) -> Row:
        """A live neuron row, or a :class:`ConflictError` saying why not."""
        row = self.neuron(neuron_id)
        if row is None:
            raise ConflictError(f"neuron {neuron_id} no longer exists")
        if row.get("retired_at") is not None:
            raise ConflictError(f"neuron {neuron_id} was retired")
        return row

    def synapse(self, pre: str, post: str, typ: str) -> Row | None:
        """A synapse row in any state."""
        return self.row("synapse", (pre, post, typ))

    def live_synapse(self, pre: str, post: str, typ: str) -> Row | None:
        """A live synapse row, or ``None``."""
        row = self.synapse(pre, post, typ)
        return row if row is not None and row.get("retired_at") is None else None

    # -- sets of rows -----------------------------------------------------------------

    def _overlay(self, table: str, stored: list[Row], keep: Callable[[Row], bool]) -> list[Row]:
        """``stored`` rows (each with its ``bv_rowid``) overlaid with staged images,
        plus staged rows that match; all filtered by ``keep``."""
        found: list[tuple[int, Row]] = []
        seen: set[KeyTuple] = set()
        for row in stored:
            rowid = row.pop("bv_rowid")
            k = key_of(table, row)
            seen.add(k)
            current = self._staged.get((table, k), row)
            if current is not None and keep(current):
                found.append((rowid, dict(current)))
        for (tbl, k), staged in self._staged.items():
            if tbl == table and k not in seen and staged is not None and keep(staged):
                found.append((self._order.get((tbl, k), _STAGED_ROWID), dict(staged)))
        found.sort(key=lambda item: item[0])
        return [row for _rowid, row in found]

    def live_synapses(self, neuron_id: str, end: str) -> list[Row]:
        """Live synapse rows whose ``end`` (``pre`` or ``post``) is ``neuron_id``."""
        assert end in ("pre", "post")
        return self._overlay(
            "synapse",
            apply_rows.synapse_rows_at(self.raw, end, neuron_id),
            lambda r: r[end] == neuron_id and r.get("retired_at") is None,
        )

    def touching(self, neuron_id: str) -> list[Row]:
        """Live synapse rows with either end at ``neuron_id`` (each once)."""
        return self._overlay(
            "synapse",
            apply_rows.synapse_rows_touching(self.raw, neuron_id),
            lambda r: neuron_id in (r["pre"], r["post"]) and r.get("retired_at") is None,
        )

    def in_domain(self, domain: str) -> list[Row]:
        """Every neuron row (retired ones too) whose domain is ``domain``."""
        return self._overlay(
            "neuron",
            apply_rows.neuron_rows_in_domain(self.raw, domain),
            lambda r: r.get("domain") == domain,
        )

    def source_links(self, neuron_id: str) -> list[Row]:
        """``neuron_source`` rows of a neuron (none when the table does not exist)."""
        if "neuron_source" not in self.era.tables:
            return []
        return self._overlay(
            "neuron_source",
            apply_rows.source_link_rows(self.raw, neuron_id),
            lambda r: r["neuron_id"] == neuron_id,
        )

    # -- staging ----------------------------------------------------------------------

    def stage(self, table: str, key: KeyTuple, row: Row | None) -> None:
        """Lay a new image (``None``: absent) over the stored row."""
        k = (table, tuple(key))
        if k not in self._staged and k not in self._order:
            self._order[k] = _STAGED_ROWID + len(self._order)
        self._staged[k] = None if row is None else dict(row)


class Builder:
    """Collects one plan's row changes and events while staging them on a view."""

    def __init__(self, view: UserView, ctx: Ctx) -> None:
        self.view = view
        self.ctx = ctx
        self._changes: dict[tuple[str, KeyTuple], RowChange] = {}
        self.events: list[EventRow] = []

    def put(self, table: str, row: Row) -> Row:
        """Stage ``row`` (insert or full replacement of the row with its key)."""
        assert set(PRIMARY_KEYS[table]) <= set(row), table
        key = key_of(table, row)
        known = self._changes.get((table, key))
        before = known.before if known is not None else self.view.row(table, key)
        self._changes[(table, key)] = RowChange(table, key, before, dict(row))
        self.view.stage(table, key, row)
        return row

    def delete(self, table: str, key: KeyTuple) -> None:
        """Stage the removal of the row with ``key`` (if it exists)."""
        key = tuple(key)
        known = self._changes.get((table, key))
        before = known.before if known is not None else self.view.row(table, key)
        self._changes[(table, key)] = RowChange(table, key, before, None)
        self.view.stage(table, key, None)

    def emit(
        self,
        op: str,
        kind: str,
        target: str,
        before: str | None = None,
        after: str | None = None,
    ) -> None:
        """Add one Spikuit event to the change log."""
        self.events.append(EventRow(op, kind, target, before, after))

    def plan(self, kind: str, params: dict[str, object]) -> Plan:
        """The finished plan (rows whose image did not change are left out)."""
        changes = [c for c in self._changes.values() if c.before != c.after]
        return Plan(kind, dict(params), self.ctx.changeset, changes, list(self.events))
