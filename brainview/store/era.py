"""Schema eras: tell Spikuit brains apart by the tables and columns present.

One :class:`Era` answers the questions the rest of the code asks (which columns
exist, where a card lives, what "live" means), so no ``if era == …`` spreads.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from brainview.errors import UnknownSchemaError

CardSource = Literal["fsrs_state", "tutor", "replay"]

REQUIRED: dict[str, tuple[str, ...]] = {
    "neuron": ("id", "content", "type", "domain", "created_at"),
    "synapse": ("pre", "post", "type", "weight"),
    "spike": ("neuron_id", "grade", "fired_at"),
}


@dataclass(frozen=True)
class Era:
    """What one brain's schema offers."""

    name: str
    """``0.7``, ``0.9`` or ``pre-0.7``."""
    tables: frozenset[str]
    neuron_cols: frozenset[str]
    synapse_cols: frozenset[str]
    spike_cols: frozenset[str]
    tutor_db: Path | None = None
    notes: tuple[str, ...] = field(default=())

    @property
    def card_source(self) -> CardSource:
        """Where this brain keeps FSRS cards."""
        if "fsrs_state" in self.tables:
            return "fsrs_state"
        if self.tutor_db is not None:
            return "tutor"
        return "replay"

    @property
    def has_retire(self) -> bool:
        """Whether neurons can be soft-retired (``retired_at`` column)."""
        return "retired_at" in self.neuron_cols

    @property
    def has_changelog(self) -> bool:
        """Whether the AMKB ``changeset``/``event`` tables exist."""
        return {"changeset", "event"} <= self.tables

    @property
    def has_lineage(self) -> bool:
        """Whether merges can be recorded in ``neuron_predecessor``."""
        return "neuron_predecessor" in self.tables

    @property
    def has_community(self) -> bool:
        """Whether Spikuit's own ``community_id`` column exists."""
        return "community_id" in self.neuron_cols

    def live(self, alias: str = "neuron", *, use_index: bool = True) -> str:
        """SQL predicate for a live neuron row.

        ``use_index=False`` adds SQLite's unary ``+`` so the planner cannot drive the
        query from ``idx_neuron_retired_at`` (almost every row is live, so walking that
        index to find them is a full scan plus a sort); use it for keyset pages.
        """
        if not self.has_retire:
            return "1=1"
        return f"{'' if use_index else '+'}{alias}.retired_at IS NULL"

    def live_synapse(self, alias: str = "synapse") -> str:
        """SQL predicate for a live synapse row.

        Never index-driven (unary ``+``): without ``ANALYZE`` statistics SQLite prefers
        ``idx_synapse_retired_at`` for ``retired_at IS NULL`` over the ``pre``/``post``
        and primary-key indexes, i.e. it scans every live synapse for a keyed lookup.
        """
        if "retired_at" not in self.synapse_cols:
            return "1=1"
        return f"+{alias}.retired_at IS NULL"

    @property
    def label(self) -> str:
        """Human-readable era, e.g. ``Spikuit 0.7 (cards in fsrs_state)``."""
        where = {
            "fsrs_state": "cards in fsrs_state",
            "tutor": "cards in circuit.tutor.db",
            "replay": "cards replayed from spikes",
        }[self.card_source]
        return f"Spikuit {self.name} ({where})"


def detect_era(tables: set[str], columns: dict[str, set[str]], tutor_db: Path | None = None) -> Era:
    """Classify a brain from its table names and the columns of the core tables."""
    missing = [t for t in REQUIRED if t not in tables]
    if missing:
        raise UnknownSchemaError(
            f"not a Spikuit brain: missing table(s) {', '.join(sorted(missing))}"
        )
    for table, needed in REQUIRED.items():
        absent = [c for c in needed if c not in columns.get(table, set())]
        if absent:
            raise UnknownSchemaError(
                f"unknown Spikuit schema: table {table} lacks {', '.join(absent)}"
            )
    neuron_cols = frozenset(columns["neuron"])
    if "fsrs_state" in tables and "retired_at" in neuron_cols:
        name = "0.7"
    elif "fsrs_state" not in tables and "retired_at" in neuron_cols:
        name = "0.9"
    else:
        name = "pre-0.7"
    notes: list[str] = []
    if name == "0.9" and tutor_db is None:
        notes.append("no circuit.tutor.db: cards are replayed from the spike log")
    if "community_id" not in neuron_cols:
        notes.append("no community_id column")
    return Era(
        name=name,
        tables=frozenset(tables),
        neuron_cols=neuron_cols,
        synapse_cols=frozenset(columns["synapse"]),
        spike_cols=frozenset(columns["spike"]),
        tutor_db=tutor_db if "fsrs_state" not in tables else None,
        notes=tuple(notes),
    )
