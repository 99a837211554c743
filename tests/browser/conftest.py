"""Fixtures for the browser tests: a Chromium already on the machine, else a skip."""

from __future__ import annotations

from pathlib import Path

import pytest
from chromium_setup import ChromiumUnavailable, find_chromium


@pytest.fixture(scope="session")
def chromium() -> Path:
    """A Chromium executable; the test skips (with how to get one) when there is none."""
    try:
        return find_chromium()
    except ChromiumUnavailable as err:
        pytest.skip(f"browser test skipped: {err}")
