"""Shared bench helpers: cached brains from the demo generator, interleaved timing."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from brainview.demo.generator import DemoSpec, build_project, dump_json

CACHE = Path(__file__).resolve().parent / ".cache"

SIZES = {
    "demo": DemoSpec(),
    "20k": DemoSpec(user_neurons=20_000, reflections=5_000, proposals=200, seed=7),
    "large": DemoSpec(
        user_neurons=1_000_000, reflections=100_000, proposals=2_000, seed=11, spiked_fraction=0.3
    ),
    "agent100k": DemoSpec(user_neurons=20_000, reflections=100_000, proposals=200, seed=11),
}


def brain(size: str) -> Path:
    """Build (once) and return a project of the named size."""
    root = CACHE / size
    if not (root / ".spikuit" / "agent" / "circuit.db").exists():
        import shutil

        shutil.rmtree(root, ignore_errors=True)
        t = time.perf_counter()
        info = build_project(root, SIZES[size])
        (CACHE / f"{size}.info.json").write_text(dump_json(info))
        print(f"# built {size} in {time.perf_counter() - t:.1f}s", file=sys.stderr)
    return root


def brain_info(size: str) -> tuple[Path, dict[str, Any]]:
    """:func:`brain` and what the generator wrote into it (``DemoInfo`` as a dict: the
    ids by role, ``themes`` → reflection ids), kept next to it since this was added; a
    brain cached before that is built again."""
    if not (CACHE / f"{size}.info.json").exists():
        import shutil

        shutil.rmtree(CACHE / size, ignore_errors=True)
    root = brain(size)
    return root, json.loads((CACHE / f"{size}.info.json").read_text())


def installed_env(bytecode: bool = True) -> dict[str, str]:
    """The environment for a child process, as an installed package would run.

    This environment sets ``PYTHONDONTWRITEBYTECODE=1`` (and brainview is an editable
    install), so without help every child would recompile brainview's modules while
    Textual, SQLAlchemy… load their ``.pyc``.  With ``bytecode`` the children use a
    bytecode cache under ``bench/.cache/pycache`` (the source tree stays clean); the
    first run of a bench warms it.
    """
    env = dict(os.environ)
    if bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(CACHE / "pycache")
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env.pop("PYTHONPYCACHEPREFIX", None)
    return env


def interleave(sides: dict[str, Callable[[], float]], runs: int) -> dict[str, dict[str, float]]:
    """Run each side in turn ``runs`` times; medians, min and max per side (seconds)."""
    samples: dict[str, list[float]] = {k: [] for k in sides}
    for _ in range(runs):
        for name, fn in sides.items():
            samples[name].append(fn())
    return {
        k: {"median": statistics.median(v), "min": min(v), "max": max(v), "n": len(v)}
        for k, v in samples.items()
    }


def wall(cmd: list[str], **kw: object) -> Callable[[], float]:
    """A side that times one subprocess run."""

    def run() -> float:
        t = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True, **kw)  # type: ignore[call-overload]
        return time.perf_counter() - t

    return run


def copy_brain(src_db: Path, dst_db: Path) -> Path:
    """A copy of one brain file through SQLite's backup API (``dst_db``'s directory is
    created; an existing ``dst_db`` is overwritten page by page)."""
    import sqlite3

    from brainview.store.connect import connect

    dst_db.parent.mkdir(parents=True, exist_ok=True)
    src = connect(src_db, write=False, timeout=30)
    out = sqlite3.connect(dst_db)
    try:
        src.backup(out)
    finally:
        out.close()
        src.close()
    return dst_db


def copy_project(root: Path, dst: Path) -> Path:
    """A copy of the project at ``root`` in ``dst`` (which must not exist): both brains
    through SQLite's backup API (never a file copy: a ``cp`` of a live brain can tear it,
    and closing the copied descriptor drops this process's SQLite locks), and the
    ``config.toml`` files (plain text)."""
    for rel in (Path(".spikuit"), Path(".spikuit") / "agent"):
        (dst / rel).mkdir(parents=True)
        config = root / rel / "config.toml"
        if config.exists():
            (dst / rel / "config.toml").write_text(config.read_text())
        copy_brain(root / rel / "circuit.db", dst / rel / "circuit.db")
    return dst
