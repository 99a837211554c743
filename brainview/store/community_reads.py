"""Reads behind the communities views and the clustering: the reflection graph, its
fingerprint, bulk cards, texts and fading candidates.  All SQL of
:mod:`brainview.services.communities` lives here; every function runs inside the
caller's read (or write) transaction and reads through the raw driver when a bulk read
goes straight into arrays.
"""

from __future__ import annotations

from collections.abc import Iterator

from sqlalchemy import Connection

from brainview.store.era import Era
from brainview.store.rows import driver, select_in

SUMMARY_TYPES = ("policy", "community_summary")
"""Neurons whose ``summarizes`` links attach them to a community instead of clustering."""


def heads(conn: Connection, ids: list[str], chars: int) -> dict[str, str]:
    """The first ``chars`` characters of each neuron's text (cut in SQL)."""
    sql = f"SELECT id, substr(content, 1, {int(chars)}) FROM neuron WHERE id IN ({{marks}})"
    return {str(rid): head or "" for rid, head in select_in(driver(conn), sql, ids)}


def live_reflection_count(conn: Connection, era: Era) -> int:
    """Live reflections (the graph's nodes)."""
    sql = f"SELECT COUNT(*) FROM neuron n WHERE n.type = 'reflection' AND {era.live('n')}"
    return int(driver(conn).execute(sql).fetchone()[0])


def live_reflection_ids(conn: Connection, era: Era) -> list[str]:
    """Ids of the live reflections, sorted."""
    sql = f"SELECT id FROM neuron n WHERE n.type = 'reflection' AND {era.live('n')} ORDER BY id"
    return [str(r[0]) for r in driver(conn).execute(sql)]


def live_reflection_skills(conn: Connection, era: Era) -> list[tuple[str, str | None]]:
    """``(id, domain)`` of the live reflections, by id."""
    sql = (
        "SELECT n.id, n.domain FROM neuron n WHERE n.type = 'reflection' AND "
        f"{era.live('n')} ORDER BY n.id"
    )
    return [(str(r[0]), r[1]) for r in driver(conn).execute(sql)]


def live_type(conn: Connection, era: Era, neuron_id: str) -> str | None:
    """The type of a live neuron (``None``: absent or retired)."""
    sql = f"SELECT type FROM neuron n WHERE n.id = ? AND {era.live('n')}"
    row = driver(conn).execute(sql, (neuron_id,)).fetchone()
    return None if row is None else row[0]


def graph_aggregates(conn: Connection, era: Era) -> tuple[tuple[object, ...], ...]:
    """Aggregates over live reflections / policies and live synapses (no full scan into
    Python): what the partition's fingerprint digests."""
    raw = driver(conn)
    neurons = raw.execute(
        "SELECT COUNT(*), TOTAL(rowid), MAX(rowid), SUM(type = 'policy') FROM neuron n "
        f"WHERE n.type IN ('reflection', 'policy', 'community_summary') AND {era.live('n')}"
    ).fetchone()
    synapses = raw.execute(
        "SELECT COUNT(*), TOTAL(rowid), MAX(rowid), TOTAL(weight), "
        "TOTAL(weight * (rowid % 1009)), SUM(type = 'summarizes'), "
        "TOTAL(CASE WHEN type IN ('relates_to', 'contrasts') THEN rowid ELSE 0 END) "
        f"FROM synapse s WHERE {era.live_synapse('s')}"
    ).fetchone()
    return tuple(neurons), tuple(synapses)


def synapse_rows(conn: Connection, era: Era) -> list[tuple[str, str, float | None]]:
    """``(pre, post, weight)`` of every live synapse but ``summarizes``; a bidirectional
    row (``relates_to``, ``contrasts``) counts half, so a folded pair weighs the mean."""
    return (
        driver(conn)
        .execute(
            "SELECT pre, post, CASE WHEN type IN ('relates_to', 'contrasts') THEN weight * 0.5 "
            f"ELSE weight END FROM synapse s WHERE {era.live_synapse('s')} "
            "AND s.type != 'summarizes'"
        )
        .fetchall()
    )


def summaries(conn: Connection, era: Era) -> Iterator[tuple[str, str]]:
    """``(summary neuron, summarised neuron)`` for live policies / community summaries."""
    kinds = ", ".join(f"'{t}'" for t in SUMMARY_TYPES)
    yield from driver(conn).execute(
        f"SELECT s.pre, s.post FROM synapse s JOIN neuron n ON n.id = s.pre "
        f"WHERE s.type = 'summarizes' AND {era.live_synapse('s')} AND n.type IN ({kinds}) "
        f"AND {era.live('n')} ORDER BY s.pre, s.post"
    )


def fsrs_cards(
    conn: Connection, era: Era
) -> Iterator[tuple[str, float | None, str | None, int | None]]:
    """``(id, stability, last_review, state)`` from ``fsrs_state`` for live reflections
    (``json_extract`` in SQL is ~2x faster than ``json.loads`` per row)."""
    yield from driver(conn).execute(
        "SELECT f.neuron_id, json_extract(f.card_json, '$.stability'), "
        "json_extract(f.card_json, '$.last_review'), json_extract(f.card_json, '$.state') "
        "FROM fsrs_state f JOIN neuron n ON n.id = f.neuron_id "
        f"WHERE n.type = 'reflection' AND {era.live('n')} AND json_valid(f.card_json)"
    )


def all_spikes(conn: Connection) -> Iterator[tuple[str, int, str]]:
    """``(neuron, grade, fired_at)`` of every spike, by neuron then time."""
    yield from driver(conn).execute(
        "SELECT neuron_id, grade, fired_at FROM spike ORDER BY neuron_id, fired_at, id"
    )
