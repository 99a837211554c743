"""``brainview proposals approvals|withdraw``: the two-person rule, headless.

``approvals`` lists every vote waiting for a second person (proposals and
invalidations) and the agreement of the people who decided the same items;
``withdraw`` takes a waiting vote back (its author, or the person who would be
second).  The rule itself is enforced at the session's decision door, not here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from brainview.commands.common import cell, emit_json, emit_lines, session_of

if TYPE_CHECKING:
    import argparse


def approvals(args: argparse.Namespace) -> int:
    """Votes waiting for a second person, and agreement (read-only)."""
    with session_of(args) as session:
        rules = session.two_person_rules()
        waiting = session.open_approvals()
        agreement = session.agreement()
    if args.json:
        emit_json(
            {
                "enabled": rules.enabled,
                "rules": sorted(rules.rules),
                "prune_above": rules.prune_above,
                "agreement_sample": rules.sample_rate,
                "approvals": [a.to_json() for a in waiting],
                "agreement": agreement,
            }
        )
        return 0
    state = "on" if rules.enabled else "off"
    out = [f"two-person rule {state}: {', '.join(sorted(rules.rules))} (prune above "
           f"{rules.prune_above})"]  # fmt: skip
    for a in waiting:
        what = ", ".join(a.reflections[:3]) if a.kind == "invalidate" else a.kind
        out.append(
            f"{cell(a.subject, 40):<40} {cell(what, 40):<24} {a.at[:16]}  {cell(a.line, 90)}"
        )
    out.append(f"{len(waiting)} approval(s) waiting for a second person")
    overall = agreement["overall"]
    if overall["items"]:
        value = "—" if overall["value"] is None else f"{overall['value']:.2f}"
        out.append(
            f"agreement: {overall['agreed']} of {overall['items']} item(s) agreed; "
            f"{overall['method']} {value}"
        )
    emit_lines(out)
    return 0


def withdraw(args: argparse.Namespace) -> int:
    """Withdraw a vote waiting for a second person."""
    with session_of(args) as session:
        done = session.withdraw_approval(args.id, reason=args.reason)
    if args.json:
        emit_json(done)
        return 0
    emit_lines(
        [
            f"withdrew {cell(done['voted_by'], 40)}'s approval of {cell(done['subject'], 60)} "
            f"(vote {done['vote_id']}); it waits for a first approval again"
        ]
    )
    return 0
