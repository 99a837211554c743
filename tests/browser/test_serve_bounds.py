"""``brainview serve`` stays bounded and quiet: at most ``--max-sessions`` consoles (a
'busy' page and a 1013 close beyond), idle consoles ended after ``--idle-timeout``,
and no traceback — nor any log line — for malformed HTTP requests, bad websocket
handshakes or garbage websocket messages.  Everything talks to 127.0.0.1 only; waits
are bounded polls, never blind sleeps."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import signal
import socket
import time
from collections.abc import Callable
from urllib.parse import urlsplit

import aiohttp
import pytest
from serving import Served, start_serve

from brainview.cli import main
from brainview.errors import ExitCode

DEADLINE_S = 60.0
KEY = "dGhlIHNhbXBsZSBub25jZQ=="


def wait_for(what: str, check: Callable[[], bool], timeout: float = DEADLINE_S) -> None:
    """Poll ``check`` until true (bounded)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if check():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def port_of(served: Served) -> int:
    return int(urlsplit(served.url).port or 0)


def raw(port: int, payload: bytes) -> bytes:
    """Send bytes on a fresh connection; the first line of the answer (b'' if none)."""
    chunks: list[bytes] = []
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        with contextlib.suppress(OSError):  # the server may answer and close mid-send
            sock.sendall(payload)
        with contextlib.suppress(OSError):
            while b"\r\n" not in b"".join(chunks):
                data = sock.recv(4096)
                if not data:
                    break
                chunks.append(data)
    return b"".join(chunks).split(b"\r\n", 1)[0]


def get(port: int, path: str = "/") -> tuple[int, str]:
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, response.read().decode()
    finally:
        conn.close()


def stopped_quietly(served: Served) -> str:
    code, _out, err = served.stop(signal.SIGINT)
    assert code == 0 and "Traceback" not in err, err
    return err


