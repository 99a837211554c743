"""Read model over one brain: aggregates, single rows and keyset pages.

Nothing here loads a whole brain: counts come from SQL aggregates and lists from
keyset pages.  Every query is parameterised.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import Connection, text

from brainview.store.era import Era


@dataclass(frozen=True)
class NeuronRow:
    """One neuron (or reflection) as stored."""

    id: str
    content: str
    type: str | None
    domain: str | None
    created_at: str
    updated_at: str | None
    retired_at: str | None
    community_id: int | None

    @property
    def live(self) -> bool:
        """Live means not soft-retired."""
        return self.retired_at is None


@dataclass(frozen=True)
class SynapseRow:
    """One directed synapse row."""

    pre: str
    post: str
    type: str
    weight: float
    co_fires: int
    last_co_fire: str | None
    retired_at: str | None


@dataclass(frozen=True)
class SpikeRow:
    """One review/use event."""

    id: int
    neuron_id: str
    grade: int
    fired_at: str
    session_id: str | None
    notes: str | None


def _neuron_select(era: Era) -> str:
    retired = "retired_at" if era.has_retire else "NULL AS retired_at"
    community = "community_id" if era.has_community else "NULL AS community_id"
    updated = "updated_at" if "updated_at" in era.neuron_cols else "created_at AS updated_at"
    return (
        f"SELECT id, content, type, domain, created_at, {updated}, {retired}, {community} "
        "FROM neuron"
    )


def _neuron(row: object) -> NeuronRow:
    return NeuronRow(*row)  # type: ignore[misc]


def neuron(conn: Connection, era: Era, neuron_id: str) -> NeuronRow | None:
    """One neuron by id, live or retired."""
    row = conn.execute(text(_neuron_select(era) + " WHERE id = :id"), {"id": neuron_id}).first()
    return _neuron(row) if row else None


def neurons_by_ids(conn: Connection, era: Era, ids: list[str]) -> dict[str, NeuronRow]:
    """Several neurons by id (chunked to stay under SQLite's variable limit)."""
    found: dict[str, NeuronRow] = {}
    unique = list(dict.fromkeys(ids))
    raw = conn.connection.driver_connection  # many ids: skip SQLAlchemy's bind rewriting
    head = _neuron_select(era)
    for start in range(0, len(unique), 500):
        chunk = unique[start : start + 500]
        sql = f"{head} WHERE id IN ({','.join('?' * len(chunk))})"
        for row in raw.execute(sql, chunk):  # type: ignore[union-attr]
            found[row[0]] = _neuron(row)
    return found


def _threshold(conn: Connection, limit: int) -> int:
    """Matching rows above which a filter is "common": ``√(limit × rows)``.

    Read through its index, a filter costs about the rows it matches (then a sort);
    applied while walking the primary key, about ``limit × rows / matching``.  The two
    meet at ``√(limit × rows)``, so neither path costs more than twice that.  ``rows``
    is ``MAX(rowid)`` — one b-tree descent, and close enough.
    """
    top = conn.execute(text("SELECT COALESCE(MAX(rowid), 0) FROM neuron")).scalar_one()
    return max(limit, math.isqrt(max(1, limit) * int(top)))


def _matching(conn: Connection, column: str, value: object, cap: int) -> int:
    """Rows with ``column = value``, counted up to ``cap`` on the column's index."""
    sql = f"SELECT COUNT(*) FROM (SELECT 1 FROM neuron WHERE {column} = :v LIMIT :cap)"
    return int(conn.execute(text(sql), {"v": value, "cap": cap}).scalar_one())


def page_neurons(
    conn: Connection,
    era: Era,
    *,
    after: str | None = None,
    limit: int = 100,
    domain: str | None = None,
    type_: str | None = None,
    live_only: bool = True,
) -> list[NeuronRow]:
    """A keyset page ordered by id (``after`` is the last id of the previous page).

    Unfiltered, it reads ``limit`` rows whatever the brain's size (the live test never
    drives the plan); a filter's index is used only when the filter is selective (see
    :func:`_threshold`), so a filtered page reads O(√(limit × rows)) rows at worst.
    """
    where = [era.live("neuron", use_index=False)] if live_only else []
    params: dict[str, object] = {"limit": limit}
    if after is not None:
        where.append("id > :after")
        params["after"] = after
    filters = {c: v for c, v in (("domain", domain), ("type", type_)) if v is not None}
    cap = _threshold(conn, limit) if filters else 0
    sizes = {c: _matching(conn, c, v, cap) for c, v in filters.items()}
    driver = min(sizes, key=sizes.__getitem__, default=None)
    if driver is not None and sizes[driver] >= cap:
        driver = None
    for column, value in filters.items():
        where.append(f"{'' if column == driver else '+'}{column} = :{column}")
        params[column] = value
    cond = " WHERE " + " AND ".join(where) if where else ""
    sql = _neuron_select(era) + cond + " ORDER BY id LIMIT :limit"
    return [_neuron(r) for r in conn.execute(text(sql), params)]


def live_domains(conn: Connection, era: Era, domains: Iterable[str]) -> set[str]:
    """Which of ``domains`` hold at least one live neuron, in one query.

    Each domain is one probe of the ``domain`` index that stops at its first live row,
    so the cost is O(domains asked) — a count would read every row of the domain.
    """
    wanted = sorted(set(domains))
    found: set[str] = set()
    live = era.live("neuron", use_index=False)
    for start in range(0, len(wanted), 500):
        chunk = wanted[start : start + 500]
        rows = ",".join(f"(:d{i})" for i in range(len(chunk)))
        sql = (
            f"SELECT column1 FROM (VALUES {rows}) WHERE EXISTS "
            f"(SELECT 1 FROM neuron WHERE domain = column1 AND {live})"
        )
        params = {f"d{i}": v for i, v in enumerate(chunk)}
        found.update(str(d) for (d,) in conn.execute(text(sql), params))
    return found


SynapseKey = tuple[str, str, str]


def live_synapse_keys(conn: Connection, era: Era, keys: Iterable[SynapseKey]) -> set[SynapseKey]:
    """Which ``(pre, post, type)`` keys name a live synapse row: one primary-key probe
    per key, 300 keys per query (a ``VALUES`` list joined to the table)."""
    wanted = sorted(set(keys))
    found: set[SynapseKey] = set()
    live = era.live_synapse("s")
    for start in range(0, len(wanted), 300):
        chunk = wanted[start : start + 300]
        rows = ",".join(f"(:a{i}, :b{i}, :t{i})" for i in range(len(chunk)))
        params: dict[str, object] = {}
        for i, (pre, post, typ) in enumerate(chunk):
            params |= {f"a{i}": pre, f"b{i}": post, f"t{i}": typ}
        sql = (
            f"SELECT s.pre, s.post, s.type FROM (VALUES {rows}) AS k CROSS JOIN synapse s "
            "ON s.pre = k.column1 AND s.post = k.column2 AND s.type = k.column3 "
            f"WHERE {live}"
        )
        found.update((str(a), str(b), str(t)) for a, b, t in conn.execute(text(sql), params))
    return found


def synapses_of(
    conn: Connection, era: Era, neuron_id: str, *, live_only: bool = True
) -> list[SynapseRow]:
    """Every synapse row touching a neuron (both directions)."""
    retired = "retired_at" if "retired_at" in era.synapse_cols else "NULL"
    co = "co_fires" if "co_fires" in era.synapse_cols else "0"
    last = "last_co_fire" if "last_co_fire" in era.synapse_cols else "NULL"
    live = f" AND {era.live_synapse('synapse')}" if live_only else ""
    sql = (
        f"SELECT pre, post, type, weight, {co}, {last}, {retired} FROM synapse "
        f"WHERE pre = :id{live} UNION ALL "
        f"SELECT pre, post, type, weight, {co}, {last}, {retired} FROM synapse "
        f"WHERE post = :id AND pre != :id{live}"
    )
    return [SynapseRow(*r) for r in conn.execute(text(sql), {"id": neuron_id})]


def spikes_of(conn: Connection, neuron_id: str, *, limit: int | None = None) -> list[SpikeRow]:
    """A neuron's spikes, oldest first (``limit`` keeps the most recent N)."""
    if limit is None:
        sql = (
            "SELECT id, neuron_id, grade, fired_at, session_id, notes FROM spike "
            "WHERE neuron_id = :id ORDER BY fired_at, id"
        )
        return [SpikeRow(*r) for r in conn.execute(text(sql), {"id": neuron_id})]
    sql = (
        "SELECT id, neuron_id, grade, fired_at, session_id, notes FROM spike "
        "WHERE neuron_id = :id ORDER BY fired_at DESC, id DESC LIMIT :n"
    )
    rows = [SpikeRow(*r) for r in conn.execute(text(sql), {"id": neuron_id, "n": limit})]
    return rows[::-1]


@dataclass(frozen=True)
class Counts:
    """A brain's vital signs."""

    live: int
    retired: int
    synapses: int
    synapses_retired: int
    domains: dict[str, int]
    types: dict[str, int]
    spikes: int


def _grouped(
    conn: Connection, column: str, where: str = "", *, plus: bool = False
) -> dict[str, int]:
    sql = f"SELECT {column}, COUNT(*) FROM neuron {where} GROUP BY {'+' if plus else ''}{column}"
    return {(k if k is not None else ""): int(n) for k, n in conn.execute(text(sql))}


def counts(conn: Connection, era: Era) -> Counts:
    """Aggregates over the whole brain, by SQL, shaped to use Spikuit's indexes.

    Totals per domain/type come from the covering ``domain``/``type`` indexes; the
    (few) retired rows are found through the ``retired_at`` index and subtracted, so
    a million-neuron brain never needs a row-by-row table scan.
    """
    total = int(conn.execute(text("SELECT COUNT(*) FROM neuron")).scalar_one())
    syn_total = int(conn.execute(text("SELECT COUNT(*) FROM synapse")).scalar_one())
    domains = _grouped(conn, "domain")
    types = _grouped(conn, "type")
    retired = syn_retired = 0
    if era.has_retire:
        retired = int(
            conn.execute(
                text("SELECT COUNT(*) FROM neuron WHERE retired_at IS NOT NULL")
            ).scalar_one()
        )
        if retired:
            # unlikely() + the unary plus make SQLite walk idx_neuron_retired_at (the
            # few retired rows) instead of the whole domain/type index.
            dead = "WHERE unlikely(retired_at IS NOT NULL)"
            for bucket, column in ((domains, "domain"), (types, "type")):
                for key, n in _grouped(conn, column, dead, plus=True).items():
                    bucket[key] -= n
                    if bucket[key] <= 0:
                        del bucket[key]
    if "retired_at" in era.synapse_cols:
        syn_retired = int(
            conn.execute(
                text("SELECT COUNT(*) FROM synapse WHERE retired_at IS NOT NULL")
            ).scalar_one()
        )
    spikes = int(conn.execute(text("SELECT COUNT(*) FROM spike")).scalar_one())
    return Counts(
        total - retired, retired, syn_total - syn_retired, syn_retired, domains, types, spikes
    )


def table_exists(conn: Connection, name: str) -> bool:
    """Whether a table exists now (brainview tables may appear after open)."""
    row = conn.execute(
        text("SELECT 1 FROM sqlite_master WHERE type='table' AND name=:n"), {"n": name}
    ).first()
    return row is not None
