"""What the README and the curator guide tell a reader to type or expect is true."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}


def _browser_tests() -> int:
    """Tests that need a Chromium (they take the ``chromium`` fixture, skipped without)."""
    count = 0
    for path in sorted((ROOT / "tests" / "browser").glob("test_browser_*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                count += any(a.arg == "chromium" for a in node.args.args)
    return count


def test_readme_counts_the_browser_tests() -> None:
    text = " ".join((ROOT / "README.md").read_text().split())
    found = re.search(r"Its (\w+) browser tests?", text)
    assert found is not None, "the README says how many browser tests there are"
    assert NUMBERS.get(found.group(1), -1) == _browser_tests() > 0


def test_mcp_registration_names_the_venv_brainview_by_absolute_path() -> None:
    text = (ROOT / "docs" / "curator.md").read_text()
    blocks = [json.loads(b) for b in re.findall(r"```json\n(\{.*?\})\n```", text, re.DOTALL)]
    servers = [b["mcpServers"]["brainview"] for b in blocks if "mcpServers" in b]
    assert servers, "curator.md shows an mcpServers registration"
    for server in servers:
        command = server["command"]
        assert command.startswith("/") and command.endswith("/.venv/bin/brainview"), command
    assert "realpath .venv/bin/brainview" in text
