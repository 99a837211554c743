"""Run ``brainview serve`` as a real process for the tests: start, read its URL, stop."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from brainview.demo.generator import DEMO_NOW

START_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 20.0
URL_PREFIX = "Serving the console at "


@dataclass
class Served:
    """A running ``brainview serve``; :meth:`stop` ends it like Ctrl+C would."""

    process: subprocess.Popen[str]
    url: str = ""
    stdout: list[str] = field(default_factory=list)
    stderr: list[str] = field(default_factory=list)
    ready: threading.Event = field(default_factory=threading.Event)
    readers: list[threading.Thread] = field(default_factory=list)

    def stop(self, sig: int = signal.SIGINT) -> tuple[int, str, str]:
        """Send ``sig`` and wait; returns (exit code, all stdout, all stderr)."""
        if self.process.poll() is None:
            self.process.send_signal(sig)
        try:
            self.process.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise AssertionError(
                f"serve ignored signal {sig}: {''.join(self.stderr)[-500:]}"
            ) from None
        for reader in self.readers:
            reader.join(timeout=STOP_TIMEOUT_S)
        return self.process.returncode, "".join(self.stdout), "".join(self.stderr)

    def children(self) -> set[int]:
        """Process ids of the server's children: one app per connected browser tab."""
        pid = self.process.pid
        found = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        return {int(child) for child in found}

    def _read(self, stream: IO[str], into: list[str]) -> None:
        for line in stream:
            into.append(line)
            if line.startswith(URL_PREFIX) and not self.url:
                self.url = line[len(URL_PREFIX) :].split()[0]
                self.ready.set()
        self.ready.set()  # EOF: the process ended (before or after serving)


def brainview_env() -> dict[str, str]:
    """The served console's environment: the demo's frozen "now", unbuffered output."""
    return {**os.environ, "BRAINVIEW_NOW": DEMO_NOW.isoformat(), "PYTHONUNBUFFERED": "1"}


def start_serve(*args: str, cwd: Path | None = None) -> Served:
    """``brainview serve ARGS --port 0``; waits (bounded) for the URL it prints."""
    process = subprocess.Popen(
        [sys.executable, "-m", "brainview", "serve", *args, "--port", "0"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cwd,
        env=brainview_env(),
    )
    served = Served(process)
    for stream, into in ((process.stdout, served.stdout), (process.stderr, served.stderr)):
        reader = threading.Thread(target=served._read, args=(stream, into), daemon=True)
        reader.start()
        served.readers.append(reader)
    if not served.ready.wait(START_TIMEOUT_S) or not served.url:
        code, _, err = served.stop(signal.SIGKILL)
        raise AssertionError(f"brainview serve did not start (exit {code}): {err[-500:]}")
    return served


def add_person(root: Path, name: str, role: str, password: str) -> None:
    """``brainview users add NAME --role ROLE --password-stdin -C ROOT``, as a script
    would (the password on stdin, never on the command line)."""
    subprocess.run(
        [sys.executable, "-m", "brainview", "users", "add", name, "--role", role]
        + ["--password-stdin", "-C", str(root)],
        input=password + "\n",
        text=True,
        check=True,
        capture_output=True,
        env=brainview_env(),
    )
