"""``brainview proposals accept|reject|dismiss|undo``: decisions, headless.

Decisions go through :mod:`brainview.services.review` exactly as the console's do:
several ids are decided in one transaction (all or none); an accept applies the change
to the user brain unless the project is record-only (:mod:`brainview.services.apply`);
``undo`` reverts a decision exactly — in both brains when it was applied — or refuses.
Reading the queue (``list``, ``show``) is :mod:`brainview.commands.proposals_read`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from brainview.commands.common import (
    cell,
    emit_json,
    emit_lines,
    session_of,
)
from brainview.errors import UsageError

if TYPE_CHECKING:
    import argparse

    from brainview.services.session import Verdict


def _policy_text(source: str | None) -> str | None:
    """The edited policy text from a file or stdin (UTF-8, at most 1 MB)."""
    if source is None:
        return None
    import sys
    from pathlib import Path

    from brainview.store.connect import refuse_brain_path

    if source != "-":
        refuse_brain_path(source, "--policy-text")
    try:
        raw = sys.stdin.buffer.read(1 << 20) if source == "-" else Path(source).read_bytes()
        return raw.decode("utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise UsageError(f"--policy-text: cannot read {source} ({err})") from None


def _vector_notes(session: Any, results: list[Any]) -> dict[str, str]:
    """What each applied decision left for ``spkt embed-all`` (merges, retires)."""
    from brainview.services.apply.vectors import vector_notes

    applied = [r.decision_id for r in results if r.apply_state == "applied"]
    if not applied:
        return {}
    with session.project() as project:
        return vector_notes(project, applied)


def _decide(args: argparse.Namespace, verdict: Verdict) -> int:
    from brainview.core.grading import GRADE_NAMES

    policy_text = _policy_text(getattr(args, "policy_text", None))
    with session_of(args) as session:
        decider = session.decider
        if verdict == "dismiss" and len(args.ids) == 1 and args.reason is None:
            results = [session.dismiss(args.ids[0])]
        else:
            results = session.decide(args.ids, verdict, reason=args.reason, policy_text=policy_text)
        vectors = _vector_notes(session, results)
    rows = [
        {
            "decision_id": r.decision_id,
            "proposal_id": r.proposal_id,
            "verdict": r.verdict,
            "decided_at": r.decided_at,
            "apply_state": r.apply_state,
            "grades": [
                {"reflection": rid, "stance": s, "grade": g, "grade_name": GRADE_NAMES[g]}
                for rid, s, g in r.grades
            ],
            "skipped": [{"reflection": rid, "why": why} for rid, why in r.skipped],
            "new_reflection_id": r.new_reflection_id,
            "weight_changes": len(r.weight_changes),
            "vectors": vectors.get(r.decision_id),
        }
        for r in results
    ]
    if args.json:
        emit_json({"verdict": verdict, "decider": decider, "decisions": rows})
        return 0
    past = {"accept": "accepted", "reject": "rejected", "dismiss": "dismissed"}[verdict]
    out = []
    for r in results:
        if r.apply_state == "held":
            out.append(
                f"{past} {cell(r.proposal_id, 40)} as the first of two (vote "
                f"{r.decision_id}): nothing applied; it needs a second person "
                "(proposals approvals)"
            )
            continue
        fired = ", ".join(f"{cell(rid, 24)} {GRADE_NAMES[g]}" for rid, _s, g in r.grades)
        new = f"; new reflection {r.new_reflection_id}" if r.new_reflection_id else ""
        out.append(
            f"{past} {cell(r.proposal_id, 40)} (decision {r.decision_id}, "
            f"{r.apply_state}): {len(r.grades)} grade(s){': ' + fired if fired else ''}{new}"
        )
        note = vectors.get(r.decision_id)
        if note:
            out.append(f"  vectors: {cell(note, 400)}")
    emit_lines(out)
    return 0


def accept(args: argparse.Namespace) -> int:
    """Accept one or more pending proposals (one transaction)."""
    return _decide(args, "accept")


def reject(args: argparse.Namespace) -> int:
    """Reject one or more pending proposals (one transaction)."""
    return _decide(args, "reject")


def dismiss(args: argparse.Namespace) -> int:
    """Set pending proposals aside without a verdict (no grades; undoable)."""
    return _decide(args, "dismiss")


def undo(args: argparse.Namespace) -> int:
    """Undo a decision (by decision id, decided proposal id, or ``--last``) and the rest
    of its bulk, as one unit; an applied one is reverted in the user brain too."""
    from brainview.services.outcome import is_outcome

    with session_of(args) as session:
        target = session.undo_target(None if args.last else args.id)
        with session.project() as project:
            outcomes = is_outcome(project, [str(d["proposal_id"]) for d in target.unit])
        results = session.undo_named(target)
    decision = target.decision
    first = results[0]
    data = {
        "decision_id": first.decision_id,
        "proposal_id": first.proposal_id,
        "verdict": first.verdict,
        "rows_restored": sum(r.rows_restored for r in results),
        "user_rows_restored": sum(r.user_rows_restored for r in results),
        "undone_at": first.undone_at,
        "group_id": decision.get("group_id"),
        "decisions": [
            {
                "decision_id": r.decision_id,
                "proposal_id": r.proposal_id,
                "verdict": r.verdict,
                "rows_restored": r.rows_restored,
                "user_rows_restored": r.user_rows_restored,
            }
            for r in results
        ],
    }
    if args.json:
        emit_json(data)
        return 0
    out = [
        f"undone {r.decision_id} ({r.verdict} of {cell(r.proposal_id, 40)}): "
        f"{r.rows_restored} agent-brain and {r.user_rows_restored} user-brain "
        f"row change(s) reverted; {_after_undo(r.proposal_id in outcomes)}"
        for r in results
    ]
    if len(results) > 1:
        out.insert(0, f"undone one bulk decision of {len(results)} proposals, as one unit:")
    emit_lines(out)
    return 0


def _after_undo(outcome: bool) -> str:
    return "the outcome is withdrawn" if outcome else "the proposal is pending again"
