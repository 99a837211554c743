"""The metrics' bulk card reader gives exactly what the curves' reader gives."""

from __future__ import annotations

import json
import sqlite3

import numpy as np

from brainview.services import metrics
from brainview.services.communities import curves
from brainview.services.project import Project
from brainview.store.discovery import discover
from brainview.store.reflection_cards import cards_aligned, count_live_reflections, reviewed_cards


def _respell(root) -> None:  # type: ignore[no-untyped-def]
    """Give a few cards the other spellings of a timestamp, and one a New state."""
    db = sqlite3.connect(root / ".spikuit" / "agent" / "circuit.db")
    rows = db.execute(
        "SELECT f.neuron_id, f.card_json FROM fsrs_state f JOIN neuron n ON n.id = f.neuron_id "
        "WHERE n.type = 'reflection' AND n.retired_at IS NULL "
        "AND json_extract(f.card_json, '$.last_review') IS NOT NULL ORDER BY 1 LIMIT 4"
    ).fetchall()
    for k, (nid, card_json) in enumerate(rows):
        card = json.loads(card_json)
        lr = card["last_review"]
        card["last_review"] = [
            lr.replace("T", " "),
            lr.replace("+00:00", "Z"),
            lr.replace("+00:00", "+02:00"),
            lr,
        ][k]
        if k == 3:
            card["state"] = 0
        db.execute(
            "UPDATE fsrs_state SET card_json = ? WHERE neuron_id = ?", (json.dumps(card), nid)
        )
    # reviewed cards the reader must leave out: a retired reflection's, and a card on a
    # neuron that is not a reflection
    reviewed = rows[0][1]
    retired = db.execute(
        "SELECT n.id FROM neuron n JOIN fsrs_state f ON f.neuron_id = n.id "
        "WHERE n.type = 'reflection' AND n.retired_at IS NULL ORDER BY 1 DESC LIMIT 1"
    ).fetchone()[0]
    db.execute(
        "UPDATE neuron SET retired_at = '2026-01-01T00:00:00+00:00' WHERE id = ?", (retired,)
    )
    db.execute(
        "INSERT INTO neuron (id, content, type, created_at, updated_at) "
        "VALUES ('not-a-reflection', 'x', 'note', '2026-01-01T00:00:00+00:00', "
        "'2026-01-01T00:00:00+00:00')"
    )
    db.execute("INSERT INTO fsrs_state VALUES ('not-a-reflection', ?)", (reviewed,))
    db.commit()
    db.close()


def test_bulk_cards_match_the_curves_reader(demo, now) -> None:  # type: ignore[no-untyped-def]
    root, _info = demo
    _respell(root)
    with Project.open(discover(root)) as project:
        agent = project.require_agent()
        with agent.read() as conn:
            total = count_live_reflections(conn, agent.era)
            stab, last = reviewed_cards(conn, agent.era)
            ids = [
                r[0]
                for r in conn.exec_driver_sql(
                    "SELECT id FROM neuron WHERE type = 'reflection' AND retired_at IS NULL"
                )
            ]
            ref_stab, ref_last = curves.reflection_cards(conn, agent.era, ids)
        got = metrics.agent_metrics(project, now, threshold=0.7, days=14).at_risk
    assert total == len(ids) > metrics.FEW_CARDS
    seen = np.isfinite(ref_stab)
    assert sorted(zip(stab.tolist(), last.tolist(), strict=True)) == sorted(
        zip(ref_stab[seen].tolist(), ref_last[seen].tolist(), strict=True)
    )
    cross = curves.crossing_days(ref_stab, ref_last, now, 0.7)
    reviewed = np.isfinite(cross)
    assert got is not None
    assert got.never_reviewed == int((~reviewed).sum()) == total - len(stab)
    assert got.below_now == int((reviewed & (cross <= 0)).sum())
    assert got.within_days == int((reviewed & (cross > 0) & (cross <= 14)).sum())


def test_aligned_cards_match_the_curves_reader(demo) -> None:  # type: ignore[no-untyped-def]
    root, _info = demo
    _respell(root)
    with Project.open(discover(root)) as project:
        agent = project.require_agent()
        with agent.read() as conn:
            ids = [
                r[0]
                for r in conn.exec_driver_sql(
                    "SELECT id FROM neuron WHERE type = 'reflection' AND retired_at IS NULL "
                    "ORDER BY id"
                )
            ]
            stab, last = cards_aligned(conn, agent.era, ids)
            ref_stab, ref_last = curves.reflection_cards(conn, agent.era, ids)
    np.testing.assert_array_equal(stab, ref_stab)
    np.testing.assert_array_equal(last, ref_last)
    assert np.isnan(stab).any() and np.isfinite(stab).any()
