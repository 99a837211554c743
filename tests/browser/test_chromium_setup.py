"""The browser tests find a Chromium or skip: they never install anything."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from chromium_setup import ChromiumUnavailable, find_chromium

HERE = Path(__file__).resolve().parent


def test_no_package_installs_from_the_suite() -> None:
    """No module of the browser tests runs a program (the package manager once ran as root)."""
    for path in HERE.glob("*.py"):
        if path.name in {"serving.py", "test_serve.py", "test_serve_bounds.py"}:
            continue  # these start `brainview serve`, nothing else
        tree = ast.parse(path.read_text())
        names = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        names |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
        assert "subprocess" not in names, path.name


def test_missing_browser_is_a_reason_not_an_install(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.delenv("BRAINVIEW_CHROMIUM", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(tmp_path / "none"))
    with pytest.raises(ChromiumUnavailable, match="playwright install chromium"):
        find_chromium()


def test_given_browser_must_exist(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("BRAINVIEW_CHROMIUM", str(tmp_path / "nope"))
    with pytest.raises(ChromiumUnavailable, match="BRAINVIEW_CHROMIUM"):
        find_chromium()
    exe = tmp_path / "chromium"
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    monkeypatch.setenv("BRAINVIEW_CHROMIUM", str(exe))
    assert find_chromium() == exe
