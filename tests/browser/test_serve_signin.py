"""``brainview serve`` with sign-in, as a real process, without a browser: what it
refuses before any console starts, its cookies, CSRF and origin checks, session
fixation, bearer tokens and their rotation, throttled guessing, the identity each
console process is given, and that no secret reaches its output.

People are added through the service the ``users`` command uses; every wait is a
bounded poll, never a blind sleep."""

from __future__ import annotations

import asyncio
import http.client
import re
import signal
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode, urlsplit

import aiohttp
import pytest
from serving import Served, start_serve
from test_serve_bounds import DEADLINE_S, wait_for

from brainview.cli import main
from brainview.errors import ExitCode
from brainview.services.team.accounts import Accounts, default_path

ADA_PW = "correct horse battery"
BOB_PW = "quiet river stones 42"
WRONG = "not-the-password"


@dataclass
class Reply:
    status: int
    headers: list[tuple[str, str]]
    body: str

    def header(self, name: str) -> str | None:
        return next((v for k, v in self.headers if k.lower() == name.lower()), None)

    def cookies(self) -> dict[str, str]:
        """``Set-Cookie`` headers by cookie name (the whole header line)."""
        out = {}
        for k, v in self.headers:
            if k.lower() == "set-cookie":
                out[v.split("=", 1)[0]] = v
        return out


def ask(served: Served, method: str, path: str, *, headers: dict[str, str] | None = None,
        form: dict[str, str] | None = None) -> Reply:  # fmt: skip
    """One HTTP request (no redirects followed, no cookie jar)."""
    url = urlsplit(served.url)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
    body = urlencode(form) if form is not None else None
    hdrs = dict(headers or {})
    if body is not None:
        hdrs.setdefault("Content-Type", "application/x-www-form-urlencoded")
    try:
        conn.request(method, path, body=body, headers=hdrs)
        response = conn.getresponse()
        return Reply(response.status, response.getheaders(), response.read().decode())
    finally:
        conn.close()


def origin(served: Served) -> str:
    return served.url.rstrip("/")


def value(set_cookie: str) -> str:
    return set_cookie.split(";", 1)[0].split("=", 1)[1]


def login_form(served: Served) -> tuple[str, str]:
    """GET /login: the pre-session cookie's value and the form's CSRF field."""
    page = ask(served, "GET", "/login")
    assert page.status == 200
    cookie = value(page.cookies()["bv_login"])
    field = re.search(r"name='csrf' value='([^']+)'", page.body)
    assert field is not None
    return cookie, field.group(1)


def sign_in(served: Served, name: str, password: str, *, extra_cookie: str = "",
            origin_header: str | None = None) -> Reply:  # fmt: skip
    cookie, csrf = login_form(served)
    return ask(
        served,
        "POST",
        "/login",
        headers={
            "Cookie": f"bv_login={cookie}{extra_cookie}",
            "Origin": origin_header or origin(served),
        },
        form={"csrf": csrf, "name": name, "password": password},
    )


def session_of(reply: Reply) -> str:
    assert reply.status == 303, (reply.status, reply.body)
    return value(reply.cookies()["bv_session"])


@pytest.fixture
def team(demo):  # type: ignore[no-untyped-def]
    """The demo project with ada (reviewer) and bob (viewer)."""
    root = demo[0]
    accounts = Accounts(default_path(root / ".spikuit"))
    accounts.add("ada", "reviewer", ADA_PW, now="2026-01-01T00:00:00+00:00")
    accounts.add("bob", "viewer", BOB_PW, now="2026-01-01T00:00:00+00:00")
    return root, accounts


def stop(served: Served) -> tuple[str, str]:
    code, out, err = served.stop(signal.SIGINT)
    assert code == 0 and "Traceback" not in err, err
    return out, err


async def _ws(served: Served, headers: dict[str, str]) -> tuple[int, str]:
    """Try the console's websocket; (HTTP status of a refusal or 101, reason)."""
    async with aiohttp.ClientSession() as client:
        try:
            ws = await client.ws_connect(served.url + "ws", headers=headers)
        except aiohttp.WSServerHandshakeError as err:
            return err.status, err.message
        await ws.close()
        return 101, ""


def test_unsigned_requests_are_refused_before_any_console_starts(team) -> None:  # type: ignore[no-untyped-def]
    served = start_serve(str(team[0]))
    try:
        page = ask(served, "GET", "/")
        assert page.status == 303 and page.header("Location") == "/login"
        assert ask(served, "GET", "/static/js/textual.js").status == 303
        assert ask(served, "GET", "/whoami").status == 303
        assert ask(served, "POST", "/logout", form={"csrf": "x"}).status == 401
        for headers in ({}, {"Cookie": "bv_session=forged"}, {"Authorization": "Bearer nope"}):
            status, _ = asyncio.run(_ws(served, {"Origin": origin(served), **headers}))
            assert status == 401, headers
        assert served.children() == set()
    finally:
        stop(served)


