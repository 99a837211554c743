"""Sign-in for ``brainview serve``: who is asking, and the ``/login`` ``/logout``
``/whoami`` routes.

When the server has a users file with people in it, every request must come from a
signed-in browser session (cookie :data:`SESSION_COOKIE`) or carry a person's bearer
token (``Authorization: Bearer …``), except the sign-in page itself.  Otherwise a page
request is sent to ``/login`` (303) and anything else — the console's websocket first
of all — is refused with 401 before any console process starts.

* Sign-in and sign-out are POSTs that need a CSRF token and a same-origin ``Origin``
  (or ``Referer``).  Sign-in's token is double-submitted: a random value in a cookie
  scoped to ``/login`` and the same value in the form; sign-out's is the session's own.
* Failed sign-ins are throttled per (name, address) pair and per address, and slowed
  per name (:mod:`brainview.web.throttle`: an outsider cannot lock someone
  else out; 429 with ``Retry-After``).
* Cookies are ``HttpOnly``, ``SameSite=Strict``, ``Path=/`` and ``Secure`` when the
  request came over TLS or the server runs with ``--tls-proxy``.
* The users file is re-read when it changed (a ``stat`` per request).  Each session is
  bound to its account's fingerprint (role and password hash): a removal, a password
  change or a role change ends it at the next request, and the watcher closes its open
  consoles; a bearer token's console ends when the token or the role changes.  A file
  that becomes unreadable signs everyone out until it is fixed (one log line).
* No password, token, cookie value or CSRF token is ever logged or put in a URL.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import secrets
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from aiohttp import web

from brainview.core.identity import Identity, Role
from brainview.errors import BrainviewError
from brainview.services.team.accounts import (
    Accounts,
    Snapshot,
    check_password_of,
    check_token_of,
    fingerprint,
    same_fingerprint,
)
from brainview.web.pages import NO_STORE, login_page, plain_page, see_other, too_many
from brainview.web.sessions import SessionStore, SignedIn
from brainview.web.throttle import (
    DEVICE_COOKIE,
    DEVICE_MAX_AGE_S,
    SignInLimits,
    TooMany,
    client_address,
    device_cookie,
    trusted_device,
)

SESSION_COOKIE = "bv_session"
LOGIN_COOKIE = "bv_login"
MAX_SECRET = 512
"""Longest cookie, CSRF or bearer value even looked at."""
VISITOR = "brainview_visitor"
"""Where the middleware leaves the request's :class:`Visitor`."""
log = logging.getLogger("brainview.serve")


@dataclass(frozen=True)
class Visitor:
    """Who a request comes from: a signed-in session or a bearer token's owner."""

    name: str
    role: Role
    session: SignedIn | None = None
    token_digest: str | None = None


