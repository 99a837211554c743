"""The headless face: the entry point, fast help, dispatch and one-line errors.

``brainview --help`` (and ``brainview COMMAND [ACTION] --help``) must start about as
fast as Python itself, so this module imports nothing beyond ``os`` and ``sys`` (both
loaded by the interpreter anyway) at module level — not even ``typing`` or
``__future__``.  Help is pre-rendered from the parser into
:mod:`brainview.commands.helptext` (``python -m brainview.docgen --helptext``, kept
current by a test) and printed without importing argparse; terminals narrower than
the pre-rendered width get argparse's own rendering.  Everything else builds the
parser (:mod:`brainview.commands.tree`) and imports only the handler it runs.
"""

import os
import sys

HELP_FLAGS = ("-h", "--help")
TOP_FLAGS = (*HELP_FLAGS, "--version")
COMMANDS = {
    *("open", "demo", "stats", "init-agent", "propose", "proposals", "reflect"),
    *("communities", "export", "serve", "recall", "outcome", "mcp", "simulate"),
    *("learnings", "users", "recover", "held-back"),
}


def _terminal_columns() -> int:
    """Columns argparse would format for (``shutil.get_terminal_size`` without shutil)."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns > 0:
        return columns
    if sys.__stdout__ is None:  # no console at all (pythonw, a detached service)
        return 80
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns
    except (AttributeError, ValueError, OSError):
        return 80


def _fast_help(argv: list[str]) -> str | None:
    """Pre-rendered text for ``[COMMAND [ACTION]] --help`` / ``--version``, else ``None``."""
    if argv == ["--version"]:
        from brainview import __version__

        return f"brainview {__version__}"
    if not argv or argv[-1] not in HELP_FLAGS or len(argv) > 3:
        return None
    words = argv[:-1]
    if any(w.startswith("-") for w in words):
        return None
    from brainview.commands.helptext import HELP, WIDTH

    if _terminal_columns() < WIDTH:
        return None
    return HELP.get(" ".join(words))


def main(argv: list[str] | tuple[str, ...] | None = None) -> int:
    """Entry point: returns the process exit code."""
    args_in = list(sys.argv[1:] if argv is None else argv)
    fast = _fast_help(args_in)
    if fast is not None:
        sys.stdout.write(fast + "\n")
        return 0
    if not args_in or (args_in[0] not in COMMANDS and args_in[0] not in TOP_FLAGS):
        args_in = ["open", *args_in]
    want_json = "--json" in args_in
    from brainview.errors import BrainviewError, ExitCode

    try:
        from brainview.commands.tree import build_parser

        try:
            args = build_parser().parse_args(args_in)
        except SystemExit as exc:  # --help / --version printed by argparse
            return int(exc.code or 0)
        from brainview.commands import run

        return run(args)
    except BrainviewError as err:
        _report(err.to_dict(), err.message, want_json)
        return int(err.code)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `brainview export … | head`: the reader left; not an error
        _silence_stdout()
        return 0
    except Exception as err:  # noqa: BLE001 - last line of defence: one line, no traceback
        from brainview.core.safe_text import one_line

        msg = f"internal error: {type(err).__name__}: {one_line(str(err), 300)}"
        _report({"error": "internal", "message": msg, "exit_code": 70}, msg, want_json)
        return int(ExitCode.INTERNAL)


def _silence_stdout() -> None:
    """After a broken pipe, point stdout at /dev/null so the exit flush stays quiet."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _report(payload: dict[str, object], message: str, want_json: bool) -> None:
    import json

    from brainview.core.safe_text import one_line

    if want_json:
        payload = dict(payload, message=one_line(str(payload["message"]), 500))
        print(json.dumps(payload), file=sys.stderr)
    else:
        print(f"brainview: {one_line(message, 500)}", file=sys.stderr)


if __name__ == "__main__":
    raise SystemExit(main())
