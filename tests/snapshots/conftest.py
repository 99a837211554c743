"""Snapshot projects live at fixed paths so the rendered paths are stable."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from brainview.demo.generator import DemoSpec, build_project


@pytest.fixture
def fixed_demo(request: pytest.FixtureRequest) -> Path:
    """A fresh demo project at /tmp/bv-snap/<test name>."""
    root = Path(tempfile.gettempdir()) / "bv-snap" / request.node.name[:40]
    shutil.rmtree(root, ignore_errors=True)
    build_project(root, DemoSpec())
    yield root
    shutil.rmtree(root, ignore_errors=True)
