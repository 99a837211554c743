"""``brainview serve`` with sign-in, as a real process: sessions that end when the
person's record changes, lock-outs an outsider cannot cause for someone else, console
slots kept per role, and the headers every response carries.  Everything talks to
127.0.0.1; waits are bounded polls."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Coroutine
from typing import Any, TypeVar

import aiohttp
import pytest
from serving import Served, start_serve
from test_serve_bounds import DEADLINE_S, wait_for
from test_serve_signin import (
    ADA_PW,
    BOB_PW,
    WRONG,
    Reply,
    ask,
    login_form,
    origin,
    session_of,
    sign_in,
    stop,
)

from brainview.services.team.accounts import Accounts, default_path
from brainview.web.throttle import ACCOUNT_FREE, PAIR_FREE, SLOW_BASE_S

T = TypeVar("T")
NEW_PW = "a fresh long passphrase 7"


@pytest.fixture
def team(demo):  # type: ignore[no-untyped-def]
    """The demo project with ada (reviewer) and bob (viewer)."""
    root = demo[0]
    accounts = Accounts(default_path(root / ".spikuit"))
    accounts.add("ada", "reviewer", ADA_PW, now="2026-01-01T00:00:00+00:00")
    accounts.add("bob", "viewer", BOB_PW, now="2026-01-01T00:00:00+00:00")
    return root, accounts


async def closed(ws: aiohttp.ClientWebSocketResponse) -> int | None:
    """The code the server closes ``ws`` with (``None``: still open at the deadline)."""
    end = time.monotonic() + DEADLINE_S
    while (left := end - time.monotonic()) > 0:
        try:
            msg = await ws.receive(timeout=left)
        except TimeoutError:
            break
        if msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
            return ws.close_code
    return None


async def bounded(work: Coroutine[Any, Any, T]) -> T | None:
    """``work``'s result, or ``None`` when it is still waiting at the deadline."""
    try:
        return await asyncio.wait_for(work, 2 * DEADLINE_S)
    except TimeoutError:
        return None


def whoami(served: Served, sid: str) -> dict[str, str] | None:
    reply = ask(served, "GET", "/whoami", headers={"Cookie": f"bv_session={sid}"})
    return json.loads(reply.body) if reply.status == 200 else None


def test_a_password_change_ends_the_persons_sessions(team) -> None:  # type: ignore[no-untyped-def]
    root, accounts = team
    served = start_serve(str(root))
    try:
        sid = session_of(sign_in(served, "ada", ADA_PW))
        other = session_of(sign_in(served, "bob", BOB_PW))
        assert whoami(served, sid) == {"name": "ada", "role": "reviewer", "via": "session"}
        accounts.set_password("ada", NEW_PW)
        assert whoami(served, sid) is None  # the very next request
        assert whoami(served, other) is not None  # bob's record did not change
        assert sign_in(served, "ada", ADA_PW).status == 401
        assert whoami(served, session_of(sign_in(served, "ada", NEW_PW))) is not None
    finally:
        stop(served)


def test_a_role_change_ends_the_session_and_its_console(team) -> None:  # type: ignore[no-untyped-def]
    root, accounts = team
    accounts.set_role("ada", "maintainer")
    served = start_serve(str(root))
    try:
        sid = session_of(sign_in(served, "ada", ADA_PW))
        assert whoami(served, sid)["role"] == "maintainer"  # type: ignore[index]

        async def scenario() -> int | None:
            async with aiohttp.ClientSession() as client:
                ws = await client.ws_connect(
                    served.url + "ws",
                    headers={"Origin": origin(served), "Cookie": f"bv_session={sid}"},
                )
                loop = asyncio.get_running_loop()
                await loop.run_in_executor(
                    None, wait_for, "a console", lambda: len(served.children()) == 1
                )
                accounts.set_role("ada", "viewer")  # demoted while the console is open
                return await closed(ws)

        assert asyncio.run(bounded(scenario())) == 1008  # the watcher ended the maintainer console
        assert whoami(served, sid) is None
        again = whoami(served, session_of(sign_in(served, "ada", ADA_PW)))
        assert again is not None and again["role"] == "viewer"
        wait_for("the console to end", lambda: served.children() == set())
    finally:
        stop(served)


def test_a_demoted_tokens_console_ends(team) -> None:  # type: ignore[no-untyped-def]
    root, accounts = team
    accounts.set_role("ada", "maintainer")
    token, _ = accounts.issue_token("ada", now="2026-01-02T00:00:00+00:00")
    served = start_serve(str(root))
    try:

        async def scenario() -> int | None:
            async with aiohttp.ClientSession() as client:
                ws = await client.ws_connect(
                    served.url + "ws",
                    headers={"Origin": origin(served), "Authorization": f"Bearer {token}"},
                )
                loop = asyncio.get_running_loop()
                await loop.run_in_executor(
                    None, wait_for, "a console", lambda: len(served.children()) == 1
                )
                accounts.set_role("ada", "reviewer")
                return await closed(ws)

        assert asyncio.run(bounded(scenario())) == 1008
        me = ask(served, "GET", "/whoami", headers={"Authorization": f"Bearer {token}"})
        assert me.status == 200 and json.loads(me.body)["role"] == "reviewer"
        wait_for("the console to end", lambda: served.children() == set())
    finally:
        stop(served)


def _from(address: str) -> dict[str, str]:
    """What the TLS proxy (on loopback) adds for a client at ``address``."""
    return {"X-Forwarded-For": address, "X-Forwarded-Proto": "https"}


