"""Generate ``docs/keys.md`` and ``docs/config.md`` from the code (tests keep them current).

Run: ``python -m brainview.tui.docgen``
"""

from __future__ import annotations

import ast
import inspect
from dataclasses import fields
from pathlib import Path

from brainview import config as config_module
from brainview.tui.keymap import _screens

DOCS = Path(__file__).resolve().parents[2] / "docs"


def keys_md() -> str:
    """Every binding by screen, with its id (remap it in ``[keys]``)."""
    out = [
        "# Keys",
        "",
        "Generated from the bindings; do not edit by hand. Remap any key by its id in",
        '`[keys]` of the config (see [config.md](config.md)), e.g. `"triage.accept" = "y"`.',
    ]
    for scope, bindings in _screens().items():
        out += ["", f"## {scope}", "", "| key | id | action | what it does |", "|---|---|---|---|"]
        for b in bindings:
            keys = ", ".join(f"`{k.strip()}`" for k in b.key.split(","))
            out.append(f"| {keys} | `{b.id or '—'}` | {b.description} | {b.tooltip or ''} |")
    return "\n".join(out) + "\n"


def _field_docs(cls: type) -> dict[str, str]:
    """Attribute docstrings (the string literal right after each field)."""
    tree = ast.parse(inspect.getsource(cls))
    body = tree.body[0].body  # type: ignore[attr-defined]
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
    }
    for name, cls in sections.items():
        docs = _field_docs(cls)
        out += ["", f"## [{name}]", "", "| key | type | default | meaning |", "|---|---|---|---|"]
        for f in fields(cls):
            default = f.default
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
        "[keys]",
        '"triage.accept" = "y"',
        '"triage.reject" = "n"',
        "```",
    ]
    return "\n".join(out) + "\n"


def main() -> None:
    (DOCS / "keys.md").write_text(keys_md())
    (DOCS / "config.md").write_text(config_md())
    print("wrote docs/keys.md and docs/config.md")


if __name__ == "__main__":
    main()
