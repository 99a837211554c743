"""The arrows point down: core/store/services never import Textual; --help stays light."""

from __future__ import annotations

import ast
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _loaded_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", code + "\nimport sys; print(' '.join(sorted(sys.modules)))"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    ).stdout
    return set(out.split())


def test_core_store_services_import_no_textual() -> None:
    mods = _loaded_after(
        "import pkgutil, importlib, brainview.core, brainview.store, brainview.services\n"
        "for pkg in (brainview.core, brainview.store, brainview.services):\n"
        "    for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.'):\n"
        "        importlib.import_module(m.name)"
    )
    assert not {m for m in mods if m == "textual" or m.startswith("textual.")}
    assert "brainview.tui" not in mods


def test_help_path_is_light() -> None:
    mods = _loaded_after(
        "import io, contextlib\nfrom brainview.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n    main(['--help'])"
    )
    heavy = {"textual", "sqlalchemy", "numpy", "networkx", "fsrs", "rich", "mcp", "pydantic"}
    assert not heavy & {m.split(".")[0] for m in mods}
    assert not {m for m in mods if m.startswith("brainview.mcp")}


def test_the_mcp_sdk_loads_only_for_brainview_mcp() -> None:
    """Every other command's parser and handler modules leave the SDK alone."""
    mods = _loaded_after(
        "import importlib, brainview.commands.tree as t\n"
        "for path, p in t.leaves(t.build_parser()).items():\n"
        "    run = p.get_default('run')\n"
        "    if run and not run.startswith('mcp:'):\n"
        "        importlib.import_module('brainview.commands.' + run.split(':')[0])"
    )
    assert not {m for m in mods if m == "mcp" or m.startswith(("mcp.", "brainview.mcp"))}


def _runtime_imports(tree: ast.AST) -> list[str]:
    """Modules a file imports when it runs (``if TYPE_CHECKING:`` blocks left out)."""
    out: list[str] = []
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            continue
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append(node.module)
        elif isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        else:
            out += _runtime_imports(node)
    return out


def test_the_mcp_face_imports_services_not_the_store() -> None:
    """brainview/mcp calls services (and core, errors); it never reaches below them."""
    allowed = ("brainview.services", "brainview.core", "brainview.errors", "brainview.mcp")
    for path in sorted((ROOT / "brainview" / "mcp").glob("*.py")):
        for name in _runtime_imports(ast.parse(path.read_text())):
            if name.startswith("brainview."):
                assert name.startswith(allowed), f"{path.name} imports {name}"


def test_ci_runs_the_readme_test_command() -> None:
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text().strip().splitlines()[-1]
    assert ci in readme


def test_wheel_ships_styles(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(tmp_path)],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    wheel = next(tmp_path.glob("brainview-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    styles = sorted(p.name for p in (ROOT / "styles").glob("*.tcss"))
    assert styles
    for name in styles:
        assert f"brainview/styles/{name}" in names
    # The MCP server's curator-guide resource reads the shipped copy.
    assert "brainview/docs/curator.md" in names
    assert "brainview/schema/proposal.schema.json" in names
