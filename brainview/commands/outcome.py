"""``brainview outcome report|show|undo``: tutor and QABot outcomes, headless.

``report`` takes the outcome as flags or as one JSON object (FILE or ``-``), read with
the same guards as ``propose`` (size, UTF-8, depth), and records it through
:func:`brainview.services.outcome.report_outcome` in one agent-brain transaction.
Exit 0 also when the outcome was already recorded (``already_recorded``); exit 5 when
its id is taken by other content; exit 4 for a bad field or an unknown reflection.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from brainview.commands.common import (
    cell,
    emit_json,
    emit_lines,
    open_project,
    session_of,
)
from brainview.errors import InvalidInputError, UsageError

if TYPE_CHECKING:
    import argparse

FLAGS = ("id", "skill", "result", "situation", "consulted", "lesson", "runtime")


def _from_flags(args: argparse.Namespace) -> dict[str, Any]:
    raw: dict[str, Any] = {}
    for name in FLAGS:
        value = getattr(args, name)
        if value is not None:
            raw[name] = value
    raw["consulted"] = [_consulted(item) for item in args.consulted or []]
    return raw


def _consulted(item: str) -> dict[str, Any]:
    """``ID``, ``ID:STANCE`` or ``ID:STANCE:NOTE`` (the note may hold colons)."""
    rid, _, rest = item.partition(":")
    stance, _, note = rest.partition(":")
    out: dict[str, Any] = {"reflection": rid}
    if stance:
        out["stance"] = stance
    if note:
        out["note"] = note
    return out


def _raw(args: argparse.Namespace) -> dict[str, Any]:
    given = [f"--{n}" for n in FLAGS if getattr(args, n) is not None]
    if args.file is None:
        missing = [f"--{n}" for n in ("skill", "result", "situation") if getattr(args, n) is None]
        if missing:
            raise UsageError(
                f"brainview outcome report: give {', '.join(missing)} (or a JSON FILE)"
            )
        return _from_flags(args)
    if given:
        raise UsageError(f"brainview outcome report: FILE or flags, not both ({given[0]})")
    from brainview.commands.propose import parse, read_input

    value, lines = parse(read_input(args.file))
    if lines is not None or not isinstance(value, dict):
        raise InvalidInputError("outcome: FILE must hold one JSON object")
    return value


def report(args: argparse.Namespace) -> int:
    """Record one outcome (or find it already recorded)."""
    raw = _raw(args)
    from brainview.services import outcome

    parsed = outcome.parse_report(raw)  # shape errors need no brain: report them first
    with session_of(args) as session:
        result = session.report_outcome(parsed, decider=args.decider or parsed.skill, source="cli")
    data = result.to_json()
    if args.json:
        emit_json(data)
        return 0
    emit_lines(_lines(data))
    return 0


def show(args: argparse.Namespace) -> int:
    """A recorded outcome, as ``report`` answered it."""
    from brainview.services import outcome

    with open_project(args) as project:
        data = outcome.show_outcome(project, args.id).to_json()
    if args.json:
        emit_json(data)
        return 0
    emit_lines(_lines(data, shown=True))
    return 0


def undo(args: argparse.Namespace) -> int:
    """Undo a recorded outcome exactly."""
    with session_of(args) as session:
        actor = session.decider
        res = session.undo_outcome(args.id)
    data = {
        "id": res.proposal_id,
        "decision_id": res.decision_id,
        "rows_restored": res.rows_restored,
        "undone_at": res.undone_at,
        "undone_by": actor,
    }
    if args.json:
        emit_json(data)
        return 0
    emit_lines(
        [
            f"undone outcome {cell(res.proposal_id, 40)} (decision {res.decision_id}): "
            f"{res.rows_restored} agent-brain row change(s) reverted; the id is free again"
        ]
    )
    return 0


def _lines(d: dict[str, Any], *, shown: bool = False) -> list[str]:
    """``recorded: …`` (``already recorded`` when a retry found it; ``recorded at …``
    when ``outcome show`` reads it back, which is no retry)."""
    if shown:
        head = f"recorded at {d['decided_at']}"
    else:
        head = "already recorded" if d["already_recorded"] else "recorded"
    fired = ", ".join(f"{cell(g['reflection'], 24)} {g['grade_name']}" for g in d["grades"])
    out = [
        f"{head}: {d['skill']} {d['result']} {cell(d['id'], 40)} (decision {d['decision_id']} "
        f"by {cell(d['decider'], 30)}): {len(d['grades'])} grade(s){': ' + fired if fired else ''}"
    ]
    if d["skipped"]:
        out.append(
            "  not graded: "
            + ", ".join(f"{cell(s['reflection'], 24)} ({cell(s['why'], 30)})" for s in d["skipped"])
        )
    if d["lesson_id"]:
        out.append(f"  new lesson {d['lesson_id']}")
    elif d["result"] == "failure":
        out.append("  no lesson written (reflection writing is paused)")
    return out
