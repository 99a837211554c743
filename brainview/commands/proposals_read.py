"""``brainview proposals list|show``: the queue and one proposal, read-only.

``list`` pages through proposals filtered by status, kind, skill and time (keyset
cursor in ``next_after``); ``show`` gives one proposal with both brains' context (the
preview, the user neurons it names, the reflections it consulted with their R now) and
its decision history.  Shapes: ``docs/cli.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from brainview.commands.common import (
    cell,
    emit_json,
    emit_lines,
    fmt_float,
    now,
    open_project,
    parse_when,
)
from brainview.core.refs import titled_ids
from brainview.errors import NotFoundError, UsageError

if TYPE_CHECKING:
    import argparse
    from datetime import datetime

DECIDED = ("accepted", "rejected", "decided")


def list_(args: argparse.Namespace) -> int:
    """A filtered page of proposals."""
    from brainview.services.readout import MAX_LIMIT, ProposalQuery, list_proposals

    if not 1 <= args.limit <= MAX_LIMIT:
        raise UsageError(f"--limit must be between 1 and {MAX_LIMIT}")
    clock = now()
    until = parse_when(args.until, flag="--until", clock=clock) if args.until else None
    if getattr(args, "stale", False):
        until = _stale_cutoff(args, clock)
    query = ProposalQuery(
        status=args.status,
        kinds=tuple(args.kind or ()),
        skills=tuple(args.skill or ()),
        since=parse_when(args.since, flag="--since", clock=clock) if args.since else None,
        until=until,
        on=args.on or ("decided" if args.status in DECIDED else "created"),
        after=args.after,
        limit=args.limit,
    )
    from brainview.services.review.approvals import open_for

    with open_project(args) as project:
        rows, total, cursor = list_proposals(project, query)
        waiting = open_for(project, [r["id"] for r in rows if r["status"] == "pending"])
    for r in rows:
        found = waiting.get(r["id"])
        r["approval"] = found.to_json() if found is not None else None
    if args.json:
        emit_json({"proposals": rows, "count": len(rows), "total": total, "next_after": cursor})
        return 0
    out = []
    for r in rows:
        d = r["decision"]
        state = r["status"] if d is None else f"{r['status']} by {cell(d['decider'], 20)}"
        when = d["decided_at"] if d else r["created_at"]
        flag = " [stale]" if r.get("stale") else ""
        if r["approval"]:
            flag += f" [{cell(r['approval']['waiting'], 80)}]"
        out.append(
            f"{cell(r['id'], 30):<30} {state:<24} {r['kind']:<18} {cell(r['skill'], 10):<10} "
            f"{when[:16]}  {cell(r['summary'])}{flag}"
        )
    out.append(f"{len(rows)} of {total} {args.status} proposal(s)")
    if cursor:
        out.append(f"next page: --after {cell(cursor, 200)}")
    emit_lines(out)
    return 0


def _stale_cutoff(args: argparse.Namespace, clock: datetime) -> str:
    """``--stale``: pending proposals created before now − ``queue.stale_after_days``."""
    from brainview.commands.common import load_config
    from brainview.core.queue_health import stale_cutoff
    from brainview.core.timestamps import format_ts

    if args.status != "pending":
        raise UsageError("--stale lists pending proposals: leave --status out")
    if args.until or args.on == "decided":
        raise UsageError("--stale sets the time filter itself: leave --until and --on out")
    days = load_config(args).queue.stale_after_days
    return format_ts(stale_cutoff(clock, days).replace(microsecond=0))


def show(args: argparse.Namespace) -> int:
    """One proposal with both brains' context and its decision history."""
    from brainview.services.readout import decisions_of
    from brainview.services.review import detail

    clock = now()
    with open_project(args) as project:
        try:
            d = detail.load(project, args.id, clock)
        except NotFoundError:
            raise NotFoundError(_not_found(project, args.id)) from None
        from brainview.services.readout.named import ref_titles

        project_titles = ref_titles(project, [d.summary, d.rationale])
        with project.require_agent().read() as conn:
            history = decisions_of(conn, args.id)
        from brainview.services.review.approvals import open_for

        waiting = open_for(project, [args.id]).get(args.id)
    refl = [
        {
            "reflection": v.id,
            "stance": v.stance,
            "note": v.note,
            "skill": v.skill,
            "live": v.live,
            "stability": v.stability,
            "retrievability": v.retrievability,
            "recent_grades": v.recent_grades,
            "content": v.content,
            "display": v.display or v.content,
        }
        for v in d.consulted + d.retrieved
    ]
    titles = _titles(project_titles, d)
    data: dict[str, Any] = {
        "id": d.id,
        "kind": d.kind,
        "skill": d.skill,
        "status": d.status,
        "summary": d.summary,
        "summary_display": titled_ids(d.summary, titles),
        "rationale": d.rationale,
        "rationale_display": d.rationale_display or d.rationale,
        "titles": titles,
        "created_at": d.created_at,
        "runtime": d.runtime,
        "params": None if d.params_size is not None else d.params,
        "stale": d.stale,
        "neurons": [
            {"id": n.id, "type": n.type, "domain": n.domain, "live": n.live, "content": n.content}
            for n in d.neurons.values()
        ],
        "preview": [
            {"what": w, "what_display": titled_ids(w, titles), "before": b, "after": a}
            for w, b, a in d.preview
        ],
        "consulted": refl[: len(d.consulted)],
        "retrieved": [
            {k: v for k, v in r.items() if k not in ("stance", "note")}
            for r in refl[len(d.consulted) :]
        ],
        "decisions": history,
        "approval": waiting.to_json() if waiting is not None else None,
    }
    if d.agent_item is not None:
        data["agent_item"] = _agent_item(d)
    if args.json:
        emit_json(data)
        return 0
    emit_lines(_render_show(data))
    return 0


