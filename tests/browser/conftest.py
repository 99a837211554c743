"""Fixtures for the browser tests: Debian's Chromium, installed on demand."""

from __future__ import annotations

from pathlib import Path

import pytest
from chromium_setup import ChromiumInstallFailed, ChromiumUnavailable, ensure_chromium


@pytest.fixture(scope="session")
def chromium() -> Path:
    """``/usr/bin/chromium``: installed with apt-get when missing (root); else skip."""
    try:
        return ensure_chromium()
    except ChromiumUnavailable as err:
        pytest.skip(f"no Chromium for the browser test: {err}")
    except ChromiumInstallFailed as err:
        pytest.fail(f"could not install Chromium: {err}")
