"""The headless face: argument parsing and dispatch.

Imports nothing heavy at module level so ``brainview --help`` stays fast; each
command imports the core it needs when it runs.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence

from brainview import __version__
from brainview.errors import BrainviewError, ExitCode

Handler = Callable[[argparse.Namespace], int]


def _add_location(p: argparse.ArgumentParser, *, path: bool = True) -> None:
    if path:
        p.add_argument(
            "path", nargs="?", help="project dir, .spikuit dir or circuit.db (default: walk up)"
        )
    p.add_argument("--user", help="user brain: path or sqlite:/// URL")
    p.add_argument("--agent", help="agent brain: path or sqlite:/// URL")


def build_parser() -> argparse.ArgumentParser:
    """The whole command tree (the CLI reference in docs/ is generated from it)."""
    parser = argparse.ArgumentParser(
        prog="brainview",
        description="Keep an AI agent's self-learnt lessons honest: triage curator proposals, "
        "browse reflection communities, invalidate adversarial reflections.",
    )
    parser.add_argument("--version", action="version", version=f"brainview {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("open", help="open the console (the default command)")
    _add_location(p)
    p.add_argument("--screen", choices=["overview", "triage"], help="screen to start on")

    p = sub.add_parser("demo", help="write realistic demo brains and open them")
    p.add_argument("dir", nargs="?", help="where to write the demo project (default: a temp dir)")
    p.add_argument("--no-open", action="store_true", help="only write the project")
    p.add_argument("--force", action="store_true", help="replace an existing demo in DIR")
    p.add_argument("--seed", type=int, default=42, help="generator seed (default 42)")

    p = sub.add_parser("stats", help="vital signs of both brains")
    _add_location(p)
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")

    p = sub.add_parser("init-agent", help="create an empty agent brain next to the user brain")
    _add_location(p)
    return parser


COMMANDS = {"open", "demo", "stats", "init-agent"}


def _handler(name: str) -> Handler:
    from brainview import commands

    return getattr(commands, "cmd_" + name.replace("-", "_"))


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: returns the process exit code."""
    args_in = list(sys.argv[1:] if argv is None else argv)
    if not args_in or (
        args_in[0] not in COMMANDS and args_in[0] not in ("-h", "--help", "--version")
    ):
        args_in = ["open", *args_in]
    parser = build_parser()
    try:
        args = parser.parse_args(args_in)
    except SystemExit as exc:
        return int(exc.code or 0)
    want_json = bool(getattr(args, "json", False))
    try:
        return _handler(args.command)(args)
    except BrainviewError as err:
        _report(err.to_dict(), err.message, want_json)
        return int(err.code)
    except KeyboardInterrupt:
        return 130
    except Exception as err:  # noqa: BLE001 - last line of defence: one line, no traceback
        from brainview.core.safe_text import one_line

        msg = f"internal error: {type(err).__name__}: {one_line(str(err), 300)}"
        _report({"error": "internal", "message": msg, "exit_code": 70}, msg, want_json)
        return int(ExitCode.INTERNAL)


def _report(payload: dict[str, object], message: str, want_json: bool) -> None:
    from brainview.core.safe_text import one_line

    if want_json:
        payload = dict(payload, message=one_line(str(payload["message"]), 500))
        print(json.dumps(payload), file=sys.stderr)
    else:
        print(f"brainview: {one_line(message, 500)}", file=sys.stderr)


if __name__ == "__main__":
    raise SystemExit(main())