def test_cookie_flags_and_no_session_fixation(team) -> None:  # type: ignore[no-untyped-def]
    served = start_serve(str(team[0]))
    try:
        login = ask(served, "GET", "/login").cookies()["bv_login"]
        assert "HttpOnly" in login and "SameSite=Strict" in login and "Path=/login" in login
        assert "Secure" not in login  # plain http on loopback
        planted = "attacker-chosen-session-id-0123456789abcdef"
        reply = sign_in(served, "ada", ADA_PW, extra_cookie=f"; bv_session={planted}")
        cookie = reply.cookies()["bv_session"]
        for flag in ("HttpOnly", "SameSite=Strict", "Path=/"):
            assert flag in cookie, cookie
        sid = session_of(reply)
        assert sid != planted and len(sid) >= 43
        assert reply.header("Location") == "/"
        assert (
            ask(served, "GET", "/whoami", headers={"Cookie": f"bv_session={planted}"}).status == 303
        )
        me = ask(served, "GET", "/whoami", headers={"Cookie": f"bv_session={sid}"})
        assert me.status == 200 and '"name": "ada"' in me.body and '"role": "reviewer"' in me.body
        again = session_of(sign_in(served, "ada", ADA_PW, extra_cookie=f"; bv_session={sid}"))
        assert again != sid  # a new id at every sign-in; the old one is ended
        assert ask(served, "GET", "/whoami", headers={"Cookie": f"bv_session={sid}"}).status == 303
    finally:
        stop(served)


def test_tls_proxy_makes_cookies_secure(team) -> None:  # type: ignore[no-untyped-def]
    served = start_serve(str(team[0]), "--tls-proxy")
    try:
        assert "Secure" in ask(served, "GET", "/login").cookies()["bv_login"]
        reply = sign_in(served, "ada", ADA_PW)
        assert "Secure" in reply.cookies()["bv_session"]
        page = ask(served, "GET", "/", headers={"Cookie": f"bv_session={session_of(reply)}",
                                                "X-Forwarded-Proto": "https"})  # fmt: skip
        assert page.status == 200 and "wss://" in page.body
    finally:
        stop(served)


def test_csrf_and_origin_are_checked_on_login_and_logout(team) -> None:  # type: ignore[no-untyped-def]
    served = start_serve(str(team[0]))
    try:
        cookie, csrf = login_form(served)
        good = {"name": "ada", "password": ADA_PW}
        cases = [
            ({"Cookie": f"bv_login={cookie}", "Origin": origin(served)}, good),  # no field
            ({"Cookie": f"bv_login={cookie}", "Origin": origin(served)}, {**good, "csrf": "x"}),
            ({"Origin": origin(served)}, {**good, "csrf": csrf}),  # no cookie
            ({"Cookie": f"bv_login={cookie}", "Origin": "http://evil.example"},
             {**good, "csrf": csrf}),
            ({"Cookie": f"bv_login={cookie}"}, {**good, "csrf": csrf}),  # no Origin/Referer
        ]  # fmt: skip
        for headers, form in cases:
            reply = ask(served, "POST", "/login", headers=headers, form=form)
            assert reply.status == 403 and "bv_session" not in reply.cookies(), headers
        sid = session_of(sign_in(served, "ada", ADA_PW))
        page = ask(served, "GET", "/", headers={"Cookie": f"bv_session={sid}"})
        assert "signed in as <b>ada (reviewer)</b>" in page.body
        token = re.search(r"action='/logout'.*?name='csrf' value='([^']+)'", page.body)
        assert token is not None
        me = {"Cookie": f"bv_session={sid}"}
        for headers, form in [
            ({**me, "Origin": origin(served)}, {}),
            ({**me, "Origin": origin(served)}, {"csrf": "wrong"}),
            ({**me, "Origin": "http://evil.example"}, {"csrf": token.group(1)}),
            (me, {"csrf": token.group(1)}),
        ]:
            assert ask(served, "POST", "/logout", headers=headers, form=form).status == 403
            assert ask(served, "GET", "/whoami", headers=me).status == 200
        out = ask(served, "POST", "/logout", headers={**me, "Origin": origin(served)},
                  form={"csrf": token.group(1)})  # fmt: skip
        assert out.status == 303 and out.header("Location") == "/login"
        assert ask(served, "GET", "/whoami", headers=me).status == 303
        referer = sign_in(served, "ada", ADA_PW, origin_header="null")
        assert referer.status == 403  # Origin "null" and no Referer
    finally:
        stop(served)


def test_bearer_tokens_work_until_rotated(team) -> None:  # type: ignore[no-untyped-def]
    root, accounts = team
    first, _ = accounts.issue_token("bob", now="2026-01-02T00:00:00+00:00")
    served = start_serve(str(root))
    try:
        me = ask(served, "GET", "/whoami", headers={"Authorization": f"Bearer {first}"})
        assert me.status == 200 and '"name": "bob"' in me.body and '"via": "token"' in me.body
        headers = {"Origin": origin(served), "Authorization": f"Bearer {first}"}
        assert asyncio.run(_ws(served, headers))[0] == 101
        second, _ = accounts.issue_token("bob", now="2026-01-03T00:00:00+00:00")
        wait_for("the old token to stop", lambda: ask(
            served, "GET", "/whoami", headers={"Authorization": f"Bearer {first}"}
        ).status == 401)  # fmt: skip
        assert asyncio.run(_ws(served, headers))[0] == 401
        ok = ask(served, "GET", "/whoami", headers={"Authorization": f"Bearer {second}"})
        assert ok.status == 200
    finally:
        out, err = stop(served)
    assert first not in out + err and second not in out + err


