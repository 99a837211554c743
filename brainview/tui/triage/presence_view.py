"""Presence on the triage screen (signed-in consoles that share a presence database).

:class:`TriagePresence` is a collaborator of the screen: when a proposal is highlighted
it claims it for this person (``jobs.look_at``), the poll refreshes the claim and reads
everyone else's (``jobs.watch``); it marks the rows others are looking at (``◉ bob``),
says so when the highlighted proposal is someone else's (``bob is looking at this
since 12 s …``) and says who decided what this console still showed (``accepted by bob
3 s ago``).  Without a presence database it only does the last.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import brainview.tui.triage.jobs as jobs
from brainview.core.safe_text import one_line
from brainview.tui.access import brainview_app
from brainview.tui.workers import run_service

if TYPE_CHECKING:
    from brainview.services.presence import Claim, Presence
    from brainview.tui.triage.screen import TriageScreen

PAST = {"accept": "accepted", "reject": "rejected", "dismiss": "dismissed"}
SAID_ONE_BY_ONE = 3
"""Up to this many proposals decided elsewhere are named one by one."""


class TriagePresence:
    """Claims, marks and "decided by" notices for one triage screen."""

    def __init__(self, screen: TriageScreen) -> None:
        self.screen = screen
        self.claims: dict[str, Claim] = {}
        """Everyone else's live claims as of the last read."""
        self._warned: tuple[str, str] | None = None
        """``(proposal, holder)`` last said for the highlighted proposal."""
        self._said_broken = False
        self._said: set[str] = set()
        """Decisions already named (a poll that overlapped a reload reads them again)."""

    @property
    def presence(self) -> Presence | None:
        """The app's presence database (``None``: not signed in, or no database)."""
        return brainview_app(self.screen).presence

    # -- claiming ------------------------------------------------------------------

    def selected(self, proposal_id: str | None) -> None:
        """The highlighted proposal changed: claim it (``None``: withdraw)."""
        self._warned = None
        presence = self.presence
        if presence is None:
            return
        self._warn(proposal_id)  # what the last read knew, at once
        if proposal_id == presence.looking_at:
            return  # a redraw: the heartbeat keeps the claim
        run_service(
            self.screen, jobs.look_at(presence, proposal_id), group="presence", done=self.show
        )

    def show(self, claims: dict[str, Claim] | None) -> None:
        """Everyone else's claims as read: marks redrawn, the highlighted one said."""
        presence = self.presence
        if presence is not None and presence.broken and not self._said_broken:
            self._said_broken = True
            self.screen.notify(presence.broken, severity="warning", markup=False)
        if claims is None:
            return
        self.claims = claims
        self.screen.queue.show_holders({pid: c.holder for pid, c in claims.items()})
        self._warn(self.screen.current_id)

    def _warn(self, proposal_id: str | None) -> None:
        claim = self.claims.get(proposal_id) if proposal_id else None
        presence = self.presence
        if claim is None or presence is None or self._warned == (claim.proposal_id, claim.holder):
            return
        self._warned = (claim.proposal_id, claim.holder)
        seconds = claim.seconds(presence.clock())
        self._tell(
            f"{claim.holder} is looking at this since {seconds} s — continue if you mean to "
            "(deciding it is allowed; a second decision is refused)",
            "Presence",
        )

    # -- decided elsewhere -----------------------------------------------------------

    def decided(self, items: tuple[jobs.DecidedBy, ...]) -> None:
        """Say who decided the proposals this console still showed (before they go)."""
        items = tuple(d for d in items if d.decision_id not in self._said)
        if not items:
            return
        self._said.update(d.decision_id for d in items)
        queue = self.screen.queue
        if len(items) <= SAID_ONE_BY_ONE:
            lines = []
            for d in items:
                row = queue.row(d.proposal_id)
                what = one_line(row.title_summary or row.summary, 50) if row else d.proposal_id
                verb = PAST.get(d.verdict, d.verdict)
                lines.append(f"{verb} by {d.decider} {d.seconds_ago} s ago: {what}")
            text = "\n".join(lines)
        else:
            names = ", ".join(sorted({d.decider for d in items}))
            text = f"{len(items)} proposal(s) decided by {names}"
        self._tell(text, "Decided elsewhere")

    def _tell(self, text: str, title: str) -> None:
        self.screen.notify(text, title=title, timeout=8, markup=False)
