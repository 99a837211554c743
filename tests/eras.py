"""Turn a demo brain into the other schema eras (0.9 with/without overlay, pre-0.7)."""

from __future__ import annotations

import sqlite3
from pathlib import Path


def to_09(db: Path, *, overlay: bool) -> None:
    """Spikuit 0.9: no ``fsrs_state``; cards in ``circuit.tutor.db`` or nowhere."""
    conn = sqlite3.connect(db)
    cards = conn.execute("SELECT neuron_id, card_json FROM fsrs_state").fetchall()
    conn.execute("DROP TABLE fsrs_state")
    conn.commit()
    conn.close()
    if overlay:
        tutor = sqlite3.connect(db.with_name("circuit.tutor.db"))
        tutor.execute(
            "CREATE TABLE fsrs_card (neuron_id TEXT PRIMARY KEY, card_json TEXT NOT NULL, "
            "reviewed_at TEXT, created_at TEXT NOT NULL)"
        )
        tutor.executemany(
            "INSERT INTO fsrs_card VALUES (?, ?, NULL, '2026-01-01T00:00:00+00:00')", cards
        )
        tutor.commit()
        tutor.close()


def to_pre07(db: Path) -> None:
    """An older brain: no community_id/retired_at/confidence, no AMKB tables."""
    conn = sqlite3.connect(db)
    conn.executescript(
        """
        DELETE FROM neuron WHERE retired_at IS NOT NULL;
        CREATE TABLE neuron_old AS SELECT id, content, type, domain, source, created_at,
            updated_at FROM neuron;
        DROP TABLE neuron;
        ALTER TABLE neuron_old RENAME TO neuron;
        CREATE TABLE synapse_old AS SELECT pre, post, type, weight, co_fires, last_co_fire,
            created_at, updated_at FROM synapse WHERE retired_at IS NULL;
        DROP TABLE synapse;
        ALTER TABLE synapse_old RENAME TO synapse;
        DROP TABLE changeset; DROP TABLE event; DROP TABLE neuron_predecessor;
        """
    )
    conn.commit()
    conn.close()
