"""``brainview serve`` without a browser: what it refuses before serving (one line, a
distinct exit code), the command each session runs, the HTTP guards, and a clean stop.

Refusals are checked in-process through :func:`brainview.cli.main` (they end before any
socket is opened); serving runs as a real process on a free loopback port.
"""

from __future__ import annotations

import http.client
import io
import shlex
import signal
import socket
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from serving import Served, start_serve

from brainview.cli import main
from brainview.commands import serve as serve_cmd
from brainview.errors import ExitCode
from brainview.store.discovery import discover


def _main(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def _get(served: Served, path: str, headers: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    """One plain HTTP request to the served console; (status, body)."""
    url = urlsplit(served.url)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=10)
    try:
        conn.request("GET", path, headers=headers or {})
        response = conn.getresponse()
        return response.status, response.read().decode()
    finally:
        conn.close()


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        *(("127.0.0.1", True), ("127.8.9.10", True), ("::1", True), ("[::1]", True)),
        *(("localhost", True), ("LocalHost", True), ("0.0.0.0", False), ("::", False)),
        *(("10.1.2.3", False), ("example.org", False), ("127.0.0.1.nip.io", False)),
    ],
)
def test_what_counts_as_loopback(host: str, loopback: bool) -> None:
    assert serve_cmd.is_loopback(host) is loopback


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.0.2.7", "my-laptop.lan"])
def test_a_non_loopback_host_is_refused_without_public(demo, host: str) -> None:  # type: ignore[no-untyped-def]
    code, out, err = _main("serve", str(demo[0]), "--host", host)
    assert code == int(ExitCode.REFUSED) == 11
    assert out == "" and len(err.strip().splitlines()) == 1
    assert host in err and "--public" in err


def test_bad_paths_fail_like_the_console_before_serving(tmp_path: Path) -> None:
    text = tmp_path / "circuit.db"
    text.write_text("not a database\n" * 20)
    for target, code in ((tmp_path / "missing", ExitCode.NOT_FOUND), (text, ExitCode.NOT_A_BRAIN)):
        served = _main("serve", str(target), "--port", "0")
        opened = _main("open", str(target))
        assert served == opened and served[0] == int(code), served
        assert "Serving" not in served[1] and len(served[2].strip().splitlines()) == 1


def test_a_port_in_use_is_a_one_line_conflict(demo) -> None:  # type: ignore[no-untyped-def]
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, out, err = _main("serve", str(demo[0]), "--port", str(port))
    assert code == int(ExitCode.CONFLICT) and out == ""
    assert err.strip() == f"brainview: 127.0.0.1:{port} is already in use (try --port 0)"


def test_usage_errors(demo) -> None:  # type: ignore[no-untyped-def]
    root = str(demo[0])
    for argv in (
        ["--port", "70000"],
        ["--demo", "--user", f"{root}/.spikuit/circuit.db"],
        ["--screen", "nowhere"],
    ):
        code, out, err = _main("serve", root, *argv)
        assert code == int(ExitCode.USAGE) and out == "", (argv, err)
        assert len(err.strip().splitlines()) == 1


def test_public_serves_beyond_loopback_with_a_warning(demo, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    made: list[dict[str, object]] = []

    class Recorder:
        def __init__(self, command: str, sock: socket.socket, url: str, **kw: object) -> None:
            sock.close()
            made.append({"command": command, "url": url, **kw})

        def run(self) -> None:
            return None

    from brainview.services.team.accounts import Accounts, default_path

    accounts = Accounts(default_path(demo[0] / ".spikuit"))
    accounts.add("ada", "maintainer", "a long enough password", now="2026-01-01T00:00:00Z")
    monkeypatch.setattr(serve_cmd, "ConsoleServer", Recorder)
    monkeypatch.setattr(
        serve_cmd, "listen", lambda host, port: socket.create_server(("127.0.0.1", 0))
    )
    assert main(["serve", str(demo[0]), "--host", "192.0.2.7", "--public", "--port", "0"]) == 0
    out, err = capsys.readouterr()
    assert made and made[0]["loopback_only"] is False and made[0]["url"] in out
    assert err.startswith("brainview: --public: anyone who signs in at http://192.0.2.7:")
    assert made[0]["gate"] is not None  # --public only with sign-in


def test_each_session_runs_brainview_open_on_the_same_brains(tmp_path: Path, make_demo) -> None:  # type: ignore[no-untyped-def]
    root, _ = make_demo(name="a dir with 'quotes' & spaces")
    paths = discover(root)
    command = serve_cmd.app_command(paths, screen="triage")
    assert command.startswith("exec ")
    assert shlex.split(command[len("exec ") :]) == [
        *(sys.executable, "-m", "brainview", "open"),
        *("--user", str(paths.user_db.absolute())),
        *("--agent", str(paths.agent_db.absolute())),  # type: ignore[union-attr]
        *("--screen", "triage"),
    ]


def test_demo_serves_guards_and_stops_cleanly(tmp_path: Path) -> None:
    target = tmp_path / "demo here"
    served = start_serve("--demo", str(target))
    try:
        assert (target / ".spikuit" / "agent" / "circuit.db").is_file()
        assert served.url.startswith("http://127.0.0.1:") and served.children() == set()
        port = urlsplit(served.url).port
        status, page = _get(served, "/", {"Host": f"localhost:{port}"})
        assert status == 200 and f'data-session-websocket-url="ws://localhost:{port}/ws"' in page
        assert _get(served, "/", {"Host": f"attacker.example:{port}"})[0] == 403
        upgrade = {
            "Connection": "Upgrade",
            "Upgrade": "websocket",
            "Sec-WebSocket-Version": "13",
            "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
            "Origin": "http://attacker.example",
        }
        assert _get(served, "/ws", upgrade)[0] == 403
        assert served.children() == set(), "a refused websocket starts no console"
    finally:
        code, out, err = served.stop(signal.SIGINT)
    assert code == 0 and "Traceback" not in out + err, err
    assert err.strip() == f"brainview: demo project written to {target}"


def test_sigterm_stops_cleanly(demo) -> None:  # type: ignore[no-untyped-def]
    served = start_serve(str(demo[0]))
    assert _get(served, "/static/css/xterm.css")[0] == 200
    code, out, err = served.stop(signal.SIGTERM)
    assert (
        code == 0 and err == "" and out == f"Serving the console at {served.url} (Ctrl+C stops)\n"
    )
