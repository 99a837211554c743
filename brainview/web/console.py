"""The server behind ``brainview serve``: textual-serve's, with brainview's guards.

One :class:`ConsoleServer` on a socket bound by :func:`brainview.commands.serve.listen`;
each websocket is one :class:`_Session` (a ``brainview open`` process).  What it
refuses and bounds is described in :mod:`brainview.commands.serve`; the limits and the
defensive message parsing live in :mod:`brainview.web.limits`.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import logging
import signal
import socket
from collections.abc import Awaitable, Callable

from aiohttp import WSCloseCode, WSMsgType, web
from textual_serve.app_service import AppService
from textual_serve.server import Server

import brainview.web.slots as serve_slots
from brainview.core.identity import NAME_ENV, PRESENCE_ENV, ROLE_ENV, Role
from brainview.web.auth import VISITOR, Gate, Visitor
from brainview.web.hosts import host_name, is_loopback, origin_netloc
from brainview.web.limits import (
    ACTIVITY,
    MAX_MESSAGE,
    TRY_AGAIN_LATER,
    Limits,
    OneLine,
    envelope,
    full_page,
)
from brainview.web.pages import FORM_PAGE, console_bar, security_headers

QUIT_TIMEOUT_S = 5.0
"""How long a session's app may take to quit before it is killed."""
WATCH_EVERY_S = 2.0
"""How often open consoles are checked against sign-out, expiry and removed people."""
SHUTDOWN_TIMEOUT_S = 10.0
"""aiohttp's bound on waiting for open connections once the sessions were stopped."""
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class _Session(AppService):
    """One browser tab's app process; stopping it waits for the process to end.

    ``identity_env`` (set before it starts, for a signed-in person) replaces whatever
    identity variables the server itself inherited in the process's environment."""

    identity_env: dict[str, str] | None = None

    def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        environment = super()._build_environment(width=width, height=height)
        if self.identity_env is not None:
            for name in (NAME_ENV, ROLE_ENV, PRESENCE_ENV):
                environment.pop(name, None)
            environment.update(self.identity_env)
        return environment

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
    """textual-serve's server with brainview's guards, bounds, quiet logs and its own socket."""

    def __init__(
        self,
        command: str,
        sock: socket.socket,
        url: str,
        *,
        loopback_only: bool,
        limits: Limits | None = None,
        gate: Gate | None = None,
    ):
        host, port = sock.getsockname()[:2]
        super().__init__(command, host=host, port=port, title="brainview", public_url=url)
        self.sock = sock
        self.loopback_only = loopback_only
        self.limits = limits or Limits()
        self.sessions: dict[_Session, web.WebSocketResponse] = {}
        self.gate = gate
        """Sign-in (``None``: no users file, one person on loopback as before)."""
        self.owners: dict[_Session, Visitor] = {}
        self._watcher: asyncio.Task[None] | None = None

    def initialize_logging(self) -> None:
        """Warnings and errors only (no access log), on stderr, one line each."""
        handler = logging.StreamHandler()
        handler.addFilter(OneLine())
        handler.setFormatter(logging.Formatter("brainview serve: %(message)s"))
        logging.basicConfig(level=logging.WARNING, handlers=[handler])

    async def on_startup(self, app: web.Application) -> None:
        """No banner: :func:`serve` printed the URL once the socket was bound.  With
        sign-in, a watcher ends consoles whose person signed out or was removed."""
        if self.gate is not None:
            self._watcher = asyncio.get_running_loop().create_task(self._watch())

    async def _watch(self) -> None:
        gate = self.gate
        assert gate is not None
        while True:
            await asyncio.sleep(WATCH_EVERY_S)
            for session, visitor in list(self.owners.items()):
                ws = self.sessions.get(session)
                try:
                    if ws is not None and not gate.still_valid(visitor):
                        await ws.close(code=WSCloseCode.POLICY_VIOLATION, message=b"signed out")
                except Exception as err:  # noqa: BLE001 - one line; keep watching the others
                    logging.getLogger("brainview.serve").error("sign-out watch", exc_info=err)

    async def on_shutdown(self, app: web.Application) -> None:
        """Quit every session's app and close its websocket (Ctrl+C with tabs open)."""
        if self._watcher is not None:
            self._watcher.cancel()
        sessions = list(self.sessions.items())
        await asyncio.gather(*(session.stop() for session, _ in sessions))
        await asyncio.gather(*(ws.close(code=WSCloseCode.GOING_AWAY) for _, ws in sessions))

    async def _make_app(self) -> web.Application:
        app = await super()._make_app()
        app.on_response_prepare.append(security_headers)
        app.middlewares.append(self._guard)
        if self.gate is not None:
            app.middlewares.append(self.gate.middleware)
            app.add_routes(self.gate.routes())
        return app

    @web.middleware
    async def _guard(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """Refuse foreign ``Host`` names on loopback and cross-origin websockets; any
        unexpected error is one log line and a plain 500, never a traceback."""
        behind_proxy = self.gate is not None and self.gate.tls_proxy
        if self.loopback_only and not behind_proxy and not is_loopback(host_name(request.host)):
            raise web.HTTPForbidden(text="brainview serve answers loopback names only")
        origin = request.headers.get("Origin")
        if request.path == "/ws" and origin and origin_netloc(origin) != request.host:
            raise web.HTTPForbidden(text="cross-origin websocket refused")
        try:
            return await handler(request)
        except (web.HTTPException, asyncio.CancelledError):
            raise
        except Exception as err:  # noqa: BLE001 - one line, the client gets a plain 500
            logging.getLogger("brainview.serve").error(
                "error on %s %s", request.method, request.rel_url.path, exc_info=err
            )
            raise web.HTTPInternalServerError(text="brainview serve: internal error") from None

    @property
    def full(self) -> bool:
        """Whether every console slot is taken."""
        return len(self.sessions) >= self.limits.max_sessions

    def admits(self, role: Role | None) -> bool:
        """Whether a console for ``role`` may start now (:mod:`serve_slots`)."""
        held = [v.role if (v := self.owners.get(s)) else None for s in self.sessions]
        return serve_slots.admits(role, held, self.limits.max_sessions)

    async def handle_index(self, request: web.Request) -> web.StreamResponse:
        """The page, its URLs pointing at the address the browser used (``Host``); a
        short notice (503) instead while every console this person may open is in use."""
        visitor: Visitor | None = request.get(VISITOR)
        role = visitor.role if visitor is not None else None
        if not self.admits(role):
            return full_page(self.limits, role)
        view = copy.copy(self)
        scheme = self.gate.scheme(request) if self.gate is not None else request.scheme
        view.public_url = f"{scheme}://{request.host}"
        page = await Server.handle_index(view, request)
        if visitor is None or not isinstance(page, web.Response) or page.text is None:
            return page
        csrf = visitor.session.csrf if visitor.session is not None else None
        text = page.text.replace(
            "</body>", console_bar(visitor.name, visitor.role, csrf) + "</body>", 1
        )
        return web.Response(
            text=text, content_type="text/html", charset="utf-8",
            headers=FORM_PAGE,
        )  # fmt: skip

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """A browser tab connected: run its own app process until either side leaves,
        or the tab has been idle too long.  When full, close at once (1013)."""
        websocket = web.WebSocketResponse(heartbeat=15, max_msg_size=MAX_MESSAGE)
        visitor: Visitor | None = request.get(VISITOR)
        role = visitor.role if visitor is not None else None
        if not self.admits(role):
            await websocket.prepare(request)
            reason = serve_slots.refusal(role, self.limits.max_sessions)
            await websocket.close(code=TRY_AGAIN_LATER, message=reason.encode())
            return websocket

        async def close() -> None:
            await websocket.close()

        session = _Session(
            self.command,
            write_bytes=websocket.send_bytes,
            write_str=websocket.send_str,
            close=close,
            download_manager=self.download_manager,
        )
        if visitor is not None and self.gate is not None:
            session.identity_env = self.gate.identity(visitor).env()
            self.owners[session] = visitor
        self.sessions[session] = websocket  # the slot is taken before the first await
        try:
            await websocket.prepare(request)
            await session.start(_size(request, "width", 80), _size(request, "height", 24))
            if await self._converse(websocket, session):
                reason = f"idle for {self.limits.idle_timeout:g} s: reload to start again"
                await websocket.close(code=WSCloseCode.GOING_AWAY, message=reason.encode())
        finally:
            await session.stop()
            self.sessions.pop(session, None)
            self.owners.pop(session, None)
            if websocket.prepared:  # a bad handshake never became a websocket
                await websocket.close()
        return websocket

    async def _converse(self, websocket: web.WebSocketResponse, session: _Session) -> bool:
        """Relay the tab's messages to its app until the socket closes (``False``) or
        the tab was idle for ``idle_timeout`` seconds (``True``).  Malformed messages
        are ignored."""
        loop = asyncio.get_running_loop()
        idle = self.limits.idle_timeout
        last_input = loop.time()
        while True:
            wait = None if not idle else last_input + idle - loop.time()
            if wait is not None and wait <= 0:
                return True
            try:
                message = await websocket.receive(timeout=wait)
            except TimeoutError:
                continue
            if message.type in (WSMsgType.CLOSE, WSMsgType.CLOSING, WSMsgType.CLOSED):
                return False
            if message.type == WSMsgType.ERROR:
                return False
            parsed = envelope(message.data) if message.type == WSMsgType.TEXT else None
            if parsed is None:
                continue
            kind, data = parsed
            if kind in ACTIVITY:
                last_input = loop.time()
            if kind == "stdin":
                await session.send_bytes(data.encode("utf-8", "replace"))
            elif kind == "resize":
                await session.set_terminal_size(*data)
            elif kind == "ping":
                await websocket.send_json(["pong", data])
            elif kind == "blur":
                await session.blur()
            else:
                await session.focus()

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
