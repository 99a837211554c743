"""``brainview held-back report|list|decide|undo``: drafts a curator held back after
recall, headless.

``report`` takes one JSON object (FILE or ``-``, read with the same guards as
``propose``) and records it append-only through the session; ``list`` shows the triage
lane (``--all``: every reported draft, decided or not, each saying whether and why the
lane shows it); ``decide`` says ``should-have-proposed`` (the draft is queued, the
opposing lessons graded miss) or ``rightly-held-back`` (graded strong); ``undo`` reverts
the standing verdict exactly.  Exit 4 for a bad field (named first), 3 for an unknown
id, 5 for a conflict (reported with other content, already decided, changed since).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from brainview.commands.common import cell, emit_json, emit_lines, session_of
from brainview.errors import InvalidInputError

if TYPE_CHECKING:
    import argparse

    from brainview.services.held_back import HeldBackItem


def report(args: argparse.Namespace) -> int:
    """Record one held-back draft (or find it already reported)."""
    from brainview.commands.propose import parse, read_input

    value, lines = parse(read_input(args.file))
    if lines is not None or not isinstance(value, dict):
        raise InvalidInputError("held_back: FILE must hold one JSON object")
    with session_of(args) as session:
        data = session.report_held_back(value, source="cli", runtime=args.runtime)
    if args.json:
        emit_json(data)
        return 0
    head = "already reported" if data["already_reported"] else "reported"
    against = ", ".join(
        cell(x["reflection"], 24) for x in data["lessons"] if x["stance"] == "oppose"
    )
    emit_lines(
        [
            f"{head}: {cell(data['id'], 40)} ({data['kind']}, {data['action']}) by "
            f"{cell(data['runtime'], 30)}; opposed by {against}"
        ]
    )
    return 0


def list_(args: argparse.Namespace) -> int:
    """The held-back lane (``--all``: every reported draft)."""
    with session_of(args) as session:
        items = session.held_back_lane(everything=args.all, limit=args.limit)
    if args.json:
        emit_json({"count": len(items), "items": [i.to_json() for i in items]})
        return 0
    if not items:
        emit_lines(["no held-back draft to look at" if not args.all else "no held-back draft"])
        return 0
    out: list[str] = []
    for item in items:
        out.extend(_lines(item))
    emit_lines(out)
    return 0


def _lines(item: HeldBackItem) -> list[str]:
    state = (
        f"{item.verdict['verdict']} by {cell(item.verdict['decider'], 30)}"
        if item.verdict
        else "undecided"
    )
    why = cell(item.why, 90) if item.why else "not in the lane"
    out = [
        f"{cell(item.id, 40)}  {item.kind}  {item.action}  {state}  {cell(item.summary, 70)}",
        f"  why: {why}",
    ]
    for lesson in item.lessons:
        out.append(
            f"  {lesson.stance:<8} {cell(lesson.id, 24)} {lesson.state}, "
            f"{len(lesson.deciders)} confirmation(s): {cell(lesson.content, 70)}"
        )
    return out


def decide(args: argparse.Namespace) -> int:
    """Say whether a held-back draft should have been proposed."""
    with session_of(args) as session:
        data = session.decide_held_back(args.id, args.verdict, args.reason)
    if args.json:
        emit_json(data)
        return 0
    fired = ", ".join(f"{cell(g['reflection'], 24)} {_grade(g['grade'])}" for g in data["grades"])
    queued = f"; queued as {cell(data['proposal_id'], 44)}" if data["proposal_id"] else ""
    emit_lines(
        [
            f"{data['verdict'].replace('_', ' ')}: {cell(data['held_back_id'], 40)} "
            f"(decision {data['decision_id']}){queued}; graded {fired or 'nothing'}"
        ]
    )
    return 0


def _grade(grade: int) -> str:
    from brainview.core.grading import GRADE_NAMES

    return GRADE_NAMES.get(grade, str(grade))


def undo(args: argparse.Namespace) -> int:
    """Undo the standing verdict on a held-back draft exactly."""
    with session_of(args) as session:
        data = session.undo_held_back(args.id)
    if args.json:
        emit_json(data)
        return 0
    queued = f"; {cell(data['proposal_id'], 44)} left the queue" if data["proposal_id"] else ""
    emit_lines(
        [
            f"undone {data['verdict'].replace('_', ' ')} on {cell(data['held_back_id'], 40)} "
            f"(decision {data['decision_id']}): {data['rows_restored']} agent-brain row "
            f"change(s) reverted{queued}"
        ]
    )
    return 0
