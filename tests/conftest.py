"""Shared fixtures: demo projects built by the same generator as ``brainview demo``."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from brainview.demo.generator import DEMO_NOW, DemoInfo, DemoSpec, build_project
from brainview.services.project import Project
from brainview.store.discovery import discover

_TEMPLATES: dict[DemoSpec, tuple[Path, DemoInfo]] = {}


def _template(spec: DemoSpec, base: Path) -> tuple[Path, DemoInfo]:
    if spec not in _TEMPLATES:
        root = base / f"tpl-{len(_TEMPLATES)}"
        info = build_project(root, spec)
        _TEMPLATES[spec] = (root, info)
    return _TEMPLATES[spec]


@pytest.fixture(scope="session", autouse=True)
def _cache_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Caches (the community partition) go to a per-session dir, never ``~/.cache``;
    subprocesses inherit it."""
    home = tmp_path_factory.mktemp("xdg-cache")
    before = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(home)
    yield home
    if before is None:
        os.environ.pop("XDG_CACHE_HOME", None)
    else:
        os.environ["XDG_CACHE_HOME"] = before


@pytest.fixture(scope="session")
def template_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where per-session template projects are cached."""
    return tmp_path_factory.mktemp("templates")


@pytest.fixture
def make_demo(tmp_path: Path, template_dir: Path):  # type: ignore[no-untyped-def]
    """Build (or copy a cached) demo project for a spec into a fresh directory."""

    def factory(spec: DemoSpec | None = None, name: str = "proj") -> tuple[Path, DemoInfo]:
        spec = spec or DemoSpec()
        src, info = _template(spec, template_dir)
        dst = tmp_path / name
        shutil.copytree(src, dst)
        info = DemoInfo(**{**vars(info), "root": dst})
        return dst, info

    return factory


@pytest.fixture
def demo(make_demo) -> tuple[Path, DemoInfo]:  # type: ignore[no-untyped-def]
    """The standard demo project (300 neurons, 150 reflections, 36 proposals)."""
    return make_demo()


@pytest.fixture
def project(demo):  # type: ignore[no-untyped-def]
    """The demo project opened read-only."""
    with Project.open(discover(demo[0])) as p:
        yield p


@pytest.fixture
def now():  # type: ignore[no-untyped-def]
    """The frozen "now" of every demo brain."""
    return DEMO_NOW


_COLLECTED = pytest.StashKey[int]()


def pytest_collection_finish(session: pytest.Session) -> None:
    session.config.stash[_COLLECTED] = len(session.items)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """``pytest --collect-only -q`` ends with the total too: the ``-q`` in addopts makes
    that ``-qq``, where pytest prints only per-file counts."""
    config = terminalreporter.config
    if config.option.collectonly and config.get_verbosity() < -1:
        total = config.stash.get(_COLLECTED, 0)
        terminalreporter.write_line(f"{total} test{'' if total == 1 else 's'} collected")
