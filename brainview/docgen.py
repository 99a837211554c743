"""Generate ``docs/cli-reference.md`` from the argument parser (a test keeps it current).

Run: ``python -m brainview.docgen > docs/cli-reference.md``
"""

from __future__ import annotations

import argparse
import os

from brainview.cli import build_parser
from brainview.errors import ExitCode


def render() -> str:
    """The CLI reference as Markdown."""
    os.environ["COLUMNS"] = "100"  # argparse wraps to the terminal; fix it for stable docs
    parser = build_parser()
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    out = ["# brainview CLI reference", "", "Generated from the parser; do not edit by hand.", ""]
    out += ["```text", parser.format_help().replace("__main__.py", "brainview").rstrip(), "```"]
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, p in sub.choices.items():
        p.prog = f"brainview {name}"
        out += ["", f"## brainview {name}", "", "```text", p.format_help().rstrip(), "```"]
    out += ["", "## Exit codes", "", "| code | meaning |", "|---|---|"]
    out += [f"| {int(c)} | {c.name.lower().replace('_', ' ')} |" for c in ExitCode]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    print(render(), end="")
