"""Bulk reads a consolidation plans from (agent brain, inside the caller's read
transaction, through the driver connection)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

from brainview.store.era import Era
from brainview.store.rows import select_in

NORMALISED = "replace(replace(fired_at, ' ', 'T'), 'Z', '+00:00')"
"""A spike time in one spelling (the three of contracts §2 sort as strings then)."""

FireRow = tuple[str, str, int, int, int, int]


def fire_aggregates(raw: sqlite3.Connection, hot_from: str) -> Iterator[FireRow]:
    """Per neuron with spikes: ``(neuron_id, last fire (normalised), fires at or after
    hot_from, latest spike id, misses among the last three spikes, spikes among the last
    three)``.

    One pass: the spike table is read in storage order (``NOT INDEXED``: walking
    ``idx_spike_neuron`` would look every row up at random), numbered per neuron newest
    first with a window function, and aggregated once — the last-three counts are the
    rows numbered 1–3.
    """
    sql = (
        "SELECT neuron_id, MAX(n), SUM(n >= ?), MAX(id), SUM(rn <= 3 AND grade = 1), "
        "SUM(rn <= 3) FROM (SELECT neuron_id, grade, id, n, ROW_NUMBER() OVER "
        "(PARTITION BY neuron_id ORDER BY n DESC, id DESC) AS rn FROM "
        f"(SELECT neuron_id, grade, id, {NORMALISED} AS n FROM spike NOT INDEXED)) "
        "GROUP BY neuron_id"
    )
    for rid, last, recent, top, missed, graded in raw.execute(sql, (hot_from,)):
        yield rid, last, int(recent or 0), int(top), int(missed or 0), int(graded)


def table_marks(raw: sqlite3.Connection, tables: set[str]) -> list[object]:
    """What :func:`~brainview.services.consolidate.gather.plan_fingerprint` digests
    besides the graph: spike count and latest id; count and latest id of the lifecycle
    and fading tables, fading decisions undone, consolidations recorded — each brainview
    table only when in ``tables`` (the ones that exist)."""
    parts: list[object] = list(raw.execute("SELECT COUNT(*), MAX(id) FROM spike").fetchone())
    for table in ("brainview_lifecycle", "brainview_fading_decision"):
        if table in tables:
            parts += raw.execute(f"SELECT COUNT(*), MAX(id) FROM {table}").fetchone()
    if "brainview_fading_decision" in tables:
        parts += raw.execute(
            "SELECT COUNT(*) FROM brainview_fading_decision WHERE undone_at IS NOT NULL"
        ).fetchone()
    if "brainview_consolidation" in tables:
        parts += raw.execute("SELECT COUNT(*) FROM brainview_consolidation").fetchone()
    return parts


def live_reflections(raw: sqlite3.Connection, era: Era) -> list[tuple[str, str | None, str]]:
    """``(id, domain, created_at)`` of every live reflection, by id."""
    return raw.execute(
        "SELECT id, domain, created_at FROM neuron n WHERE n.type = 'reflection' AND "
        f"{era.live('n')} ORDER BY id"
    ).fetchall()


def lifecycle_rows(raw: sqlite3.Connection) -> Iterator[tuple[str, str]]:
    """``(reflection_id, state)`` of every lifecycle row, oldest first."""
    yield from raw.execute("SELECT reflection_id, state FROM brainview_lifecycle ORDER BY id")


def weak_synapses(
    raw: sqlite3.Connection, era: Era, below: float
) -> Iterator[tuple[str, str, str, float | None]]:
    """``(pre, post, type, weight)`` of live synapses lighter than ``below`` (not
    ``summarizes``), by key: SHY only ever looks at weak links."""
    yield from raw.execute(
        "SELECT pre, post, type, weight FROM synapse s WHERE s.type != 'summarizes' AND "
        f"s.weight < ? AND {era.live_synapse('s')} ORDER BY pre, post, type",
        (below,),
    )


def live_policies(
    raw: sqlite3.Connection, era: Era, types: tuple[str, ...]
) -> list[tuple[str, str]]:
    """``(id, content)`` of the live neurons of ``types`` (policy types), by id."""
    marks = ",".join("?" * len(types))
    return raw.execute(
        f"SELECT id, content FROM neuron n WHERE n.type IN ({marks}) AND {era.live('n')} "
        "ORDER BY id",
        types,
    ).fetchall()


def summarizes_links(raw: sqlite3.Connection, era: Era) -> Iterator[tuple[str, str, str | None]]:
    """``(pre, post, retired_at)`` of every ``summarizes`` synapse, retired ones too."""
    retired = "s.retired_at" if "retired_at" in era.synapse_cols else "NULL"
    yield from raw.execute(
        f"SELECT pre, post, {retired} FROM synapse s WHERE s.type = 'summarizes' ORDER BY pre, post"
    )


def text_heads(raw: sqlite3.Connection, ids: list[str], chars: int) -> dict[str, str]:
    """The first ``chars`` characters of each of ``ids`` (``""`` for no content)."""
    sql = f"SELECT id, substr(content, 1, {int(chars)}) FROM neuron WHERE id IN ({{marks}})"
    return {nid: content or "" for nid, content in select_in(raw, sql, ids)}


def last_grades(raw: sqlite3.Connection, rid: str, n: int = 3) -> list[int]:
    """The grades of a neuron's last ``n`` spikes, newest first."""
    return [
        int(g)
        for (g,) in raw.execute(
            "SELECT grade FROM spike WHERE neuron_id = ? ORDER BY fired_at DESC, id DESC LIMIT ?",
            (rid, n),
        )
    ]


def contrasts_touching(raw: sqlite3.Connection, era: Era, ids: list[str]) -> list[tuple[str, str]]:
    """``(pre, post)`` of the live ``contrasts`` synapses with an end in ``ids``, by key."""
    marks = ",".join("?" * len(ids))
    return raw.execute(
        f"SELECT pre, post FROM synapse s WHERE s.type = 'contrasts' AND "
        f"{era.live_synapse('s')} AND (pre IN ({marks}) OR post IN ({marks})) "
        "ORDER BY pre, post",
        [*ids, *ids],
    ).fetchall()


def content_of(raw: sqlite3.Connection, nid: str) -> tuple[str | None] | None:
    """``(content,)`` of one neuron, or ``None`` when it does not exist."""
    return raw.execute("SELECT content FROM neuron WHERE id = ?", (nid,)).fetchone()


def summarized_by(raw: sqlite3.Connection, era: Era, policy: str) -> set[str]:
    """The ends of a policy's live ``summarizes`` synapses."""
    return {
        post
        for (post,) in raw.execute(
            "SELECT post FROM synapse s WHERE s.pre = ? AND s.type = 'summarizes' AND "
            f"{era.live_synapse('s')}",
            (policy,),
        )
    }


def last_spikes(raw: sqlite3.Connection, ids: list[str]) -> dict[str, int]:
    """The id of each neuron's latest spike row (absent: never fired)."""
    sql = "SELECT neuron_id, MAX(id) FROM spike WHERE neuron_id IN ({marks}) GROUP BY 1"
    return {rid: int(sid) for rid, sid in select_in(raw, sql, ids)}
