"""``brainview mcp``: curator tools over the Model Context Protocol, on stdin/stdout.

The brains are located and checked first, with the console's messages, so a wrong path
is one line on stderr and an exit code before any client connects.  Then the server
(:mod:`brainview.mcp.server`, which loads the ``mcp`` SDK) answers on stdio until the
client closes stdin.  Every tool call opens the brains for itself (read-only unless it
queues proposals) and closes them: a brain restored, or an agent brain created, while
the server runs is seen by the next call.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from brainview.commands.common import note, now, paths_of
from brainview.errors import UsageError

if TYPE_CHECKING:
    import argparse

MAX_RUNTIME = 128


def _runtime(value: str | None) -> str | None:
    from brainview.core.safe_text import clean

    if value is None:
        return None
    if not value.strip() or len(value) > MAX_RUNTIME or clean(value, multiline=False) != value:
        raise UsageError(f"--runtime: must be printable text of at most {MAX_RUNTIME} characters")
    return value


def mcp(args: argparse.Namespace) -> int:
    """``brainview mcp [PATH | -C PATH | --user U --agent A] [--runtime NAME]``."""
    from brainview.store.light import validate

    runtime = _runtime(args.runtime)
    paths = paths_of(args)
    validate(paths)
    now()  # a bad BRAINVIEW_NOW is a usage error now, not on every call
    if sys.stdin.isatty():
        note("speaking MCP on stdin/stdout: register this command with an MCP client")
        note("(docs/curator.md, 'Use brainview over MCP'); Ctrl+D or Ctrl+C stops")
    from brainview.mcp.server import run

    run(paths, runtime=runtime, clock=now)
    return 0