class Gate:
    """The sign-in state of one server: accounts, sessions, throttle."""

    def __init__(self, users: Path, *, tls_proxy: bool = False, presence: str | None = None):
        self.accounts = Accounts(users)
        self.snapshot: Snapshot = self.accounts.load()
        self.sessions = SessionStore()
        self.limits = SignInLimits()
        self.tls_proxy = tls_proxy
        self.presence = presence

    # -- the users file ---------------------------------------------------------------

    def refresh(self) -> None:
        """Re-read the users file if it changed; end removed people's sessions."""
        if not self.accounts.changed(self.snapshot):
            return
        try:
            self.snapshot = self.accounts.load()
        except BrainviewError as err:
            log.warning("users file unreadable, everyone is signed out: %s", err.message)
            self.snapshot = Snapshot({}, self.accounts.current_signature())
        self.sessions.keep_if(self._current)

    def _current(self, session: SignedIn) -> bool:
        """Whether ``session``'s account is still the one it signed in as."""
        return same_fingerprint(self.snapshot.accounts.get(session.name), session.fingerprint)

    # -- who is asking ----------------------------------------------------------------

    def visitor(self, request: web.Request) -> Visitor | None:
        """The signed-in person behind ``request`` (token first, then cookie)."""
        token = bearer(request)
        if token is not None:
            account = check_token_of(self.snapshot, token)
            if account is None or account.token is None:
                return None
            return Visitor(account.name, account.role, token_digest=account.token.digest)
        cookie = request.cookies.get(SESSION_COOKIE, "")
        session = self.sessions.get(cookie) if len(cookie) <= MAX_SECRET else None
        if session is None:
            return None
        if not self._current(session):
            self.sessions.end(session.id)
            return None
        return Visitor(session.name, session.role, session)

    def still_valid(self, visitor: Visitor) -> bool:
        """Whether a console opened by ``visitor`` may go on (an open console keeps its
        session in use; sign-out, expiry, removal, a password or role change or a
        rotated token end it)."""
        self.refresh()
        if visitor.session is not None:
            session = self.sessions.get(visitor.session.id)
            return session is not None and self._current(session)
        account = self.snapshot.accounts.get(visitor.name)
        token = account.token if account else None
        if token is None or account is None or account.role != visitor.role:
            return False
        return hmac.compare_digest(token.digest, visitor.token_digest or "")

    def identity(self, visitor: Visitor) -> Identity:
        """What the visitor's console is told (environment, :mod:`core.identity`)."""
        return Identity(visitor.name, visitor.role, self.presence)

    def secure(self, request: web.Request) -> bool:
        """Whether cookies get ``Secure``: TLS here, or a TLS proxy in front."""
        return self.tls_proxy or request.secure

    def scheme(self, request: web.Request) -> str:
        """The scheme the browser used (``X-Forwarded-Proto`` behind ``--tls-proxy``)."""
        if self.tls_proxy:
            forwarded = request.headers.get("X-Forwarded-Proto", "https").split(",")[0]
            return "http" if forwarded.strip().lower() == "http" else "https"
        return request.scheme

    def client(self, request: web.Request) -> str:
        """The client's address (:func:`~brainview.web.throttle.client_address`)."""
        return client_address(request, tls_proxy=self.tls_proxy)

    # -- the middleware ---------------------------------------------------------------

    @web.middleware
    async def middleware(self, request: web.Request, handler) -> web.StreamResponse:  # noqa: ANN001
        """Let through ``/login`` and signed-in requests; refuse the rest."""
        self.refresh()
        if request.path == "/login":
            return await handler(request)
        visitor = self.visitor(request)
        if visitor is None:
            if bearer(request) is not None:
                return self._bad_token(request)
            if request.path != "/ws" and request.method in ("GET", "HEAD"):
                raise web.HTTPSeeOther("/login", headers={"Cache-Control": "no-store"})
            raise web.HTTPUnauthorized(text="brainview serve: sign in first")
        request[VISITOR] = visitor
        return await handler(request)

    def _bad_token(self, request: web.Request) -> web.StreamResponse:
        keys = [f"ip:{self.client(request)}"]
        wait = self.limits.addresses.retry_after(keys)
        if wait > 0:
            return too_many(wait, plain=True)
        self.limits.addresses.failed(keys)
        raise web.HTTPUnauthorized(text="brainview serve: unknown or rotated token")

    # -- routes -----------------------------------------------------------------------

    def routes(self) -> list[web.RouteDef]:
        return [
            web.get("/login", self.login_form),
            web.post("/login", self.login),
            web.post("/logout", self.logout),
            web.get("/whoami", self.whoami),
        ]

    def _cookie(self, response: web.StreamResponse, request: web.Request, name: str,
                value: str, path: str = "/", max_age: int | None = None) -> None:  # fmt: skip
        response.set_cookie(
            name, value, path=path, httponly=True, samesite="Strict",
            secure=self.secure(request), max_age=max_age,
        )  # fmt: skip

    async def login_form(self, request: web.Request) -> web.StreamResponse:
        """``GET /login``: the form, with a fresh pre-session CSRF cookie."""
        if self.visitor(request) is not None and bearer(request) is None:
            raise web.HTTPSeeOther("/", headers={"Cache-Control": "no-store"})
        csrf = secrets.token_urlsafe(32)
        response = login_page(csrf)
        self._cookie(response, request, LOGIN_COOKIE, csrf, path="/login")
        return response

    async def login(self, request: web.Request) -> web.StreamResponse:
        """``POST /login``: check origin, CSRF, throttle, then the password."""
        if not same_origin(request):
            return plain_page("refused", "cross-site sign-in refused", status=403)
        form = await request.post()
        csrf = request.cookies.get(LOGIN_COOKIE, "")
        if not _same_secret(csrf, form.get("csrf")):
            return plain_page("sign-in expired", "reload the sign-in page", status=403)
        name, password = form.get("name"), form.get("password")
        if not isinstance(name, str) or not isinstance(password, str):
            return login_page(csrf, message="give a name and a password", status=400)
        name, address = name.strip()[:64], self.client(request)
        wait = self.limits.retry_after(name, address)
        if wait > 0:
            return too_many(wait, csrf=csrf, name=name)
        self.limits.failed(name, address)  # counted before any wait or hash
        device = request.cookies.get(DEVICE_COOKIE, "")
        trusted = trusted_device(self.snapshot.accounts.get(name), device)
        try:
            async with self.limits.turn(name, trusted=trusted):
                snapshot = self.snapshot
                account = await asyncio.to_thread(check_password_of, snapshot, name, password)
        except TooMany as err:
            return too_many(err.wait, csrf=csrf, name=name)
        if account is None:
            return login_page(csrf, message="wrong name or password", name=name, status=401)
        self.limits.succeeded(name, address)
        old = request.cookies.get(SESSION_COOKIE)
        if old:
            self.sessions.end(old)  # whatever was sent before never becomes a session
        session = self.sessions.create(account.name, account.role, fingerprint(account))
        response = see_other("/")
        self._cookie(response, request, SESSION_COOKIE, session.id)
        known = device_cookie(account)
        if known is not None:
            self._cookie(response, request, DEVICE_COOKIE, known, "/login", DEVICE_MAX_AGE_S)
        response.del_cookie(LOGIN_COOKIE, path="/login")
        return response

    async def logout(self, request: web.Request) -> web.StreamResponse:
        """``POST /logout``: same origin and the session's CSRF token; ends it here."""
        visitor: Visitor = request[VISITOR]
        if not same_origin(request):
            return plain_page("refused", "cross-site sign-out refused", status=403)
        form = await request.post()
        if visitor.session is None or not _same_secret(visitor.session.csrf, form.get("csrf")):
            return plain_page("refused", "sign-out needs the page's token: reload", status=403)
        self.sessions.end(visitor.session.id)
        response = see_other("/login")
        response.del_cookie(SESSION_COOKIE, path="/")
        return response

    async def whoami(self, request: web.Request) -> web.StreamResponse:
        """``GET /whoami``: the signed-in person as JSON (for scripts and tests)."""
        visitor: Visitor = request[VISITOR]
        via = "session" if visitor.session is not None else "token"
        data = {"name": visitor.name, "role": visitor.role, "via": via}
        return web.json_response(data, headers=NO_STORE)


def bearer(request: web.Request) -> str | None:
    """The bearer token of ``Authorization``, ``None`` when there is none."""
    header = request.headers.get("Authorization")
    if header is None:
        return None
    scheme, _, value = header.strip().partition(" ")
    if scheme.lower() != "bearer":
        return ""  # some other scheme: never a valid token
    return value.strip()[:MAX_SECRET]


def same_origin(request: web.Request) -> bool:
    """Whether a state-changing request comes from this server's own pages:
    ``Origin`` (or, without one, ``Referer``) names the host the request was sent to."""
    source = request.headers.get("Origin")
    if not source or source == "null":
        source = request.headers.get("Referer")
    if not source:
        return False
    try:
        return urlsplit(source).netloc.lower() == request.host.lower()
    except ValueError:
        return False


def _same_secret(expected: str, given: object) -> bool:
    if not expected or not isinstance(given, str) or len(given) > MAX_SECRET:
        return False
    return hmac.compare_digest(expected.encode(), given.encode())
