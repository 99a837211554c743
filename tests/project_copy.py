"""Copies of test projects the way SQLite allows: each brain through the online backup
API, never a file copy of a ``circuit.db`` (closing a copied descriptor drops this
process's SQLite locks, and a ``cp`` of a live brain can tear it).

The session templates of ``tests/conftest.py`` and the real-spikuit builds are made once
and handed to each test as such a copy.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import shutil
import sqlite3
from pathlib import Path

from brainview.demo.generator import DemoInfo, DemoSpec, build_project, dump_json
from brainview.store.connect import SIDE_SUFFIXES

BRAIN_NAME = "circuit.db"


def copy_brain(src_db: Path, dst_db: Path) -> Path:
    """``src_db`` copied page by page into the new file ``dst_db`` (journal mode kept)."""
    if dst_db.exists():
        raise FileExistsError(f"{dst_db} already exists")
    dst_db.parent.mkdir(parents=True, exist_ok=True)
    # A plain reading connection, not ``store.connect``: that one also records the file
    # as a brain this process opened, which tests about opened brains must not see.
    src = sqlite3.connect(src_db, timeout=30)
    src.execute("PRAGMA query_only=1")
    out = sqlite3.connect(dst_db)
    try:
        src.backup(out)
    finally:
        out.close()
        src.close()
    return dst_db


def copy_project(src: Path, dst: Path) -> Path:
    """The project tree at ``src`` reproduced in ``dst`` (which must not exist): every
    brain through :func:`copy_brain`, SQLite side files skipped, other files (config,
    caches) copied as they are, empty directories kept."""
    dst.mkdir(parents=True)
    for path in sorted(src.rglob("*")):
        rel = path.relative_to(src)
        target = dst / rel
        if path.is_dir():
            target.mkdir(parents=True, exist_ok=True)
        elif path.name == BRAIN_NAME:
            copy_brain(path, target)
        elif path.name.endswith(tuple(BRAIN_NAME + s for s in SIDE_SUFFIXES)):
            continue
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
    return dst


_TEMPLATES: dict[tuple[DemoSpec, Path], tuple[Path, DemoInfo]] = {}


def demo_template(spec: DemoSpec, base: Path) -> tuple[Path, DemoInfo]:
    """The template project for ``spec`` under ``base`` (never to be changed: tests get
    copies): built by the first xdist worker to ask for it, under a lock, and read back
    by the others."""
    if (spec, base) not in _TEMPLATES:
        key = hashlib.blake2b(repr(spec).encode(), digest_size=8).hexdigest()
        root, meta = base / f"tpl-{key}", base / f"tpl-{key}.json"
        with open(base / f"tpl-{key}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not meta.exists():
                meta.write_text(dump_json(build_project(root, spec)))
        fields = json.loads(meta.read_text())
        _TEMPLATES[spec, base] = (root, DemoInfo(**{**fields, "root": root}))
    return _TEMPLATES[spec, base]
