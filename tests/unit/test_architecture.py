"""The arrows point down: core/store/services never import Textual; --help stays light."""

from __future__ import annotations

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
        "    for m in pkgutil.iter_modules(pkg.__path__):\n"
        "        importlib.import_module(pkg.__name__ + '.' + m.name)"
    )
    assert not {m for m in mods if m == "textual" or m.startswith("textual.")}
    assert "brainview.tui" not in mods


def test_help_path_is_light() -> None:
    mods = _loaded_after(
        "import io, contextlib\nfrom brainview.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n    main(['--help'])"
    )
    heavy = {"textual", "sqlalchemy", "numpy", "networkx", "fsrs", "rich"}
    assert not heavy & {m.split(".")[0] for m in mods}


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
