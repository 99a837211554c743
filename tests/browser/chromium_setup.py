"""Find a Chromium for the browser tests — never install one.

The test suite changes nothing on the machine: no package manager, no download.  A
browser is looked for, in order, at ``$BRAINVIEW_CHROMIUM``, on ``PATH``
(``chromium``, ``chromium-browser``, ``google-chrome``), then where Playwright keeps
the browser it installs itself.  When there is none (or Playwright itself is missing)
the browser tests skip with the reason and how to get one (see the README):

* Debian/Ubuntu: ``sudo apt-get install chromium``
* anywhere, no root: ``.venv/bin/playwright install chromium``

Run by hand: ``python tests/browser/chromium_setup.py`` prints the browser found.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from pathlib import Path

ENV = "BRAINVIEW_CHROMIUM"
NAMES = ("chromium", "chromium-browser", "google-chrome")
HOW = "install one with `sudo apt-get install chromium` or `.venv/bin/playwright install chromium`"


class ChromiumUnavailable(Exception):
    """No usable Chromium (or no Playwright); the message says why and how to get it."""


def find_chromium() -> Path:
    """A Chromium executable for Playwright to drive; raises when there is none."""
    if importlib.util.find_spec("playwright") is None:
        raise ChromiumUnavailable("the Playwright driver is not installed: pip install -e '.[dev]'")
    given = os.environ.get(ENV)
    if given:
        if _usable(Path(given)):
            return Path(given)
        raise ChromiumUnavailable(f"{ENV}={given} is not an executable file")
    for name in NAMES:
        found = shutil.which(name)
        if found and _usable(Path(found)):
            return Path(found)
    bundled = _playwright_chromium()
    if bundled is not None:
        return bundled
    raise ChromiumUnavailable(f"no Chromium found ({ENV}, PATH, Playwright's own); {HOW}")


def _usable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def _playwright_chromium() -> Path | None:
    """The browser ``playwright install chromium`` put in its cache, if it did (looked
    up without starting Playwright: only the expected path is checked)."""
    base = Path(
        os.environ.get("PLAYWRIGHT_BROWSERS_PATH") or Path.home() / ".cache" / "ms-playwright"
    )
    if not base.is_dir():
        return None
    for candidate in sorted(base.glob("chromium-*/chrome-linux*/chrome"), reverse=True):
        if _usable(candidate):
            return candidate
    return None


if __name__ == "__main__":
    try:
        print(find_chromium())
    except ChromiumUnavailable as err:
        print(f"chromium_setup: {err}", file=sys.stderr)
        raise SystemExit(1) from None
