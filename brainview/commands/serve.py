"""``brainview serve``: the console as a web page, through textual-serve.

Each browser tab that connects gets its own ``brainview open`` process on the very
brains given here (absolute paths, so the page shows what ``brainview PATH`` would).
The brains are checked before the server starts, with the console's own messages.

The console can change both brains, so the server is careful about who reaches it:

* it listens on a loopback address unless ``--public`` is given (else exit 11);
* on loopback it answers only requests whose ``Host`` is a loopback name, so a web
  page cannot reach it through DNS rebinding;
* the terminal's websocket must come from the page's own origin, so another site
  open in the same browser cannot drive the console (cross-site websocket hijacking).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import copy
import errno
import ipaddress
import logging
import shlex
import signal
import socket
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from urllib.parse import urlsplit

from aiohttp import WSCloseCode, web
from textual_serve.app_service import AppService
from textual_serve.server import Server

from brainview.commands.common import note, paths_of
from brainview.errors import ConflictError, RefusedError, UsageError
from brainview.store.discovery import BrainPaths, discover

DEMO_DIR = Path(tempfile.gettempdir()) / "brainview-demo"
"""Where ``brainview demo`` writes by default; ``serve --demo`` reuses it."""
QUIT_TIMEOUT_S = 5.0
"""How long a session's app may take to quit before it is killed."""
SHUTDOWN_TIMEOUT_S = 10.0
"""aiohttp's bound on waiting for open connections once the sessions were stopped."""
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def serve(args: argparse.Namespace) -> int:
    """``brainview serve [PATH | --user U --agent A | --demo [DIR]] [--host H] [--port P]``."""
    if not is_loopback(args.host) and not args.public:
        raise RefusedError(
            f"{args.host} is not a loopback address; anyone reaching it could change "
            "the brains: add --public to serve there anyway"
        )
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port: expected 0-65535, got {args.port}")
    paths = _demo_paths(args) if args.demo else paths_of(args)
    _check(paths)
    command = app_command(paths, screen=args.screen)
    sock = listen(args.host, args.port)
    url = f"http://{_url_host(args.host)}:{sock.getsockname()[1]}/"
    loopback = is_loopback(args.host)
    if not loopback:
        note(f"--public: anyone who can reach {url} can change these brains")
    print(f"Serving the console at {url} (Ctrl+C stops)", flush=True)
    ConsoleServer(command, sock, url, loopback_only=loopback).run()
    return 0


def is_loopback(host: str) -> bool:
    """``localhost`` or a loopback IP literal (127.0.0.0/8, ``::1``)."""
    name = host.strip().strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def app_command(paths: BrainPaths, *, screen: str | None = None) -> str:
    """The shell command textual-serve runs per session: ``brainview open`` on ``paths``."""
    argv = [sys.executable, "-m", "brainview", "open", "--user", str(paths.user_db.absolute())]
    if paths.agent_db is not None:
        argv += ["--agent", str(paths.agent_db.absolute())]
    if screen:
        argv += ["--screen", screen]
    return "exec " + shlex.join(argv)


def listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket, bound before the server starts (errors are one line)."""
    name = host.strip("[]")
    try:
        family, kind, proto, _, address = socket.getaddrinfo(name, port, type=socket.SOCK_STREAM)[0]
    except socket.gaierror as err:
        raise UsageError(f"--host: cannot resolve {host!r}: {err.strerror}") from None
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as err:
        sock.close()
        if err.errno == errno.EADDRINUSE:
            raise ConflictError(f"{host}:{port} is already in use (try --port 0)") from None
        raise UsageError(f"cannot listen on {host}:{port}: {err.strerror}") from None
    return sock


def _demo_paths(args: argparse.Namespace) -> BrainPaths:
    """Write (or reuse) a demo project like ``brainview demo --no-open``; its paths."""
    if args.user is not None or args.agent is not None:
        raise UsageError("--demo writes its own brains: drop --user / --agent")
    if args.path is not None and args.project is not None:
        raise UsageError("give the demo directory either as PATH or with -C, not both")
    from brainview.commands.basic import demo

    target = Path(args.path or args.project or DEMO_DIR)
    demo(argparse.Namespace(dir=str(target), no_open=True, force=False, seed=42))
    return discover(target)


def _check(paths: BrainPaths) -> None:
    """What ``brainview open`` checks before taking the terminal, with its messages."""
    from brainview.commands.basic import _config
    from brainview.store.light import validate

    validate(paths)
    _config(paths)


def _url_host(host: str) -> str:
    name = host.strip("[]")
    return f"[{name}]" if ":" in name else name


def _host_name(netloc: str) -> str:
    """The host part of a ``Host`` header or origin netloc (no port, no brackets)."""
    return (urlsplit(f"//{netloc}").hostname or "").lower()


class _Session(AppService):
    """One browser tab's app process; stopping it waits for the process to end."""

    async def stop(self) -> None:
        """Ask the app to quit; kill it if it has not ended within ``QUIT_TIMEOUT_S``."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(super().stop(), QUIT_TIMEOUT_S)
        process = self._process
        if process is not None and process.returncode is None:
            try:
                await asyncio.wait_for(process.wait(), QUIT_TIMEOUT_S)
            except TimeoutError:
                process.kill()
                await process.wait()


class ConsoleServer(Server):
    """textual-serve's server with brainview's guards, quiet logs and its own socket."""

    def __init__(self, command: str, sock: socket.socket, url: str, *, loopback_only: bool):
        host, port = sock.getsockname()[:2]
        super().__init__(command, host=host, port=port, title="brainview", public_url=url)
        self.sock = sock
        self.loopback_only = loopback_only
        self.sessions: dict[_Session, web.WebSocketResponse] = {}

    def initialize_logging(self) -> None:
        """Warnings and errors only (no access log), on stderr."""
        logging.basicConfig(level=logging.WARNING, format="brainview serve: %(message)s")

    async def on_startup(self, app: web.Application) -> None:
        """No banner: :func:`serve` printed the URL once the socket was bound."""

    async def on_shutdown(self, app: web.Application) -> None:
        """Quit every session's app and close its websocket (Ctrl+C with tabs open)."""
        sessions = list(self.sessions.items())
        await asyncio.gather(*(session.stop() for session, _ in sessions))
        await asyncio.gather(*(ws.close(code=WSCloseCode.GOING_AWAY) for _, ws in sessions))

    async def _make_app(self) -> web.Application:
        app = await super()._make_app()
        app.middlewares.append(self._guard)
        return app

    @web.middleware
    async def _guard(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """Refuse foreign ``Host`` names on loopback and cross-origin websockets."""
        if self.loopback_only and not is_loopback(_host_name(request.host)):
            raise web.HTTPForbidden(text="brainview serve answers loopback names only")
        origin = request.headers.get("Origin")
        if request.path == "/ws" and origin and urlsplit(origin).netloc != request.host:
            raise web.HTTPForbidden(text="cross-origin websocket refused")
        return await handler(request)

    async def handle_index(self, request: web.Request) -> web.StreamResponse:
        """The page, its URLs pointing at the address the browser used (``Host``)."""
        view = copy.copy(self)
        view.public_url = f"{request.scheme}://{request.host}"
        return await Server.handle_index(view, request)

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """A browser tab connected: run its own app process until either side leaves."""
        websocket = web.WebSocketResponse(heartbeat=15)
        await websocket.prepare(request)
        session = _Session(
            self.command,
            write_bytes=websocket.send_bytes,
            write_str=websocket.send_str,
            close=websocket.close,
            download_manager=self.download_manager,
        )
        self.sessions[session] = websocket
        try:
            await session.start(_size(request, "width", 80), _size(request, "height", 24))
            await self._process_messages(websocket, session)
        finally:
            await session.stop()
            self.sessions.pop(session, None)
            await websocket.close()
        return websocket

    def run(self) -> None:
        """Serve until Ctrl+C / SIGTERM; each session's app is then told to quit."""
        self.initialize_logging()
        loop = asyncio.new_event_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, self.request_exit)
        web.run_app(
            self._make_app(),
            sock=self.sock,
            handle_signals=False,
            loop=loop,
            print=None,
            shutdown_timeout=SHUTDOWN_TIMEOUT_S,
        )


def _size(request: web.Request, name: str, default: int) -> int:
    """The terminal's initial width or height from the websocket URL (bounded)."""
    try:
        return max(1, min(int(request.query.get(name, default)), 1000))
    except ValueError:
        return default