def test_guessing_is_throttled(team) -> None:  # type: ignore[no-untyped-def]
    served = start_serve(str(team[0]))
    try:
        statuses = [sign_in(served, "ada", f"{WRONG}-{k}").status for k in range(5)]
        assert statuses == [401] * 5
        blocked = sign_in(served, "ada", ADA_PW)  # even the right password now waits
        assert blocked.status == 429 and int(blocked.header("Retry-After") or 0) >= 1
        # this address may still try other names, up to its own (larger) budget
        assert sign_in(served, "nobody-at-all", WRONG).status == 401
    finally:
        stop(served)


def test_each_console_runs_as_its_person(team) -> None:  # type: ignore[no-untyped-def]
    served = start_serve(str(team[0]))
    try:
        for name, password, role in (("ada", ADA_PW, "reviewer"), ("bob", BOB_PW, "viewer")):
            sid = session_of(sign_in(served, name, password))
            env = asyncio.run(_console_env(served, {"Cookie": f"bv_session={sid}"}))
            assert env["BRAINVIEW_AS"] == name and env["BRAINVIEW_ROLE"] == role
            presence = Path(env["BRAINVIEW_PRESENCE"])
            assert (
                presence.name == "presence.db" and presence.parent.stat().st_mode & 0o777 == 0o700
            )
            wait_for("the console to end", lambda: served.children() == set())
    finally:
        stop(served)
    assert not presence.parent.exists()  # removed at shutdown


async def _console_env(served: Served, headers: dict[str, str]) -> dict[str, str]:
    """Open a console; the environment of the process it started."""
    async with aiohttp.ClientSession() as client:
        ws = await client.ws_connect(
            served.url + "ws", headers={"Origin": origin(served), **headers}
        )
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, wait_for, "a console", lambda: len(served.children()) == 1)
        (child,) = served.children()
        # Between the fork and the exec the child still shows the server's environment
        # (and command line): read it once the child is `brainview open` itself.
        await loop.run_in_executor(
            None, wait_for, "the console to exec", lambda: b"\0open\0" in _cmdline(child)
        )
        raw = Path(f"/proc/{child}/environ").read_bytes()
        await ws.close()
    return dict(item.split("=", 1) for item in raw.decode().split("\0") if "=" in item)


def test_a_removed_person_is_signed_out_and_their_console_ends(team) -> None:  # type: ignore[no-untyped-def]
    root, accounts = team
    served = start_serve(str(root))
    try:
        sid = session_of(sign_in(served, "bob", BOB_PW))

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
                accounts.remove("bob")
                while True:
                    msg = await ws.receive(timeout=DEADLINE_S)
                    if msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
                        return ws.close_code

        assert asyncio.run(scenario()) == 1008
        assert ask(served, "GET", "/whoami", headers={"Cookie": f"bv_session={sid}"}).status == 303
        wait_for("the console to end", lambda: served.children() == set())
    finally:
        stop(served)


def test_no_secret_reaches_the_output(team) -> None:  # type: ignore[no-untyped-def]
    root, accounts = team
    token, _ = accounts.issue_token("ada", now="2026-01-02T00:00:00+00:00")
    served = start_serve(str(root))
    try:
        assert sign_in(served, "ada", WRONG).status == 401
        reply = sign_in(served, "ada", ADA_PW)
        sid = session_of(reply)
        page = ask(served, "GET", "/", headers={"Cookie": f"bv_session={sid}"}).body
        csrf = re.search(r"name='csrf' value='([^']+)'", page).group(1)  # type: ignore[union-attr]
        assert (
            ask(served, "GET", "/whoami", headers={"Authorization": f"Bearer {token}"}).status
            == 200
        )
        assert "?" not in (reply.header("Location") or "")
    finally:
        out, err = stop(served)
    for secret in (ADA_PW, WRONG, token, sid, csrf):
        assert secret not in out and secret not in err
    text = default_path(root / ".spikuit").read_text()
    assert ADA_PW not in text and token not in text


def test_public_or_tls_proxy_without_people_is_refused(demo, capsys) -> None:  # type: ignore[no-untyped-def]
    for argv in (["--host", "0.0.0.0", "--public"], ["--tls-proxy"]):
        assert main(["serve", str(demo[0]), "--port", "0", *argv]) == ExitCode.REFUSED
        out, err = capsys.readouterr()
        assert out == "" and len(err.strip().splitlines()) == 1 and "brainview users add" in err
    empty = demo[0] / "nobody.json"
    assert main(["serve", str(demo[0]), "--port", "0", "--users", str(empty)]) == ExitCode.REFUSED
    assert "no people in" in capsys.readouterr().err


def _cmdline(pid: int) -> bytes:
    """The process's command line (empty once it has ended)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""
