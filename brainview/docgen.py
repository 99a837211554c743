"""Generate from the argument parser, so nothing can drift (tests compare both):

* ``docs/cli-reference.md`` — ``python -m brainview.docgen > docs/cli-reference.md``
* the pre-rendered help the CLI prints without importing argparse —
  ``python -m brainview.docgen --helptext > brainview/commands/helptext.py``
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from brainview.commands.tree import build_parser, leaves
from brainview.errors import ExitCode

REFERENCE_COLUMNS = 100
HELP_WIDTH = 80

EXIT_MEANINGS = {
    ExitCode.OK: "success",
    ExitCode.USAGE: (
        "usage error: unknown command or flag, bad flag value, bad BRAINVIEW_* environment value"
    ),
    ExitCode.NOT_FOUND: "not found: path, .spikuit/, agent brain, proposal, decision, reflection",
    ExitCode.INVALID_INPUT: "invalid input: malformed, hostile or refused proposal JSON",
    ExitCode.CONFLICT: (
        "conflict: decided or undone elsewhere, not pending, undo blocked, already exists "
        "(--out without --force), a brain replaced or deleted while open"
    ),
    ExitCode.LOCKED: "locked / busy brain (BRAINVIEW_BUSY_TIMEOUT seconds, default 5)",
    ExitCode.READ_ONLY: "read-only: file mode or permissions forbid a needed write",
    ExitCode.NOT_A_BRAIN: "not a brain: not SQLite, truncated, corrupt",
    ExitCode.UNKNOWN_SCHEMA: "unknown schema: no neuron/synapse/spike tables or columns",
    ExitCode.CONFIG: "configuration error (brainview.toml)",
    ExitCode.REFUSED: "refused for safety: serve on a non-loopback --host without --public",
    ExitCode.DISK_FULL: "disk full mid-write: the transaction rolled back, nothing written",
    ExitCode.UNSAFE_SCHEMA: (
        "unsafe schema: a brain holds triggers, views or other objects Spikuit never "
        "creates; not written (reading works)"
    ),
    ExitCode.BAD_PATH: (
        "bad path: a directory, device, FIFO, socket or dangling/looping symlink where a "
        "brain or an output file belongs"
    ),
    ExitCode.INTERNAL: "internal error (one line, never a traceback)",
}


@contextmanager
def _columns(n: int) -> Iterator[None]:
    """argparse wraps to ``COLUMNS``; pin it while rendering."""
    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(n)
    try:
        yield
    finally:
        if old is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = old


def help_texts(columns: int = HELP_WIDTH) -> dict[str, str]:
    """``--help`` output of every (sub)command, keyed by its path (``""`` = top level)."""
    with _columns(columns):
        return {path: p.format_help().rstrip("\n") for path, p in leaves(build_parser()).items()}


def render() -> str:
    """The CLI reference as Markdown."""
    out = [
        "# brainview CLI reference",
        "",
        "Generated from the parser (`python -m brainview.docgen > docs/cli-reference.md`);",
        "do not edit by hand. Shapes of `--json` output and the exit codes are explained in",
        "[cli.md](cli.md); the proposal format in [proposal-format.md](proposal-format.md).",
    ]
    for path, text in help_texts(REFERENCE_COLUMNS).items():
        out += ["", f"## brainview {path}".rstrip(), "", "```text", text, "```"]
    out += ["", "## Exit codes", "", "| code | name | meaning |", "|---|---|---|"]
    out += [f"| {int(c)} | {c.name.lower()} | {EXIT_MEANINGS[c]} |" for c in ExitCode]
    return "\n".join(out) + "\n"


def _quoted(s: str) -> str:
    """A double-quoted Python literal (the house style), escapes as ``repr`` makes them."""
    body = repr(s)
    if body.startswith('"'):
        return body
    return '"' + body[1:-1].replace("\\'", "'").replace('"', '\\"') + '"'


def render_helptext() -> str:
    """Python source of :mod:`brainview.commands.helptext`."""
    lines = [
        '"""Pre-rendered ``--help`` text (generated; do not edit).',
        "",
        "Regenerate: ``python -m brainview.docgen --helptext > brainview/commands/helptext.py``",
        "(a test fails when it is out of date).  Printed by :mod:`brainview.cli` without",
        'importing argparse, for terminals at least ``WIDTH`` columns wide."""',
        "",
        f"WIDTH = {HELP_WIDTH}",
        "",
        "HELP = {",
    ]
    for path, text in help_texts(HELP_WIDTH).items():
        lines.append(f"    {_quoted(path)}: (")
        parts = text.split("\n")
        for i, part in enumerate(parts):
            lines.append(f"        {_quoted(part + chr(10) if i < len(parts) - 1 else part)}")
        lines.append("    ),")
    lines.append("}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(render_helptext() if "--helptext" in sys.argv[1:] else render())