HANDSHAKE = (
    "GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
    "Connection: Upgrade\r\n{extra}\r\n"
)
MALFORMED = [
    b"GET / HTTP/1.1\r\n\r\n",  # no Host header
    b"GET /ws HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n",
    b"garbage\r\n\r\n",
    b"\x00\x01\x02\xff\r\n\r\n",
    b"GET / HTTP/9.9\r\nHost: 127.0.0.1\r\n\r\n",
    b"GET " + b"a" * 20_000 + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: [::1\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: \x01\r\n\r\n",
    b"GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://[zz\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: -5\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03",  # a TLS ClientHello
]
HANDSHAKES = [
    "",  # no key, no version
    "Sec-WebSocket-Version: 13\r\n",
    f"Sec-WebSocket-Key: {KEY}\r\n",
    f"Sec-WebSocket-Version: 99\r\nSec-WebSocket-Key: {KEY}\r\n",
    "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: not-base64!\r\n",
    f"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: {KEY}\r\nOrigin: http://[::1\r\n",
]


def test_malformed_requests_get_answers_and_no_log(demo) -> None:  # type: ignore[no-untyped-def]
    served = start_serve(str(demo[0]))
    try:
        port = port_of(served)
        rng = random.Random(15)
        fuzz = [
            bytes(rng.randrange(256) for _ in range(rng.randrange(1, 300))) + b"\r\n\r\n"
            for _ in range(60)
        ]
        fuzz += [b"GET /" + bytes(rng.randrange(32, 127) for _ in range(40)) + b" HTTP/1.1\r\n"
                 + b"Host: 127.0.0.1\r\n\r\n" for _ in range(20)]  # fmt: skip
        extras = [HANDSHAKE.format(port=port, extra=e).encode() for e in HANDSHAKES]
        for payload in MALFORMED + extras + fuzz:
            first = raw(port, payload)
            assert b" 500 " not in first, (payload[:60], first)
        for payload in MALFORMED[:2] + extras:
            assert raw(port, payload).split(b" ")[1:2] in ([b"400"], [b"403"]), payload[:60]
        assert get(port)[0] == 200, "still serving"
        assert served.children() == set(), "no malformed request starts a console"
    finally:
        err = stopped_quietly(served)
    assert err == "", err


async def _messages(url: str, send: list[object]) -> list[object]:
    """Open the terminal's websocket, send garbage, then a ping: the pong proves the
    session survived; returns what came back as text."""
    got: list[object] = []
    async with aiohttp.ClientSession() as http, http.ws_connect(url + "ws") as ws:
        for item in send:
            if isinstance(item, bytes):
                await ws.send_bytes(item)
            else:
                await ws.send_str(item if isinstance(item, str) else json.dumps(item))
        await ws.send_str(json.dumps(["ping", "alive"]))
        end = time.monotonic() + DEADLINE_S
        while time.monotonic() < end:
            msg = await ws.receive(timeout=DEADLINE_S)
            if msg.type == aiohttp.WSMsgType.TEXT:
                got.append(json.loads(msg.data))
                if got[-1] == ["pong", "alive"]:
                    break
            elif msg.type != aiohttp.WSMsgType.BINARY:
                raise AssertionError(f"websocket ended: {msg.type} {msg.extra}")
    return got


def test_garbage_websocket_messages_are_ignored(demo) -> None:  # type: ignore[no-untyped-def]
    served = start_serve(str(demo[0]))
    garbage: list[object] = [
        "not json", "{", "[]", "{}", "null", "42", '"stdin"', "[1, 2]",
        ["stdin"], ["stdin", 5], ["stdin", None], ["resize"], ["resize", "big"],
        ["resize", {"width": "80", "height": 24}], ["resize", {"width": True, "height": 2}],
        ["resize", {"width": 10**30, "height": -(10**30)}], ["ping", {"x": 1}],
        ["unknown", 1], ["focus"], ["blur", 1], b"\x00\xff binary", "x" * 60_000,
    ]  # fmt: skip
    try:
        got = asyncio.run(_messages(served.url, garbage))
        assert got[-1] == ["pong", "alive"]
        wait_for("the console to end after the tab left", lambda: served.children() == set())
    finally:
        err = stopped_quietly(served)
    assert "Error" not in err and "error" not in err, err


def test_consoles_are_capped_with_a_busy_page(demo) -> None:  # type: ignore[no-untyped-def]
    served = start_serve(str(demo[0]), "--max-sessions", "2")
    port = port_of(served)

    async def scenario() -> tuple[int | None, str, int, str]:
        async with aiohttp.ClientSession() as http:
            first = await http.ws_connect(served.url + "ws")
            second = await http.ws_connect(served.url + "ws")
            loop = asyncio.get_running_loop()
            await loop.run_in_executor(
                None, wait_for, "two consoles", lambda: len(served.children()) == 2
            )
            third = await http.ws_connect(served.url + "ws")
            closing = await third.receive(timeout=DEADLINE_S)
            status, page = await loop.run_in_executor(None, get, port, "/")
            await first.close()
            await loop.run_in_executor(
                None, wait_for, "a free slot", lambda: get(port, "/")[0] == 200
            )
            await second.close()
            assert closing.type == aiohttp.WSMsgType.CLOSE, closing
            return third.close_code, str(closing.extra), status, page

    try:
        code, reason, status, page = asyncio.run(scenario())
        assert code == 1013 and "consoles are in use" in reason
        assert status == 503 and "all 2 consoles" in page and "<script" not in page
        wait_for("every console to end", lambda: served.children() == set())
    finally:
        err = stopped_quietly(served)
    assert err == "", err


def test_an_idle_console_is_ended(demo) -> None:  # type: ignore[no-untyped-def]
    served = start_serve(str(demo[0]), "--idle-timeout", "3")

    async def scenario() -> tuple[int | None, str]:
        async with aiohttp.ClientSession() as http, http.ws_connect(served.url + "ws") as ws:
            end = time.monotonic() + DEADLINE_S
            while time.monotonic() < end:  # terminal output until the server closes
                msg = await ws.receive(timeout=DEADLINE_S)
                if msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
                    return ws.close_code, str(msg.extra)
            raise AssertionError("the idle console was not ended")

    try:
        code, reason = asyncio.run(scenario())
        assert code == 1001 and "idle for 3 s" in reason
        wait_for("the idle console to end", lambda: served.children() == set())
    finally:
        err = stopped_quietly(served)
    assert err == "", err


@pytest.mark.parametrize(
    "argv",
    [
        ["--max-sessions", "0"],
        ["--max-sessions", "100000"],
        ["--idle-timeout", "nan"],
        ["--idle-timeout", "-1"],
        ["--idle-timeout", "inf"],
    ],
)
def test_bad_bounds_are_usage_errors(demo, argv: list[str], capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["serve", str(demo[0]), "--port", "0", *argv]) == ExitCode.USAGE
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1 and argv[0] in err
