"""The two-person rule in triage: the row's mark, the detail's line, what a held vote
says, and the withdraw action's job.  Names and verdicts come from the brain: drawn as
plain, one-line ``Text``, never markup."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from rich.text import Text

from brainview.core.safe_text import one_line
from brainview.core.vocabulary import GLYPH

if TYPE_CHECKING:
    from brainview.services.review import DecisionResult
    from brainview.services.session import Session

HALF = GLYPH["one of two approvals"]
"""One of the two people a change needs has voted."""
PAST = {"accept": "accepted", "reject": "rejected", "invalidate": "approved"}


def approval_mark(approval: tuple[str, str]) -> Text:
    """``½ ada `` before a queue row's summary (ada's vote waits for a second person)."""
    who, _verdict = approval
    return Text(f"{HALF} {one_line(who, 24)} ", style="bold yellow")


def detail_line(approval: tuple[str, str] | None) -> Text | None:
    """The detail's line: ``½ accepted by ada — … either of you may withdraw (W)``."""
    if approval is None:
        return None
    who, verdict = approval
    return Text(
        f"{HALF} {PAST.get(verdict, 'voted')} by {one_line(who, 40)} — waits for a second, "
        "different person: their accept applies it; either of you may withdraw (W)",
        style="bold yellow",
    )


def held_note(results: Sequence[DecisionResult]) -> str | None:
    """What a decision call that only recorded votes says (``None``: something applied)."""
    held = [r for r in results if r.apply_state == "held"]
    if not held:
        return None
    what = one_line(held[0].proposal_id, 40) if len(held) == 1 else f"{len(held)} proposals"
    tail = "" if len(held) == len(results) else f"; {len(results) - len(held)} decided now"
    return f"{HALF} {what}: your vote is recorded, nothing applied — it needs a second person{tail}"


def withdraw_job(proposal_id: str) -> Callable[[Session], dict[str, Any]]:
    """Withdraw the vote waiting on ``proposal_id`` (a worker job)."""

    def job(session: Session) -> dict[str, Any]:
        return session.withdraw_approval(proposal_id)

    return job


def withdrawn_note(done: dict[str, Any]) -> str:
    """``withdrew ada's approval of prop-…``."""
    return (
        f"withdrew {one_line(str(done['voted_by']), 40)}'s approval of "
        f"{one_line(str(done['subject']), 40)}: it waits for a first approval again"
    )


def withdraw(screen: Any) -> None:
    """``W`` in triage: withdraw the vote waiting on the highlighted proposal, then say
    so and read the queue again (a refusal reaches the app as one line)."""
    from brainview.tui.access import session_of
    from brainview.tui.widgets.confirm import ConfirmScreen
    from brainview.tui.workers import run_service

    pid = screen.current_id
    if pid is None:
        return

    def done(result: dict[str, Any]) -> None:
        screen.notify(withdrawn_note(result), timeout=6, markup=False)
        screen.details.pop(pid, None)
        screen.reload(pid)

    def go(ok: bool | None = True) -> None:
        if ok:
            run_service(screen, withdraw_job(pid), group="withdraw", done=done)
        else:
            screen.notify("Not withdrawn: nothing was written.", timeout=4)

    d = screen.details.get(pid)
    who = d.approval[0] if d is not None and d.approval else None
    if who is None or who == session_of(screen).decider:
        go()  # one's own vote (or none: the service says so)
        return
    lines = [
        f"{one_line(who, 40)} approved it; withdrawing takes that vote back, and it then "
        "waits for a first approval again (the withdrawal is recorded; it cannot be undone, "
        "only voted again)."
    ]
    title = f"Withdraw {one_line(who, 40)}'s approval?"
    screen.app.push_screen(ConfirmScreen(title, lines, verb="withdraw"), go)
