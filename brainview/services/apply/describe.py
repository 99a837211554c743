"""A plan as the preview lines the triage screen shows: ``(what, before, after)``.

One line per changed row (one per changed column for a neuron), straight from the
plan that the apply executes — so what is shown is what happens.  ``updated_at`` and
other bookkeeping columns are left out of the lines (they are in the plan).  A
streamed plan (a big domain) shows one line per domain it moves, with its counts: the
rows it writes are exactly those (every row of the domain, retired ones too).
"""

from __future__ import annotations

from brainview.services.apply.plan import Plan, RowChange
from brainview.store.apply_rows import VEC_MAP
from brainview.store.rows import Row

NEURON_COLUMNS = ("content", "type", "domain", "source")
ABSENT = "—"


def _synapse_state(row: Row | None) -> str:
    if row is None:
        return ABSENT
    if row.get("retired_at") is not None:
        return "retired"
    return f"{float(row.get('weight') or 0.0):.3f}"


def _neuron_lines(change: RowChange) -> list[tuple[str, str, str]]:
    nid = str(change.key[0])
    before, after = change.before or {}, change.after or {}
    lines = []
    was_live = change.before is not None and before.get("retired_at") is None
    is_live = change.after is not None and after.get("retired_at") is None
    if change.before is None:
        kind = str(after.get("type") or "neuron")
        lines.append((f"neuron {nid}", ABSENT, f"new {kind}"))
    elif was_live != is_live:
        lines.append(
            (f"neuron {nid}", "live" if was_live else "retired", "live" if is_live else "retired")
        )
    for col in NEURON_COLUMNS:
        old, new = before.get(col), after.get(col)
        if old != new:
            lines.append((f"neuron {nid} · {col}", str(old or ABSENT), str(new or ABSENT)))
    return lines


def line_of(change: RowChange) -> list[tuple[str, str, str]]:
    """The preview lines of one row change."""
    if change.table == "neuron":
        return _neuron_lines(change)
    if change.table == "synapse":
        pre, post, typ = (str(k) for k in change.key)
        after = _synapse_state(change.after)
        if change.before is None or change.before.get("retired_at") is not None:
            after += " (new)" if change.after is not None else ""
        return [(f"synapse {pre} -{typ}→ {post}", _synapse_state(change.before), after)]
    if change.table == "neuron_predecessor":
        child, parent = (str(k) for k in change.key)
        state = "recorded" if change.after is not None else ABSENT
        old = "recorded" if change.before is not None else ABSENT
        return [(f"lineage {parent} → {child}", old, state)]
    if change.table == "neuron_source":
        nid, source = (str(k) for k in change.key)
        state = "linked" if change.after is not None else ABSENT
        old = "linked" if change.before is not None else ABSENT
        return [(f"source {source} of {nid}", old, state)]
    if change.table == VEC_MAP:
        nid = str((change.before or change.after or {}).get("neuron_id"))
        if change.after is None:
            return [(f"vector of {nid}", "stored", "deleted (spkt embed-all re-embeds it)")]
        return [(f"vector of {nid}", ABSENT, "restored")]
    if change.table == "fsrs_state":
        old = "card" if change.before is not None else ABSENT
        return [(f"card of {change.key[0]}", old, "new card" if change.after else ABSENT)]
    return [(f"{change.table} {change.key}", "changed", "changed")]


def preview_lines(plan: Plan) -> list[tuple[str, str, str]]:
    """Every preview line of a plan, in the order the rows change."""
    if plan.stream is not None:
        return [
            (f"domain {m.old}", f"{m.rows:,} neurons ({m.live:,} live)", f"→ {m.new}")
            for m in plan.stream.moves
        ]
    return [line for change in plan.changes for line in line_of(change)]


def log_summary(plan: Plan) -> str:
    """What goes into Spikuit's change log, in one line."""
    if plan.empty:
        return "nothing to apply"
    if plan.stream is not None:
        n, size = plan.stream.rows, plan.stream.chunk_rows
        return (
            f"changeset {plan.changeset.tag} ({plan.changeset.actor_kind}): {n}× neuron.update "
            f"(summarised: {n:,} rows written in chunks of {size:,}, one transaction)"
        )
    ops: dict[str, int] = {}
    for e in plan.events:
        ops[e.op] = ops.get(e.op, 0) + 1
    detail = ", ".join(f"{n}× {op}" for op, n in ops.items())
    return f"changeset {plan.changeset.tag} ({plan.changeset.actor_kind}): {detail}" + (
        vector_note(plan) or ""
    )


def vector_note(plan: Plan) -> str | None:
    """What a plan does to Spikuit's vectors and what is left to do, in one sentence
    (``None``: it touches none)."""
    gone = [
        str((c.before or {}).get("neuron_id"))
        for c in plan.changes
        if c.table == VEC_MAP and c.after is None
    ]
    if not gone:
        return None
    live = {str(c.key[0]) for c in plan.changes if c.table == "neuron" and c.after
            and c.after.get("retired_at") is None}  # fmt: skip
    stale = [n for n in gone if n in live]
    text = f"; deletes the stored vector of {', '.join(gone)} as Spikuit does"
    if stale:
        text += (
            f" ({', '.join(stale)} changed text: until `spkt embed-all` re-embeds it, "
            "semantic search does not find it)"
        )
    return text + (
        "; the sqlite-vec rows themselves stay (Spikuit never reuses them: a nearest-neighbour "
        "search still counts them among its k, then drops them)"
    )
