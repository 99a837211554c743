"""Every generated doc, from the code, so nothing can drift (tests compare each):

* ``docs/cli-reference.md`` (from the argument parser) —
  ``python -m brainview.docgen > docs/cli-reference.md``
* the pre-rendered help the CLI prints without importing argparse —
  ``python -m brainview.docgen --helptext > brainview/commands/helptext.py``
* ``docs/keys.md`` (from the console's bindings) and ``docs/config.md`` (from
  :mod:`brainview.config`) — ``python -m brainview.docgen --write`` writes all four.
"""

from __future__ import annotations

import ast
import inspect
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import MISSING, fields
from pathlib import Path

from brainview import config as config_module
from brainview.commands.tree import build_parser, leaves
from brainview.errors import ExitCode

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
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
    ExitCode.REFUSED: (
        "refused: serve on a non-loopback --host without --public, a role below the "
        "action's, or a decider deciding their own proposal"
    ),
    ExitCode.DISK_FULL: "disk full mid-write: the transaction rolled back, nothing written",
    ExitCode.UNSAFE_SCHEMA: (
        "unsafe schema: a brain holds triggers, views or other objects Spikuit never "
        "creates; not written (reading works)"
    ),
    ExitCode.BAD_PATH: (
        "bad path: a directory, device, FIFO, socket or dangling/looping symlink where a "
        "brain or an output file belongs"
    ),
    ExitCode.NOTIFY: "the queue's notify command failed (proposals health --notify)",
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


def keys_md() -> str:
    """Every binding by screen, with its id (remap it in ``[keys]``)."""
    out = [
        "# Keys",
        "",
        "Generated from the bindings; do not edit by hand. Remap any key by its id in",
        '`[keys]` of the config (see [config.md](config.md)), e.g. `"triage.accept" = "y"`.',
    ]
    from brainview.tui.keymap import scopes

    for scope, bindings in scopes().items():
        out += ["", f"## {scope}", "", "| key | id | action | what it does |", "|---|---|---|---|"]
        for b in bindings:
            keys = ", ".join(f"`{k.strip()}`" for k in b.key.split(","))
            out.append(f"| {keys} | `{b.id or '—'}` | {b.description} | {b.tooltip or ''} |")
    return "\n".join(out) + "\n"


def _field_docs(cls: type) -> dict[str, str]:
    """Attribute docstrings (the string literal right after each field)."""
    tree = ast.parse(inspect.getsource(cls))
    node = tree.body[0]
    body = node.body if isinstance(node, ast.ClassDef) else []
    docs: dict[str, str] = {}
    for node, nxt in zip(body, body[1:], strict=False):
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and isinstance(nxt, ast.Expr)
            and isinstance(nxt.value, ast.Constant)
            and isinstance(nxt.value.value, str)
        ):
            docs[node.target.id] = " ".join(nxt.value.value.split())
    return docs


def config_md() -> str:
    """Every setting with its type, default and meaning."""
    out = [
        "# Configuration",
        "",
        "Generated from `brainview/config.py`; do not edit by hand.",
        "",
        "brainview reads `$XDG_CONFIG_HOME/brainview/config.toml` (default",
        "`~/.config/brainview/config.toml`), then the project's `.spikuit/brainview.toml`;",
        "the project wins. Unknown sections or keys and bad values stop brainview with one",
        "line naming the file and key (exit code 10).",
    ]
    sections = {
        "review": config_module.ReviewConfig,
        "reflections": config_module.ReflectionsConfig,
        "consolidate": config_module.ConsolidateConfig,
        "ui": config_module.UiConfig,
        "held_back": config_module.HeldBackConfig,
        "queue": config_module.QueueConfig,
        "two_person": config_module.TwoPersonConfig,
    }
    for name, cls in sections.items():
        docs = _field_docs(cls)
        out += ["", f"## [{name}]", "", "| key | type | default | meaning |", "|---|---|---|---|"]
        for f in fields(cls):
            default = f.default_factory() if f.default_factory is not MISSING else f.default
            shown = (
                "none"
                if default is None
                else repr(default).replace("True", "true").replace("False", "false")
            )
            typ = str(f.type).replace(" | ", " or ")
            out.append(f"| `{f.name}` | {typ} | {shown} | {docs.get(f.name, '')} |")
    out += [
        "",
        "## [keys]",
        "",
        "Binding id → key (several keys separated by commas). Ids are listed in",
        "[keys.md](keys.md). Unknown ids, two bindings of one screen on the same key, and",
        "a screen key that hides an app-wide key are refused.",
        "",
        "```toml",
        "[review]",
        'decider = "alice"',
        "record_only = false",
        "",
        "[reflections]",
        "pruning_threshold = 0.7",
        "fading_days = 14",
        "",
        "[ui]",
        'theme = "textual-light"',
        "",
        "[queue]",
        "stale_after_days = 7",
        'notify_command = ["/usr/local/bin/notify-team", "--queue"]',
        "",
        "[keys]",
        '"triage.accept" = "y"',
        '"triage.reject" = "n"',
        "```",
    ]
    return "\n".join(out) + "\n"


def write_all() -> None:
    """Write every generated file in the source tree."""
    (DOCS / "cli-reference.md").write_text(render())
    (ROOT / "brainview" / "commands" / "helptext.py").write_text(render_helptext())
    (DOCS / "keys.md").write_text(keys_md())
    (DOCS / "config.md").write_text(config_md())
    print(
        "wrote docs/cli-reference.md, brainview/commands/helptext.py, docs/keys.md, docs/config.md"
    )


if __name__ == "__main__":
    if "--write" in sys.argv[1:]:
        write_all()
    else:
        sys.stdout.write(render_helptext() if "--helptext" in sys.argv[1:] else render())
