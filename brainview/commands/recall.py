"""``brainview recall``: the lessons that matter for a draft, ranked, each with why.

The ranking is :mod:`brainview.services.recall`'s; this face reads the query (free text,
``--ref`` neurons, a ``--draft`` proposal), prints the hits with their score components
(lexical, spreading, retrievability), suggested stance and the policies over them, and
the recall id to pass to ``propose --recall``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from brainview.commands.common import cell, emit_json, emit_lines, fmt_float, now, open_project
from brainview.errors import InvalidInputError, UsageError

if TYPE_CHECKING:
    import argparse

MAX_LIMIT = 100


def recall(args: argparse.Namespace) -> int:
    """Rank, log (unless ``--no-log``) and print the hits."""
    from brainview.services.recall import recall as run
    from brainview.services.recall.result import RecallQuery

    if not 1 <= args.limit <= MAX_LIMIT:
        raise UsageError(f"--limit must be between 1 and {MAX_LIMIT}")
    draft: Any = None
    if args.draft is not None:
        from brainview.commands.propose import parse, read_input

        draft, _lines = parse(read_input(args.draft))
        if not isinstance(draft, dict):
            raise InvalidInputError("--draft: must be one JSON object (a draft proposal)")
    query = RecallQuery(
        text=args.text, refs=tuple(args.ref), proposal=draft, skill=args.skill, limit=args.limit
    )
    clock = now()
    with open_project(args) as project:
        result = run(project, query, now=clock, log=not args.no_log, runtime=args.runtime)
        data = result.to_json()
        found = _titles(project, data)
    if args.json:
        titles = {nid: title for nid, (title, _live) in found.items()}
        emit_json(data | {"titles": titles, "now": clock.isoformat()})
        return 0
    emit_lines(render(data, found))
    return 0


def _titles(project: Any, data: dict[str, Any]) -> dict[str, tuple[str, bool]]:
    """User neuron id → ``(title, live)`` for every neuron the hits cite (in their
    text or as ``refs_*``): what the table prints in place of the ids, as the console
    does."""
    from brainview.services.readout.named import neuron_titles, ref_titles

    hits = data["hits"]
    found = ref_titles(project, [str(h["text"]) for h in hits])
    cited = {n for h in hits for k in ("refs_direct", "refs_neighbour")
             for n in h["components"].get(k) or []}  # fmt: skip
    return found | neuron_titles(project, cited - set(found))


def render(data: dict[str, Any], known: dict[str, tuple[str, bool]] | None = None) -> list[str]:
    """Human lines: one block per hit, then the policies and the recall id (user
    neurons by title where ``known``: id → ``(title, live)``)."""
    from brainview.core.refs import name_refs

    known = known or {}

    def named(ids: list[str]) -> str:
        return ", ".join(f"⟦{known[n][0]}⟧" if n in known else n for n in ids)

    out: list[str] = [semantic_line(data.get("semantic") or {})]
    for hit in data["hits"]:
        c = hit["components"]
        mark = " ⚠ challenged" if hit["state"] == "challenged" else ""
        out.append(
            f"{hit['rank']:>2}. {cell(hit['reflection'], 24)}  score {hit['score']:.3f}  "
            f"{cell(hit['skill'], 10)}  suggest {hit['stance']}{mark}"
        )
        text = name_refs(str(hit["text"]), known) if known else str(hit["text"])
        out.append(f"    {cell(text, 110)}")
        why = [
            "found by " + (", ".join(hit.get("found_by") or []) or "retrievability only"),
            f"lexical {c['lexical']:.2f}",
            f"spread {c['spread']:.2f}",
        ]
        if c.get("cited"):
            why.append(f"cited {c['cited']:.2f}")
        if c.get("semantic"):
            why.append(f"semantic {c['semantic']:.2f}")
        why.append(f"R {fmt_float(c['retrievability'])}")
        if c["matched_words"]:
            why.append("words: " + cell(", ".join(c["matched_words"][:6]), 50))
        if c["refs_direct"]:
            why.append("cites: " + cell(named(c["refs_direct"][:3]), 80))
        if c["refs_neighbour"]:
            why.append("cites a neighbour: " + cell(named(c["refs_neighbour"][:3]), 80))
        if c["overturned_by"]:
            why.append("overturned by " + cell(", ".join(c["overturned_by"][:3]), 50))
        out.append("    " + " · ".join(why))
        out.append(f"    stance: {cell(hit['stance_reason'], 100)}")
    if not data["hits"]:
        out.append("no live lesson matches this draft")
    for policy in data["policies"]:
        out.append(
            f"policy {cell(policy['policy'], 24)} over {len(policy['members'])} hit(s): "
            f"{cell(policy['text'], 90)}"
        )
    rid = data["recall_id"]
    out.append(f"recall {cell(rid, 40)} (pass to propose --recall)" if rid else "not logged")
    return out


def semantic_line(status: dict[str, Any]) -> str:
    """One line: semantic recall on (which model, how many lessons) or why it is off."""
    if status.get("on"):
        line = (
            f"semantic: on ({cell(str(status.get('model', '')), 60)}, "
            f"{status.get('lessons', 0)} lessons"
        )
        if status.get("missing"):
            line += f", {status['missing']} not embedded yet"
        return line + ")"
    reason = cell(str(status.get("reason") or "no embedder configured"), 100)
    return f"semantic: off ({reason}); lexical, cited and spreading only"
