"""``brainview reflect list --sort influence`` and ``--suspicious``, and the influence
lines of ``reflect inspect``: lessons by what they made happen, and by suspicion."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from brainview.commands.common import cell, emit_json, emit_lines, load_config, now, open_project

if TYPE_CHECKING:
    import argparse

    from brainview.core.signals import Settings


def signal_settings(args: argparse.Namespace) -> Settings:
    """The ``[signals]`` thresholds of the project's config."""
    from brainview.services.influence import settings_of

    return settings_of(load_config(args).signals)


def list_by_influence(args: argparse.Namespace) -> int:
    """A page of reflections by influence, highest first (keyset ``score:id``)."""
    from brainview.services.influence import page_by_influence
    from brainview.services.readout.reflections import rows_for_ids

    clock = now()
    status = "all" if args.status == "all" else args.status
    with open_project(args) as project:
        ids, infl, after = page_by_influence(
            project, skill=args.skill, status=status, after=args.after, limit=args.limit
        )
        rows = rows_for_ids(project, ids, clock)
    for r in rows:
        r["influence"] = infl[r["id"]].to_json()
    if args.json:
        emit_json(
            {"reflections": rows, "count": len(rows), "sort": "influence",
             "next_after": after, "now": clock.isoformat()}
        )  # fmt: skip
        return 0
    out = [
        f"{cell(r['id'], 24):<24} {cell(r['skill'], 10):<10} "
        f"influence {r['influence']['score']:>4} (supp {r['influence']['suppressed']}, "
        f"swayed {r['influence']['swayed']}, by {r['influence']['identities']} id)  "
        f"{cell(r['content'], 60)}"
        for r in rows
    ]
    out.append(f"{len(rows)} reflection(s) by influence")
    if after:
        out.append(f"next page: --sort influence --after {cell(after, 200)}")
    emit_lines(out)
    return 0


def list_suspicious(args: argparse.Namespace) -> int:
    """Lessons with a suspicion signal, by influence × suspicion, each reason given."""
    from brainview.services.influence.suspects import suspects

    settings = signal_settings(args)
    clock = now()
    with open_project(args) as project:
        found = suspects(project, settings)
    if args.skill is not None:
        found = [x for x in found if x.skill == args.skill]
    shown = found[: args.limit]
    if args.json:
        emit_json(
            {"suspicious": [x.to_json() for x in shown], "count": len(shown),
             "total": len(found), "now": clock.isoformat()}
        )  # fmt: skip
        return 0
    out = []
    for x in shown:
        out.append(
            f"{cell(x.id, 24):<24} rank {x.rank:6.1f}  influence {x.influence.score:>4}  "
            f"{cell(x.preview, 60)}"
        )
        out += [f"    ⚑ {cell(s.reason, 160)}" for s in x.signals]
    out.append(f"{len(shown)} of {len(found)} suspicious lesson(s)")
    emit_lines(out)
    return 0


def influence_lines(data: dict[str, Any]) -> list[str]:
    """``reflect inspect``'s influence and signal lines."""
    from brainview.core.influence import Influence, summary

    raw = data.get("influence")
    if not isinstance(raw, dict):
        return []
    fields = {k: v for k, v in raw.items() if k in Influence.__dataclass_fields__}
    out = [f"  {summary(Influence(**fields))}"]
    out += [f"  ⚑ {cell(s['reason'], 200)}" for s in data.get("signals", [])]
    return out
