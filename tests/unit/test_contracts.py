"""The import contracts (.importlinter) hold, and each kind of violation they exist for fails.

Also: every third-party module brainview imports is a declared runtime dependency.
"""

from __future__ import annotations

import ast
import importlib.metadata as md
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINT_IMPORTS = (
    "import sys; from importlinter.cli import lint_imports_command; "
    "sys.argv = ['lint-imports', '--no-cache', '--config', sys.argv[1]]; lint_imports_command()"
)


def _lint(package_parent: Path) -> subprocess.CompletedProcess[str]:
    """lint-imports over the brainview package found in ``package_parent``."""
    env = {**os.environ, "PYTHONPATH": str(package_parent), "COLUMNS": "250"}
    return subprocess.run(
        [sys.executable, "-c", LINT_IMPORTS, str(ROOT / ".importlinter")],
        capture_output=True,
        text=True,
        cwd=package_parent,
        env=env,
    )


def test_the_import_contracts_are_kept() -> None:
    done = _lint(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


# (module to plant the line in, line, contract that must break)
PLANTED = [
    ("core/safe_text.py", "from ..store import discovery", "Layers"),
    ("core/safe_text.py", "import brainview.errors", "Layers"),
    ("store/light.py", "import brainview.services.project", "Layers"),
    ("services/project.py", "import brainview.demo.generator", "Layers"),
    ("services/presence.py", "import importlib\nfrom brainview import tui", "Layers"),
    ("mcp/wire.py", "from brainview import store", "The MCP face calls services"),
    ("mcp/framing.py", "from ..store import light", "The MCP face calls services"),
    ("tui/clock.py", "from brainview.store import readmodel", "The console calls services"),
    ("services/text_guard.py", "import textual.widget", "Nothing below the faces"),
    ("services/team/__init__.py", "from .. import review", "Service leaves"),
    ("services/recall/__init__.py", "from brainview.services import session", "Session door"),
]


@pytest.mark.parametrize(("target", "line", "contract"), PLANTED, ids=[p[1] for p in PLANTED])
def test_a_planted_violation_breaks_its_contract(
    tmp_path: Path, target: str, line: str, contract: str
) -> None:
    shutil.copytree(
        ROOT / "brainview", tmp_path / "brainview", ignore=shutil.ignore_patterns("__pycache__")
    )
    path = tmp_path / "brainview" / target
    path.write_text(path.read_text() + "\n" + line + "\n")
    done = _lint(tmp_path)
    assert done.returncode != 0, done.stdout
    broken = [row for row in done.stdout.splitlines() if " BROKEN" in row]
    assert any(contract in row for row in broken), done.stdout


def _third_party_imports() -> dict[str, str]:
    """Top-level third-party module -> a file that imports it (relative imports skipped)."""
    stdlib = set(sys.stdlib_module_names) | {"__future__"}
    found: dict[str, str] = {}
    for path in sorted((ROOT / "brainview").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top not in stdlib and top != "brainview":
                    found.setdefault(top, str(path.relative_to(ROOT)))
    return found


def _declared() -> set[str]:
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    return {_normal(re.split(r"[\s<>=!~;\[]", d, maxsplit=1)[0]) for d in deps}


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def test_every_third_party_import_is_a_declared_dependency() -> None:
    dists = md.packages_distributions()
    declared = _declared()
    undeclared = {}
    for module, where in _third_party_imports().items():
        owners = {_normal(d) for d in dists.get(module, [])}
        if not owners & declared:
            undeclared[module] = (where, sorted(owners) or "not installed")
    assert not undeclared, f"imported but not in [project] dependencies: {undeclared}"


def test_the_dependency_check_sees_the_imports_it_should() -> None:
    """The AST walk finds the runtime packages (so the check above cannot pass empty)."""
    found = _third_party_imports()
    assert {"textual", "sqlalchemy", "aiohttp", "pydantic", "anyio", "mcp"} <= set(found)
    assert "brainview" not in found and "json" not in found
