"""``brainview serve``: the console as a web page, through textual-serve.

Each browser tab that connects gets its own ``brainview open`` process on the very
brains given here (absolute paths, so the page shows what ``brainview PATH`` would).
The brains are checked before the server starts, with the console's own messages.

The console can change both brains, so the server is careful about who reaches it:

* it listens on a loopback address unless ``--public`` is given (else exit 11);
* on loopback it answers only requests whose ``Host`` is a loopback name, so a web
  page cannot reach it through DNS rebinding;
* the terminal's websocket must come from the page's own origin, so another site
  open in the same browser cannot drive the console (cross-site websocket hijacking);
* it runs at most ``--max-sessions`` consoles, ends idle ones, ignores malformed
  messages and logs no traceback (:mod:`brainview.web.limits`);
* with a users file holding people (``brainview users add``; ``--users FILE``), every
  request needs a signed-in session or a bearer token, and each console runs as the
  person who opened it (:mod:`brainview.web.auth`, docs/team.md).  Beyond
  loopback (``--public``) or behind a TLS proxy (``--tls-proxy``) sign-in is required.
"""

from __future__ import annotations

import argparse
import errno
import shlex
import shutil
import socket
import sys
import tempfile
from pathlib import Path

from brainview.commands.common import note, paths_of
from brainview.errors import ConflictError, RefusedError, UsageError
from brainview.store.discovery import BrainPaths, discover
from brainview.web.console import ConsoleServer, is_loopback
from brainview.web.limits import limits_of

__all__ = ["ConsoleServer", "app_command", "is_loopback", "listen", "serve"]

DEMO_DIR = Path(tempfile.gettempdir()) / "brainview-demo"
"""Where ``brainview demo`` writes by default; ``serve --demo`` reuses it."""


def serve(args: argparse.Namespace) -> int:
    """``brainview serve [PATH | --user U --agent A | --demo [DIR]] [--host H] [--port P]``."""
    if not is_loopback(args.host) and not args.public:
        raise RefusedError(
            f"{args.host} is not a loopback address; anyone reaching it could change "
            "the brains: add --public to serve there anyway"
        )
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port: expected 0-65535, got {args.port}")
    limits = limits_of(args.max_sessions, args.idle_timeout)
    paths = _demo_paths(args) if args.demo else paths_of(args)
    _check(paths)
    users = _users_file(args, paths)
    loopback = is_loopback(args.host)
    if users is None and (not loopback or args.tls_proxy):
        why = "--tls-proxy" if loopback else "--public"
        raise RefusedError(
            f"{why} needs sign-in: add people first with "
            "`brainview users add NAME --role ROLE` (or give --users FILE)"
        )
    command = app_command(paths, screen=args.screen)
    sock = listen(args.host, args.port)
    url = f"http://{_url_host(args.host)}:{sock.getsockname()[1]}/"
    if not loopback:
        note(f"--public: anyone who signs in at {url} can change these brains")
    presence = Path(tempfile.mkdtemp(prefix="brainview-serve-")) if users is not None else None
    try:
        gate = None
        if users is not None and presence is not None:
            from brainview.web.auth import Gate

            gate = Gate(users, tls_proxy=args.tls_proxy, presence=str(presence / "presence.db"))
            note(f"sign-in required ({len(gate.snapshot.accounts)} people in {users})")
        print(f"Serving the console at {url} (Ctrl+C stops)", flush=True)
        server = ConsoleServer(command, sock, url, loopback_only=loopback, limits=limits, gate=gate)
        server.run()
    finally:
        if presence is not None:
            shutil.rmtree(presence, ignore_errors=True)
    return 0


def _users_file(args: argparse.Namespace, paths: BrainPaths) -> Path | None:
    """The users file to sign in against: ``--users FILE`` (which must hold people), else
    the project's when it holds people; ``None`` means no sign-in (loopback only)."""
    from brainview.services.team.accounts import Accounts, default_path

    given = getattr(args, "users", None)
    path = Path(given) if given else default_path(paths.spikuit_dir)
    if not Accounts(path).load().accounts:
        if given:
            raise RefusedError(
                f"no people in {path}: add them with `brainview users add NAME --role ROLE "
                f"--file {path}`"
            )
        return None
    return path.absolute()


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
