"""Make sure Debian's Chromium is installed for the browser tests.

CI runs the README's test command on a fresh Debian machine as root, where Chromium is
not installed.  Rather than change that command, the browser tests call
:func:`ensure_chromium`: when ``/usr/bin/chromium`` is missing and we are root with
``apt-get``, it installs Debian's ``chromium`` package (the only browser the tests use;
Playwright never downloads one of its own).  A file lock serialises the pytest-xdist
workers, so only one of them runs apt and the others wait for it.

Run by hand: ``python tests/browser/chromium_setup.py`` prints the browser's path.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
LOCK = Path(tempfile.gettempdir()) / "brainview-chromium-install.lock"
APT_TIMEOUT_S = 900
APT_OPTIONS = ["-o", "DPkg::Lock::Timeout=300", "-q"]


class ChromiumUnavailable(Exception):
    """Chromium is missing and this machine cannot install it (the reason is the message)."""


class ChromiumInstallFailed(Exception):
    """apt-get was there and allowed, yet installing Chromium failed."""


def ensure_chromium() -> Path:
    """The Chromium executable, installed through apt-get first when needed."""
    if _usable(CHROMIUM):
        return CHROMIUM
    if shutil.which("apt-get") is None:
        raise ChromiumUnavailable(f"{CHROMIUM} is missing and there is no apt-get to install it")
    if os.geteuid() != 0:
        raise ChromiumUnavailable(
            f"{CHROMIUM} is missing and installing it needs root: apt-get install chromium"
        )
    with LOCK.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # the other worker waits here while one installs
        try:
            if not _usable(CHROMIUM):
                _apt_install("chromium")
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    if not _usable(CHROMIUM):
        raise ChromiumInstallFailed(f"apt-get installed chromium, yet {CHROMIUM} is missing")
    return CHROMIUM


def _usable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def _apt_install(package: str) -> None:
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for argv in (
        ["apt-get", *APT_OPTIONS, "update"],
        ["apt-get", *APT_OPTIONS, "install", "-y", "--no-install-recommends", package],
    ):
        done = subprocess.run(
            argv,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=APT_TIMEOUT_S,
            check=False,
        )
        if done.returncode != 0:
            tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
            raise ChromiumInstallFailed(f"{' '.join(argv)} failed: {' | '.join(tail)}")


if __name__ == "__main__":
    try:
        print(ensure_chromium())
    except (ChromiumUnavailable, ChromiumInstallFailed) as err:
        print(f"chromium_setup: {err}", file=sys.stderr)
        raise SystemExit(1) from None
