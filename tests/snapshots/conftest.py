"""Snapshot projects live at fixed paths so the rendered paths are stable."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from brainview.demo.generator import DemoSpec
from tests.project_copy import copy_project, demo_template


@pytest.fixture
def fixed_demo(request: pytest.FixtureRequest, template_dir: Path) -> Path:
    """A fresh demo project at /tmp/bv-snap/<test name> (a backup-API copy of the run's
    standard demo template)."""
    root = Path(tempfile.gettempdir()) / "bv-snap" / request.node.name[:40]
    shutil.rmtree(root, ignore_errors=True)
    src, _info = demo_template(DemoSpec(), template_dir)
    copy_project(src, root)
    yield root
    shutil.rmtree(root, ignore_errors=True)
