"""Shared fixtures: demo projects built by the same generator as ``brainview demo``.

Each kind of demo project (one ``DemoSpec``) is generated once per test run, shared by
the xdist workers (built under a lock in the run's common temp dir), and every test gets
its own copy made through SQLite's backup API (``tests/project_copy.py``).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from brainview.demo.generator import DEMO_NOW, DemoInfo, DemoSpec
from brainview.services.project import Project
from brainview.store.discovery import discover
from tests.project_copy import copy_project, demo_template

_template = demo_template

BYTECODE_CACHE = Path(tempfile.gettempdir()) / f"brainview-tests-pycache-{os.getuid()}"
"""Where the suite's Python processes keep compiled modules when the environment forbids
writing them beside the sources (``PYTHONDONTWRITEBYTECODE``)."""


def pytest_configure(config: pytest.Config) -> None:
    """With ``PYTHONDONTWRITEBYTECODE`` set, every ``python -m brainview`` a test starts
    would compile the package from source again.  The suite's own processes (the xdist
    workers, the CLI runs, the clustering child) keep their bytecode in one cache outside
    the tree instead (``PYTHONPYCACHEPREFIX``): nothing lands beside the sources, and a
    stale entry is never used (Python checks each source's mtime and size)."""
    if os.environ.get("PYTHONDONTWRITEBYTECODE") and "PYTHONPYCACHEPREFIX" not in os.environ:
        BYTECODE_CACHE.mkdir(mode=0o700, exist_ok=True)
        del os.environ["PYTHONDONTWRITEBYTECODE"]
        os.environ["PYTHONPYCACHEPREFIX"] = str(BYTECODE_CACHE)


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
def template_dir(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Path:
    """Where the run's template projects are cached: one directory for all xdist
    workers (the parent of each worker's base temp), one per process without xdist."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if worker_id != "master" else base
    path = shared / "templates"
    path.mkdir(exist_ok=True)
    return path


@pytest.fixture
def make_demo(tmp_path: Path, template_dir: Path):  # type: ignore[no-untyped-def]
    """Build (or copy a cached) demo project for a spec into a fresh directory."""

    def factory(spec: DemoSpec | None = None, name: str = "proj") -> tuple[Path, DemoInfo]:
        spec = spec or DemoSpec()
        src, info = demo_template(spec, template_dir)
        dst = tmp_path / name
        copy_project(src, dst)
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
