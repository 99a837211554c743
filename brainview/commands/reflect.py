"""``brainview reflect list|inspect``: the agent brain's reflections, read-only.

``list`` pages by id (``--after`` the last id shown); ``inspect`` shows one reflection
with its card, recent spikes, synapses, ``[user:…]`` references resolved against the
user brain, every grade it received from a decision (undone ones too, marked), the
proposals that consulted or retrieved it, and its lifecycle history.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from brainview.commands.common import cell, emit_json, emit_lines, fmt_float, now, open_project
from brainview.errors import UsageError

if TYPE_CHECKING:
    import argparse

MAX_LIMIT = 1_000
HISTORY_LINES = 20
"""Grades from decisions listed by plain ``inspect`` (``--json`` has more)."""


def list_(args: argparse.Namespace) -> int:
    """A keyset page of reflections with skill, status, stability and R now."""
    from brainview.services.readout.reflections import page_reflections

    if not 1 <= args.limit <= MAX_LIMIT:
        raise UsageError(f"--limit must be between 1 and {MAX_LIMIT}")
    if getattr(args, "suspicious", False):
        from brainview.commands.reflect_signals import list_suspicious

        return list_suspicious(args)
    if getattr(args, "sort", "id") == "influence":
        from brainview.commands.reflect_signals import list_by_influence

        return list_by_influence(args)
    clock = now()
    with open_project(args) as project:
        rows, total, after = page_reflections(
            project,
            clock,
            skill=args.skill,
            status=args.status,
            type_=args.type or None,
            after=args.after,
            limit=args.limit,
        )
        _name(project, rows)
    if args.json:
        emit_json(
            {
                "reflections": rows,
                "count": len(rows),
                "total": total,
                "next_after": after,
                "now": clock.isoformat(),
            }
        )
        return 0
    out = [
        f"{cell(r['id'], 24):<24} {cell(r['skill'], 10):<10} {r['state'] or '':<11} "
        f"S={fmt_float(r['stability']):>7} R={_r(r['retrievability']):<4}  "
        f"{cell(r['display'], 70)}"
        for r in rows
    ]
    out.append(f"{len(rows)} of {total} {args.status} reflection(s)")
    if after:
        out.append(f"next page: --after {cell(after, 200)}")
    emit_lines(out)
    return 0


def _name(project: Any, rows: list[dict[str, Any]]) -> None:
    """Give each row ``display`` (its text with ``[user:…]`` named ``⟦title⟧``, as the
    console shows it) and ``titles`` (``{id: title}`` of the neurons it names); the
    stored ``content`` stays as it is."""
    from brainview.core.refs import name_refs, parse_refs
    from brainview.services.readout.named import ref_titles

    known = ref_titles(project, [str(r["content"] or "") for r in rows])
    for r in rows:
        text = str(r["content"] or "")
        r["display"] = name_refs(text, known) if parse_refs(text) else text
        r["titles"] = {n: known[n][0] for n in parse_refs(text) if n in known}


def _r(value: float | None) -> str:
    """R now for a table cell: ``new`` for a lesson never reviewed (no R yet)."""
    return "new" if value is None else fmt_float(value)


def inspect(args: argparse.Namespace) -> int:
    """Everything recorded about one reflection."""
    from brainview.commands.reflect_signals import signal_settings
    from brainview.services.readout.reflections import inspect as load

    if args.spikes < 0:
        raise UsageError("--spikes must be 0 or more")
    clock = now()
    settings = signal_settings(args)
    with open_project(args) as project:
        data = load(project, args.id, clock, spikes=args.spikes, signals=settings)
    if args.json:
        emit_json(data | {"now": clock.isoformat()})
        return 0
    emit_lines(render(data))
    return 0


def render(data: dict[str, Any]) -> list[str]:
    """Human-readable inspect output (every brain string cleaned)."""
    from brainview.commands.reflect_signals import influence_lines
    from brainview.core.safe_text import clean

    card = data["card"]
    out = [
        f"{cell(data['id'], 60)}  {cell(data['type'], 20)}  skill {cell(data['skill'], 30)}"
        f"  {data['state'] or data['status']}",
        f"  created {data['created_at']}"
        + (f" · retired {data['retired_at']}" if data["retired_at"] else ""),
    ]
    origin = data["origin"]
    if origin and origin["kind"] == "rejection":
        out.append(
            f"  written when {cell(origin['actor'], 30)} rejected "
            f"{cell(origin['proposal_id'], 30)} (decision {origin['decision_id']})"
        )
    elif origin and origin["kind"] == "outcome":
        out.append(
            f"  written when {cell(origin['actor'], 30)} reported the failed outcome "
            f"{cell(origin['proposal_id'], 30)} (decision {origin['decision_id']})"
        )
    imported = data.get("imported_from")
    if imported:
        where = f"{imported['tree'] or '.learnings'}/{imported['file']}:{imported['line']}"
        bits = [f"tier {imported['tier']}", f"skill {imported['skill']}"]
        bits += [f"{k} {imported[k]}" for k in ("status", "priority", "block_id") if imported[k]]
        if imported["repeats"]:
            bits.append(f"repeats {imported['repeats']}")
        out.append(f"  imported from {cell(where, 160)} ({cell(' · '.join(bits), 160)})")
    if card:
        out.append(
            f"  card ({card['source']}): S={fmt_float(card['stability'])} "
            f"D={fmt_float(card['difficulty'])} R now={_r(card['retrievability'])} "
            f"last review {card['last_review'] or '—'} · due {card['due'] or '—'}"
        )
    else:
        out.append("  card: never reviewed")
    out.append("  content:")
    out += ["    " + line for line in clean(data["content"])[:4000].split("\n")]
    for ref in data["refs"]:
        out.append(f"  [user:{cell(ref['neuron_id'], 40)}] {ref['status']}: {cell(ref['title'])}")
    out.append(f"  spikes: {data['spikes']} (most recent {len(data['recent_spikes'])} below)")
    for g in data["recent_spikes"][-10:]:
        why = (
            f"{g['stance']} · {_verdict(g)} of {cell(g['proposal_id'], 30)} "
            f"by {cell(g['decider'], 20)}"
            if g["via"] == "brainview"
            else "outside brainview"
        )
        out.append(f"    {g['fired_at']}  {g['grade_name']:<6} {why}")
    out += _grade_history(data)
    out.append(f"  synapses: {len(data['synapses'])}")
    out += [
        f"    {cell(s['pre'], 24)} -{s['type']}→ {cell(s['post'], 24)} w={s['weight']:.3f}"
        for s in data["synapses"][:20]
    ]
    if data["influenced"]:
        out.append(f"  consulted/retrieved by {len(data['influenced'])} proposal(s)")
        out += [
            f"    {cell(c['proposal_id'], 30)} {c['role']} {c['stance'] or ''} → {c['status']}"
            for c in data["influenced"][:20]
        ]
    out += influence_lines(data)
    for h in data["lifecycle_history"]:
        out.append(
            f"  {h['at']}  {cell(h['state'], 20)} by {cell(h['actor'], 20)}: "
            f"{cell(h['reason'])}" + (" (undone)" if h.get("undone_at") else "")
        )
    return out


def _grade_history(data: dict[str, Any]) -> list[str]:
    """Grades from decisions: how many are live and undone, the latest with their fate."""
    history = data["grade_history"]
    undone = data["grade_history_total"] - len(data["grades"])
    out = [f"  grades from decisions: {len(data['grades'])} live · {undone} undone"]
    for g in history[-HISTORY_LINES:] if undone else []:
        fate = (
            f"undone by {cell(g['undone_by'], 20)} at {cell(g['undone_at'], 32)}"
            if g["fate"] == "undone"
            else "live"
        )
        out.append(
            f"    {cell(g['fired_at'], 32)}  {g['grade_name']:<6} {cell(_verdict(g), 8)} of "
            f"{cell(g['proposal_id'], 30)} by {cell(g['decider'], 20)} · {fate}"
        )
    return out


def _verdict(grade: dict[str, Any]) -> str | None:
    """The verdict behind a grade, ``success``/``failure`` for a tutor / QABot outcome."""
    from brainview.core.outcomes import result_word

    return result_word(grade.get("proposal_kind"), grade.get("verdict"))
