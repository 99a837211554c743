"""Presence and soft claims: who is looking at which proposal, across the consoles one
server runs for its signed-in people (:mod:`brainview.store.presence`).

A console with a presence database (``BRAINVIEW_PRESENCE``) keeps one
:class:`Presence`: :meth:`Presence.look_at` claims the highlighted proposal for
:data:`TTL` seconds (or withdraws the claim), :meth:`Presence.heartbeat` refreshes it
while it is still shown, :meth:`Presence.others` reads everyone else's live claims —
the marks in the queue.  A claim never refuses anything: deciding a proposal someone
else holds is allowed (the agent brain already refuses a double decision).

Presence is a courtesy, so it never stops the console: the first failure (a locked or
unusable file) turns it off and :attr:`Presence.broken` says why, once.

:func:`decided_elsewhere` is the other half of "who": the decisions, with their
deciders, on proposals a console still shows.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from brainview.services.project import Project
from brainview.store import presence as store
from brainview.store.presence_decisions import DecidedRow, decided_among

if TYPE_CHECKING:
    import sqlite3

T = TypeVar("T")

TTL = 30.0
"""Seconds a claim holds without a heartbeat."""
HEARTBEAT = 10.0
"""Seconds between refreshes of a claim still shown."""


@dataclass(frozen=True)
class Claim:
    """Someone else looking at a proposal."""

    holder: str
    proposal_id: str
    since: float
    """When they started looking (seconds since the epoch)."""

    def seconds(self, now: float) -> int:
        """For how long, as of ``now``."""
        return max(0, int(now - self.since))


class Presence:
    """One console's claims in a shared presence database (thread-safe)."""

    def __init__(
        self,
        path: Path,
        holder: str,
        *,
        timeout: float = 2.0,
        clock: Callable[[], float] = time.time,
        ttl: float = TTL,
        console: str | None = None,
    ) -> None:
        self.path = path
        self.holder = holder
        self.console = console or f"{holder}:{uuid.uuid4().hex[:12]}"
        """This console's key (two consoles of one person are two claims)."""
        self.clock = clock
        self.ttl = ttl
        self.timeout = timeout
        self.looking_at: str | None = None
        self.broken: str | None = None
        """Why presence is off (``None``: working)."""
        self._refreshed = 0.0
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.Lock()

    def _run(self, call: Callable[[sqlite3.Connection], T]) -> T | None:
        """``call(conn)`` under the lock; the first failure turns presence off."""
        with self._lock:
            if self.broken is not None:
                return None
            try:
                if self._conn is None:
                    self._conn = store.open_presence(self.path, timeout=self.timeout)
                return call(self._conn)
            except Exception as err:  # noqa: BLE001 - presence must never stop a console
                said = str(err).splitlines()[0][:160] if str(err) else type(err).__name__
                self.broken = f"presence off: {said}"
                return None

    def look_at(self, proposal_id: str | None) -> None:
        """Claim ``proposal_id`` (``None``: withdraw this console's claim)."""
        now = self.clock()
        self.looking_at = proposal_id
        self._refreshed = now
        if proposal_id is None:
            self._run(lambda c: store.drop_claim(c, self.console))
            return
        self._run(
            lambda c: store.put_claim(
                c,
                console=self.console,
                holder=self.holder,
                proposal_id=proposal_id,
                now=now,
                ttl=self.ttl,
            )
        )

    def heartbeat(self) -> bool:
        """Refresh the claim when :data:`HEARTBEAT` seconds passed; whether it did."""
        if self.looking_at is None or self.clock() - self._refreshed < HEARTBEAT:
            return False
        self.look_at(self.looking_at)
        return True

    def others(self) -> dict[str, Claim]:
        """Proposal id → the earliest live claim on it by another console."""
        now = self.clock()
        rows = self._run(lambda c: store.live_claims(c, now=now))
        out: dict[str, Claim] = {}
        for row in rows or []:
            if row.console != self.console and row.proposal_id not in out:
                out[row.proposal_id] = Claim(row.holder, row.proposal_id, row.since)
        return out

    def close(self) -> None:
        """Withdraw this console's claim and close the database."""
        if self.looking_at is not None:
            self.look_at(None)
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None


def decided_elsewhere(project: Project, proposal_ids: Sequence[str]) -> list[DecidedRow]:
    """The live decisions (decider, verdict, when) on ``proposal_ids``."""
    if project.agent is None:
        return []
    with project.agent.read() as conn:
        return decided_among(conn, list(proposal_ids))