def _titles(found: dict[str, tuple[str, bool]], d: Any) -> dict[str, str]:
    """User neuron id → title for every neuron the proposal names, its plan touches or
    its text refers to (what the console shows in place of the ids)."""
    from brainview.core.safe_text import first_line

    out = {nid: title for nid, (title, _live) in found.items()}
    for nid, n in d.neurons.items():
        out.setdefault(nid, first_line(n.content, 40) or nid)
    if d.plan is not None:
        for change in d.plan.changes:
            if change.table == "neuron" and change.key:
                image = change.before or change.after or {}
                title = first_line(str(image.get("content") or ""), 40)
                if title:
                    out.setdefault(str(change.key[0]), title)
    return out


def _not_found(project: Any, ident: str) -> str:
    """ "no proposal X", pointing at the proposal when X is a policy one would create."""
    from brainview.services.outcome import is_outcome
    from brainview.services.readout import policy_proposer

    message = f"no proposal {cell(ident, 80)}"
    if project.agent is None:
        return message
    if is_outcome(project, [ident]):
        return f"{message}: it is a tutor/QABot outcome (brainview outcome show {cell(ident, 80)})"
    proposer = policy_proposer(project, ident)
    if proposer is not None:
        message += f"; it is the policy proposed by {cell(proposer, 80)} (proposals show {cell(proposer, 80)})"  # noqa: E501
    return message


def _agent_item(d: Any) -> dict[str, Any]:
    """The consolidation side of an agent-brain item (plan, policy review aids)."""
    item = d.agent_item
    diff = item.diff
    return {
        "consolidation": item.consolidation,
        "change_log": item.change_log,
        "policy_text": d.params.get("text"),
        "draft": item.draft,
        "counter_examples": [
            {"reflection": c.reflection_id, "title": c.title, "why": c.why}
            for c in item.counter_examples
        ],
        "previous_policy": None
        if item.previous_id is None
        else {
            "id": item.previous_id,
            "text": item.previous_text,
            "diff": diff.text_lines if diff else [],
            "members_added": diff.added if diff else [],
            "members_removed": diff.removed if diff else [],
            "members_kept": diff.kept if diff else 0,
        },
    }


def _render_agent(item: dict[str, Any]) -> list[str]:
    out = []
    if item["consolidation"]:
        out.append(f"  from consolidation {cell(item['consolidation'], 60)}")
    if item["policy_text"]:
        out.append("  policy text:")
        out += [f"    {cell(line, 200)}" for line in str(item["policy_text"]).splitlines()]
    for c in item["counter_examples"]:
        out.append(f"  counter-example {cell(c['reflection'], 30)}: {cell(c['why'], 60)}")
        out.append(f"    {cell(c['title'], 100)}")
    prev = item["previous_policy"]
    if prev:
        out.append(
            f"  replaces {cell(prev['id'], 30)}: {prev['members_kept']} member(s) kept, "
            f"+{len(prev['members_added'])} −{len(prev['members_removed'])}"
        )
        out += [f"    {cell(line, 200)}" for line in prev["diff"]]
    return out


def _render_show(data: dict[str, Any]) -> list[str]:
    import json

    out = [
        f"{cell(data['id'], 60)}  {data['kind']}  {data['status']}"
        + (f"  STALE: {cell(data['stale'])}" if data["stale"] else ""),
        f"  skill {cell(data['skill'], 30)} · created {data['created_at']}",
        f"  summary: {cell(data['summary_display'], 200)}",
        f"  params: {cell(json.dumps(data['params'], ensure_ascii=False), 300)}",
        f"  rationale: {cell(data['rationale_display'], 300) or '—'}",
    ]
    if data.get("approval"):
        out.append(f"  approval: {cell(data['approval']['waiting'], 120)}")
    out += [
        f"  {cell(p['what_display'], 60)}: {cell(p['before'], 40)} → {cell(p['after'], 40)}"
        for p in data["preview"]
    ]
    for role in ("consulted", "retrieved"):
        for r in data[role]:
            stance = r.get("stance") or "retrieved"
            out.append(
                f"  {role[:4]} {cell(r['reflection'], 30)} {stance:<9} "
                f"S={fmt_float(r['stability'])} "
                f"R={'new' if r['retrievability'] is None else fmt_float(r['retrievability'])} "
                f"{cell(r['display'], 60)}"
            )
    if "agent_item" in data:
        out += _render_agent(data["agent_item"])
    for dec in data["decisions"]:
        undone = f" (undone {dec['undone_at']})" if dec["undone_at"] else ""
        out.append(
            f"  decision {dec['decision_id']}: {dec['verdict']} by {cell(dec['decider'], 30)} "
            f"at {dec['decided_at']}{undone}"
        )
    return out