def sign_in_from(served: Served, name: str, password: str, headers: dict[str, str]) -> Reply:
    """Sign in through the TLS proxy (``headers`` as it forwards them)."""
    cookie, csrf = login_form(served)
    return ask(
        served,
        "POST",
        "/login",
        headers={"Cookie": f"bv_login={cookie}", "Origin": origin(served), **headers},
        form={"csrf": csrf, "name": name, "password": password},
    )


def test_an_outsider_cannot_lock_someone_else_out(team) -> None:  # type: ignore[no-untyped-def]
    served = start_serve(str(team[0]), "--tls-proxy")
    try:
        outsider = _from("203.0.113.9")
        tries = [sign_in_from(served, "ada", f"{WRONG}-{k}", outsider) for k in range(8)]
        assert [t.status for t in tries[:PAIR_FREE]] == [401] * PAIR_FREE
        assert tries[-1].status == 429  # the outsider locked themselves out of ada
        assert sign_in_from(served, "ada", ADA_PW, outsider).status == 429
        # ada, from her own address, is not locked out
        assert sign_in_from(served, "ada", ADA_PW, _from("198.51.100.7")).status == 303
    finally:
        stop(served)


def test_forwarded_addresses_do_not_buy_unlimited_tries(team) -> None:  # type: ignore[no-untyped-def]
    served = start_serve(str(team[0]), "--tls-proxy")
    try:
        # a client that writes its own header: the proxy appends the real address, and
        # only that (right-most) entry counts
        for k in range(PAIR_FREE):
            spoofed = _from(f"10.0.{k}.1, 203.0.113.9")
            assert sign_in_from(served, "ada", WRONG, spoofed).status == 401
        assert sign_in_from(served, "ada", WRONG, _from("10.9.9.9, 203.0.113.9")).status == 429
        # one that reaches the server past the proxy and rotates the address itself:
        # the name's tries are slowed (never refused), whatever the address
        for k in range(ACCOUNT_FREE - PAIR_FREE):
            sign_in_from(served, "ada", WRONG, _from(f"192.0.2.{k + 10}"))
        start = time.monotonic()
        assert sign_in_from(served, "ada", WRONG, _from("192.0.2.200")).status == 401
        assert time.monotonic() - start >= SLOW_BASE_S
        # ada still gets in from a new address (slowed, not locked out)
        assert sign_in_from(served, "ada", ADA_PW, _from("198.51.100.7")).status == 303
    finally:
        stop(served)


async def _open(served: Served, sid: str) -> tuple[aiohttp.ClientSession, int | None]:
    """Open a console as ``sid``: the client (to close later) and the close code if the
    server closed it at once (``None``: it is running)."""
    client = aiohttp.ClientSession()
    ws = await client.ws_connect(
        served.url + "ws", headers={"Origin": origin(served), "Cookie": f"bv_session={sid}"}
    )
    msg = await ws.receive(timeout=DEADLINE_S)
    if msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
        await client.close()
        return client, ws.close_code
    return client, None


def test_a_viewer_cannot_hold_every_console_slot(team) -> None:  # type: ignore[no-untyped-def]
    served = start_serve(str(team[0]), "--max-sessions", "2")
    try:
        bob = session_of(sign_in(served, "bob", BOB_PW))
        ada = session_of(sign_in(served, "ada", ADA_PW))

        async def scenario() -> tuple[int | None, int | None, int | None, int]:
            first, code1 = await _open(served, bob)
            second, code2 = await _open(served, bob)  # the viewers' share is one slot
            page = ask(served, "GET", "/", headers={"Cookie": f"bv_session={bob}"}).status
            third, code3 = await _open(served, ada)  # kept for a reviewer
            for client in (first, second, third):
                await client.close()
            return code1, code2, code3, page

        assert asyncio.run(bounded(scenario())) == (None, 1013, None, 503)
        wait_for("the consoles to end", lambda: served.children() == set())
    finally:
        stop(served)


SECURITY = {"X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff"}


def _forbids_framing(reply: Reply) -> bool:
    policy = reply.header("Content-Security-Policy") or ""
    same = all(reply.header(k) == v for k, v in SECURITY.items())
    return same and "frame-ancestors 'none'" in policy and reply.header("Referrer-Policy")


def test_every_response_forbids_framing(make_demo) -> None:  # type: ignore[no-untyped-def]
    alone, _ = make_demo(name="alone")  # no users file: the loopback page, no sign-in
    served = start_serve(str(alone))
    try:
        page = ask(served, "GET", "/")
        assert page.status == 200 and _forbids_framing(page)
        assert page.header("Referrer-Policy") == "no-referrer"
        for path in ("/static/js/textual.js", "/no-such-page"):
            assert _forbids_framing(ask(served, "GET", path)), path
        foreign = ask(served, "GET", "/", headers={"Host": "evil.example"})
        assert foreign.status == 403 and _forbids_framing(foreign)
    finally:
        stop(served)
    shared, _ = make_demo(name="shared")
    Accounts(default_path(shared / ".spikuit")).add("ada", "reviewer", ADA_PW, now="t0")
    served = start_serve(str(shared))
    try:
        assert _forbids_framing(ask(served, "GET", "/"))  # the redirect to /login
        login = ask(served, "GET", "/login")
        # a form's page keeps same-origin: under no-referrer a POST's Origin is "null"
        assert _forbids_framing(login) and login.header("Referrer-Policy") == "same-origin"
        sid = session_of(sign_in(served, "ada", ADA_PW))
        console = ask(served, "GET", "/", headers={"Cookie": f"bv_session={sid}"})
        assert console.status == 200 and _forbids_framing(console)
        assert "<script" in console.body  # textual-serve's page still loads its scripts
        assert _forbids_framing(
            ask(served, "GET", "/whoami", headers={"Cookie": f"bv_session={sid}"})
        )
    finally:
        stop(served)
