"""Who is guessing, and how much longer they wait: ``brainview serve``'s sign-in limits.

Failed sign-ins are counted three ways (:class:`~brainview.web.sessions.
Throttle`, each try counted before its password is hashed):

* per **(account, address)** pair — from :data:`PAIR_FREE` failures on, that address
  waits (doubling, at most an hour) before trying that account again;
* per **address**, whatever the names — from :data:`ADDRESS_FREE` failures on, that
  address waits before trying any account;
* per **account**, from any address — this one never refuses: from
  :data:`ACCOUNT_FREE` failures on, tries on the account are *slowed* (a pause doubling
  up to :data:`SLOW_MAX_S`) and run one at a time, so however many addresses a guesser
  rotates through, the account sees at most one guess per pause.  A browser that has
  signed in to the account before carries a **device cookie** (:data:`DEVICE_COOKIE`,
  an HMAC keyed by the account's password hash, valid :data:`DEVICE_MAX_AGE_S`) and
  skips the pause and the queue.

So an outsider can lock out only their own address: the person's own address and
browser keep their tries.  The address is the TCP peer's; ``X-Forwarded-For`` is
believed only with ``--tls-proxy`` *and* when the peer is a loopback address (the
proxy on this host), and then only its right-most entry that is not loopback (the one
the proxy appended): a client that sends its own header cannot pick its address.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import ipaddress
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from aiohttp import web

from brainview.services.team.accounts import Account
from brainview.web.sessions import Throttle

PAIR_FREE = 5
ADDRESS_FREE = 20
ACCOUNT_FREE = 10
SLOW_BASE_S = 0.5
SLOW_MAX_S = 4.0
MAX_WAITING = 16
"""Slowed tries on one account waiting their turn at most (the rest: 429)."""
DEVICE_COOKIE = "bv_device"
DEVICE_MAX_AGE_S = 30 * 24 * 3600
UNPARSED = "unparsed-forwarded-for"
"""The one address every request with an unreadable forwarded address shares."""


class TooMany(Exception):
    """The try must wait ``wait`` seconds."""

    def __init__(self, wait: float) -> None:
        super().__init__(wait)
        self.wait = wait


def client_address(request: web.Request, *, tls_proxy: bool) -> str:
    """The address failed sign-ins are counted against (see the module's docstring)."""
    peer = request.remote or "?"
    if not tls_proxy or not _loopback(peer):
        return peer
    hops = ",".join(request.headers.getall("X-Forwarded-For", [])).split(",")
    for hop in reversed(hops):
        text = hop.strip()
        if not text:
            continue
        try:
            address = ipaddress.ip_address(text.strip("[]"))
        except ValueError:
            return UNPARSED
        if not address.is_loopback:
            return str(address)
    return peer


def _loopback(peer: str) -> bool:
    try:
        return ipaddress.ip_address(peer).is_loopback
    except ValueError:
        return False


def _device_key(account: Account) -> bytes | None:
    stored = account.password
    if stored is None:
        return None
    return hashlib.sha256(b"brainview-device\0" + stored.salt + stored.key).digest()


def device_cookie(account: Account, *, now: float | None = None) -> str | None:
    """A device cookie's value for ``account`` (``None`` without a password)."""
    key = _device_key(account)
    if key is None:
        return None
    issued = str(int(time.time() if now is None else now))
    mac = hmac.new(key, f"{account.name}\0{issued}".encode(), hashlib.sha256).hexdigest()
    return f"{account.name}.{issued}.{mac}"


def trusted_device(account: Account | None, cookie: str, *, now: float | None = None) -> bool:
    """Whether ``cookie`` is a live device cookie of ``account`` (constant-time)."""
    key = _device_key(account) if account is not None else None
    parts = cookie.rsplit(".", 2)
    if key is None or account is None or len(parts) != 3 or len(cookie) > 200:
        return False
    name, issued, mac = parts
    if name != account.name or not issued.isdigit():
        return False
    age = (time.time() if now is None else now) - int(issued)
    good = hmac.new(key, f"{name}\0{issued}".encode(), hashlib.sha256).hexdigest()
    return 0 <= age < DEVICE_MAX_AGE_S and hmac.compare_digest(good, mac)


class SignInLimits:
    """The three counts of one server and the per-account queue of slowed tries."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.pairs = Throttle(clock=clock, free=PAIR_FREE)
        self.addresses = Throttle(clock=clock, free=ADDRESS_FREE)
        self.accounts = Throttle(clock=clock, free=ACCOUNT_FREE)
        self._turns: dict[str, asyncio.Lock] = {}
        self._waiting: dict[str, int] = {}

    @staticmethod
    def _keys(name: str, address: str) -> tuple[str, str, str]:
        folded = name.casefold()
        return f"pair:{folded}\0{address}", f"ip:{address}", f"name:{folded}"

    def retry_after(self, name: str, address: str) -> float:
        """Seconds ``address`` must wait before trying ``name`` (``0``: go ahead)."""
        pair, ip, _ = self._keys(name, address)
        return max(self.pairs.retry_after([pair]), self.addresses.retry_after([ip]))

    def slow_for(self, name: str) -> float:
        """The pause before a try on ``name`` from a browser it does not know."""
        entry = self.accounts.entries.get(self._keys(name, "")[2])
        if entry is None or self.accounts.clock() - entry.last >= self.accounts.window_s:
            return 0.0
        extra = entry.count - ACCOUNT_FREE
        return 0.0 if extra < 0 else min(SLOW_BASE_S * 2.0 ** min(extra, 10), SLOW_MAX_S)

    def failed(self, name: str, address: str) -> None:
        """Count one failure (before the password is checked)."""
        pair, ip, account = self._keys(name, address)
        self.pairs.failed([pair])
        self.addresses.failed([ip])
        self.accounts.failed([account])

    def succeeded(self, name: str, address: str) -> None:
        """The password was right: take back the failure counted ahead of it."""
        pair, ip, account = self._keys(name, address)
        self.pairs.succeeded([pair])
        self.addresses.forgive(ip)
        self.accounts.forgive(account)

    @asynccontextmanager
    async def turn(self, name: str, *, trusted: bool) -> AsyncIterator[None]:
        """Wait for this try's turn: at once for a known device or an account not under
        attack, else one at a time after the pause (:class:`TooMany` when the queue is
        full)."""
        pause = 0.0 if trusted else self.slow_for(name)
        if pause <= 0:
            yield
            return
        key = name.casefold()
        if self._waiting.get(key, 0) >= MAX_WAITING:
            raise TooMany(pause * MAX_WAITING)
        self._waiting[key] = self._waiting.get(key, 0) + 1
        try:
            async with self._turns.setdefault(key, asyncio.Lock()):
                await asyncio.sleep(pause)
                yield
        finally:
            self._waiting[key] -= 1
            if not self._waiting[key]:
                del self._waiting[key]
                self._turns.pop(key, None)
