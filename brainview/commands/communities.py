"""``brainview communities list|show``: clusters of similar reflections.

The partition is the cached one when it still matches the reflection graph, else
community detection runs now (:func:`brainview.services.communities.ensure_partition`)
and the result is cached for the next run outside the brains
(:mod:`brainview.services.communities.cache`): reading never writes a brain.
Everything that depends on time (R now) or on decisions (strong / miss grades) is
computed at the call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from brainview.commands.common import (
    cell,
    emit_json,
    emit_lines,
    fmt_float,
    load_config,
    now,
    open_project,
)
from brainview.core.community_label import (
    UNCLUSTERED,
    community_name,
    partition_number,
    shown_number,
)
from brainview.errors import NotFoundError, UsageError

if TYPE_CHECKING:
    import argparse


def _load(project: Any, clock: Any) -> Any:
    from brainview.services import communities

    part, fresh = communities.load_partition(project)
    if part is None or not fresh:
        part, fresh = communities.ensure_partition(project, now=clock), True
    return communities.load_data(project, part, fresh, clock)


def community_dicts(project: Any, clock: Any, *, threshold: float, sort: str, limit: int):  # noqa: ANN201
    """Community rows as JSON values, the total, and the partition's facts."""
    from brainview.services import communities

    data = _load(project, clock)
    rows, total = communities.community_rows(
        project, data, threshold=threshold, sort=sort, limit=limit
    )
    out = [
        {
            "community": shown_number(r.number),
            "label": r.label,
            "size": r.size,
            "skills": r.skills,
            "mean_retrievability": r.mean_r,
            "reviewed": r.reviewed,
            "below_threshold": r.below,
            "strong": r.strong,
            "miss": r.miss,
            "policies": list(r.policies),
            "spikuit_community": None if r.spikuit is None else r.spikuit[0],
        }
        for r in rows
    ]
    facts = {
        "algorithm": data.partition.algorithm,
        "modularity": data.partition.modularity,
        "computed_at": data.partition.computed_at,
        "fresh": data.fresh,
    }
    return out, total, facts


def _listed(shown: int | None) -> str:
    """``#3`` as the console numbers it; the isolated reflections by name, never ``#-1``."""
    return UNCLUSTERED if shown is None else f"#{shown}"


def _threshold(args: argparse.Namespace) -> float:
    return float(load_config(args).reflections.pruning_threshold)


def list_(args: argparse.Namespace) -> int:
    """Communities, biggest first (or most fading, most missed)."""
    if not 1 <= args.limit <= 10_000:
        raise UsageError("--limit must be between 1 and 10000")
    threshold, clock = _threshold(args), now()
    with open_project(args) as project:
        rows, total, facts = community_dicts(
            project, clock, threshold=threshold, sort=args.sort, limit=args.limit
        )
    if args.json:
        emit_json({"communities": rows, "count": len(rows), "total": total, **facts})
        return 0
    out = [
        f"{_listed(r['community']):<11} {r['size']:>5} members  "
        f"mean R={fmt_float(r['mean_retrievability'])} "
        f"strong {r['strong']:>3} miss {r['miss']:>3}  "
        f"{', '.join(f'{cell(k, 12)} {v}' for k, v in r['skills'].items())}  "
        f"{cell(r['label'], 50)}"
        for r in rows
    ]
    out.append(f"{len(rows)} of {total} communities ({facts['algorithm']})")
    emit_lines(out)
    return 0


def show(args: argparse.Namespace) -> int:
    """One community's members, weakest first."""
    from brainview.services import communities

    number = partition_number(str(args.number))
    if number is None:
        raise UsageError(f"N must be a community number from 1 or '{UNCLUSTERED}'")
    clock = now()
    with open_project(args) as project:
        data = _load(project, clock)
        members, total = communities.member_rows(project, data, number, limit=args.limit)
    if total == 0:
        raise NotFoundError(f"no {community_name(number)} (or it has no live members)")
    rows = [
        {
            "id": m.id,
            "title": m.title,
            "skill": m.skill,
            "retrievability": m.r_now,
            "stability": m.stability,
            "strong": m.strong,
            "miss": m.miss,
            "spikuit_community": m.spikuit,
        }
        for m in members
    ]
    if args.json:
        emit_json(
            {"community": shown_number(number), "members": rows, "count": len(rows), "total": total}
        )
        return 0
    out = [
        f"{cell(m.id, 24):<24} {cell(m.skill, 10):<10} R={fmt_float(m.r_now)} "
        f"S={fmt_float(m.stability):>7} +{m.strong} -{m.miss}  {cell(m.title, 60)}"
        for m in members
    ]
    out.append(f"{len(rows)} of {total} member(s) of {community_name(number)}")
    emit_lines(out)
    return 0
