"""Signed-in sessions and sign-in throttling for ``brainview serve`` (in memory).

* A **session** is a random 32-byte id (``secrets.token_urlsafe``) the browser holds in
  a cookie; the server keeps, per id, who signed in, with which role, a CSRF token for
  sign-out, and when it was created and last used.  It ends after :data:`IDLE_S`
  without use, :data:`ABSOLUTE_S` after sign-in whatever happens, at sign-out, or when
  the person's record in the users file changes: each session is bound to a
  fingerprint of the account (role and password hash,
  :func:`brainview.services.team.accounts.fingerprint`), so a password change, a role
  change or a removal ends it at the next request.  Ids are made only at sign-in, so a
  cookie set before cannot become a signed-in session (no fixation).  Everything is
  lost when the server stops: people sign in again.
* The **throttle** counts failed sign-ins per client address and per name over
  :data:`WINDOW_S`; from :data:`FREE_FAILURES` failures on, each further try must wait
  ``BASE_WAIT_S * 2**(extra failures)`` (at most :data:`MAX_WAIT_S`) after the last one.
  It is consulted, and the try counted as a failure, before any password is hashed
  (many tries in parallel cannot slip through); a success then takes it back.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from brainview.core.identity import Role

IDLE_S = 2 * 3600.0
"""A session unused this long ends (an open console counts as use)."""
ABSOLUTE_S = 12 * 3600.0
"""A session ends this long after sign-in, used or not."""
MAX_SESSIONS = 10_000
"""Signed-in sessions kept at most (the oldest end first)."""
WINDOW_S = 15 * 60.0
FREE_FAILURES = 5
BASE_WAIT_S = 30.0
MAX_WAIT_S = 3600.0
MAX_KEYS = 50_000
"""Throttle entries kept at most (expired ones go first)."""

Clock = Callable[[], float]


@dataclass
class SignedIn:
    """One signed-in browser session."""

    id: str
    name: str
    role: Role
    csrf: str
    created: float
    last_seen: float
    fingerprint: str = ""
    """The account's fingerprint at sign-in; the session ends when it differs."""


@dataclass
class SessionStore:
    """Every signed-in session of one server, by id."""

    clock: Clock = time.monotonic
    idle_s: float = IDLE_S
    absolute_s: float = ABSOLUTE_S
    by_id: dict[str, SignedIn] = field(default_factory=dict)

    def create(self, name: str, role: Role, fingerprint: str = "") -> SignedIn:
        """A new session with a new id and CSRF token, bound to ``fingerprint``."""
        now = self.clock()
        if len(self.by_id) >= MAX_SESSIONS:
            oldest = min(self.by_id.values(), key=lambda s: s.last_seen)
            self.by_id.pop(oldest.id, None)
        session = SignedIn(
            secrets.token_urlsafe(32), name, role, secrets.token_urlsafe(32), now, now, fingerprint
        )
        self.by_id[session.id] = session
        return session

    def _alive(self, session: SignedIn, now: float) -> bool:
        return now - session.last_seen < self.idle_s and now - session.created < self.absolute_s

    def get(self, session_id: str | None, *, touch: bool = True) -> SignedIn | None:
        """The live session with this id (its use recorded), else ``None``."""
        if not session_id:
            return None
        session = self.by_id.get(session_id)
        if session is None:
            return None
        now = self.clock()
        if not self._alive(session, now):
            self.by_id.pop(session_id, None)
            return None
        if touch:
            session.last_seen = now
        return session

    def end(self, session_id: str) -> None:
        """Sign out: the id is forgotten."""
        self.by_id.pop(session_id, None)

    def keep_only(self, names: Iterable[str]) -> None:
        """End the sessions of everyone not in ``names`` (removed from the users file)."""
        keep = set(names)
        self.keep_if(lambda s: s.name in keep)

    def keep_if(self, keep: Callable[[SignedIn], bool]) -> None:
        """End every session for which ``keep`` is false."""
        for sid in [sid for sid, s in self.by_id.items() if not keep(s)]:
            del self.by_id[sid]


@dataclass
class _Failures:
    count: int = 0
    first: float = 0.0
    last: float = 0.0


@dataclass
class Throttle:
    """Failed sign-ins per key (``ip:…`` and ``name:…``)."""

    clock: Clock = time.monotonic
    window_s: float = WINDOW_S
    free: int = FREE_FAILURES
    entries: dict[str, _Failures] = field(default_factory=dict)

    def _entry(self, key: str, now: float) -> _Failures | None:
        entry = self.entries.get(key)
        if entry is not None and now - entry.last >= max(self.window_s, self._wait(entry)):
            del self.entries[key]
            return None
        return entry

    def _wait(self, entry: _Failures) -> float:
        extra = entry.count - self.free
        if extra < 0:
            return 0.0
        return min(BASE_WAIT_S * 2.0 ** min(extra, 20), MAX_WAIT_S)

    def retry_after(self, keys: Iterable[str]) -> float:
        """Seconds to wait before another try with these keys (``0``: go ahead)."""
        now = self.clock()
        wait = 0.0
        for key in keys:
            entry = self._entry(key, now)
            if entry is not None and entry.count >= self.free:
                wait = max(wait, entry.last + self._wait(entry) - now)
        return max(wait, 0.0)

    def failed(self, keys: Iterable[str]) -> None:
        """Count one failure against each key."""
        now = self.clock()
        if len(self.entries) >= MAX_KEYS:
            self._prune(now)
        for key in keys:
            entry = self._entry(key, now) or self.entries.setdefault(key, _Failures(0, now, now))
            entry.count += 1
            entry.last = now

    def forgive(self, key: str) -> None:
        """Take back one failure counted ahead of a check that then succeeded."""
        entry = self.entries.get(key)
        if entry is not None:
            entry.count -= 1
            if entry.count <= 0:
                del self.entries[key]

    def succeeded(self, keys: Iterable[str]) -> None:
        """Forget the failures of these keys."""
        for key in keys:
            self.entries.pop(key, None)

    def _prune(self, now: float) -> None:
        for key in list(self.entries):
            self._entry(key, now)
        while len(self.entries) >= MAX_KEYS:
            oldest = min(self.entries, key=lambda k: self.entries[k].last)
            del self.entries[oldest]
