"""The community partition cache: in memory and under the user's cache dir, never in a brain.

Reading a brain never writes it, so a clustering run is cached outside both brains: in
this process (the latest partition per agent brain) and in one JSON file per agent brain
under ``$XDG_CACHE_HOME/brainview/communities/`` (default ``~/.cache``), named by a digest
of the brain's resolved path and holding the graph fingerprint it was computed from. The
file is written atomically (:mod:`brainview.store.safe_files`: a temporary file in the
cache dir, then renamed; a device, FIFO or socket planted there is left alone) and only
ever read back as data (a file that is not regular is never opened): anything malformed
is ignored. Writing it is best effort — an unwritable cache dir just means the next
process clusters again. The brain file itself is never opened here.
:func:`ensure_partition` is the one entry point most callers need: the cached partition
when it matches the graph now, else a fresh
:class:`~brainview.services.communities.runner.ClusteringJob` run, then cached.
"""

from __future__ import annotations

import bisect
import hashlib
import json
import os
import threading
from datetime import datetime
from pathlib import Path

from brainview.core import fsrs_math
from brainview.core.clustering import Partition
from brainview.errors import BrainviewError
from brainview.services.communities.runner import (
    ClusteringJob,
    Progress,
    graph_fingerprint,
    partition_from_json,
    partition_to_json,
)
from brainview.services.project import Project
from brainview.store.path_kind import REGULAR, kind
from brainview.store.safe_files import atomic_write

FORMAT = 1
"""Version of the cache file's layout (other versions are ignored)."""
MEMORY_SLOTS = 4
"""Agent brains whose latest partition this process keeps in memory."""

_memory: dict[str, Partition] = {}
_lock = threading.Lock()


def cache_dir() -> Path:
    """``$XDG_CACHE_HOME/brainview/communities`` (``~/.cache`` when unset or relative)."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".cache"
    return root / "brainview" / "communities"


def _key(brain: Path) -> str:
    return str(Path(brain).resolve())


def cache_file(brain: Path) -> Path:
    """Where the partition of the agent brain at ``brain`` is cached."""
    digest = hashlib.sha256(_key(brain).encode()).hexdigest()[:32]
    return cache_dir() / f"{digest}.json"


def lookup(brain: Path, fingerprint: str | None) -> tuple[Partition | None, bool]:
    """The cached partition of ``brain`` (memory, else file) and whether it was computed
    from the graph ``fingerprint`` names (``None``: any cached one will do, reported as
    not fresh); ``(None, False)`` when nothing is cached."""
    key = _key(brain)
    with _lock:
        mem = _memory.get(key)
    if mem is not None and (fingerprint is None or mem.fingerprint == fingerprint):
        return mem, mem.fingerprint == fingerprint
    disk = _read(brain, key)
    if disk is not None and (mem is None or disk.fingerprint == fingerprint):
        _remember(key, disk)
        return disk, disk.fingerprint == fingerprint
    return mem, False


def community_of(brain: Path, reflection_id: str) -> int | None:
    """A reflection's community in the latest cached partition (``None`` if none has it)."""
    part, _ = lookup(brain, None)
    if part is None:
        return None
    k = bisect.bisect_left(part.ids, reflection_id)
    if k < len(part.ids) and part.ids[k] == reflection_id:
        return int(part.membership[k])
    return None


def save(brain: Path, part: Partition) -> bool:
    """Keep ``part`` in memory and write the cache file; ``False`` if the file could not
    be written (the memory copy still serves this process)."""
    key = _key(brain)
    _remember(key, part)
    target = cache_file(brain)
    if Path(key).parent in (target.parent, *target.parents):
        return False  # a cache dir inside the brain's own directory: memory only
    payload = json.dumps({"format": FORMAT, "brain": key, "partition": partition_to_json(part)})
    try:
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        with atomic_write(target, "community cache", force=True, mode=0o600) as fh:
            fh.write(payload)
    except (OSError, BrainviewError):  # a special file planted there, a full disk: skip
        return False
    return True


def forget(brain: Path | None = None) -> None:
    """Drop this process's memory copy (of one brain, or of all); files stay."""
    with _lock:
        if brain is None:
            _memory.clear()
        else:
            _memory.pop(_key(brain), None)


# -- a project's partition: cached or computed -----------------------------------------


def current_fingerprint(project: Project) -> str:
    """The agent brain's reflection-graph fingerprint now (one short read)."""
    agent = project.require_agent()
    with agent.read() as conn:
        return graph_fingerprint(conn, agent.era)


def load_partition(project: Project) -> tuple[Partition | None, bool]:
    """The cached partition (if any) and whether it matches the graph as it is now."""
    agent = project.require_agent()
    return lookup(agent.path, current_fingerprint(project))


def store_partition(project: Project, part: Partition) -> bool:
    """Cache ``part`` outside the brains (memory and the user's cache dir); ``False`` if
    only the memory copy could be kept. Never writes a brain."""
    return save(project.require_agent().path, part)


def ensure_partition(
    project: Project,
    *,
    now: datetime,
    progress: Progress | None = None,
    in_process: bool | None = None,
) -> Partition:
    """A partition matching the graph now: the cache, or a fresh run (then cached
    outside the brains)."""
    cached, fresh = load_partition(project)
    if cached is not None and fresh:
        return cached
    agent = project.require_agent()
    job = ClusteringJob(
        agent.path, now_iso=fsrs_math.format_ts(now), progress=progress, in_process=in_process
    )
    part = job.run()
    store_partition(project, part)
    return part


def _remember(key: str, part: Partition) -> None:
    with _lock:
        _memory.pop(key, None)
        _memory[key] = part
        while len(_memory) > MEMORY_SLOTS:
            _memory.pop(next(iter(_memory)))


def _read(brain: Path, key: str) -> Partition | None:
    """The cache file's partition if it is well-formed and for this brain."""
    path = cache_file(brain)
    try:
        if kind(path) != REGULAR:  # nothing cached, or a FIFO / device: never opened
            return None
        with path.open(encoding="utf-8") as fh:
            data = json.load(fh)
        if data.get("format") != FORMAT or data.get("brain") != key:
            return None
        part = partition_from_json(data["partition"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return part if _plausible(part) else None


def _plausible(part: Partition) -> bool:
    """Sorted unique ids, one community each, numbers within range (no huge bincounts)."""
    n = len(part.ids)
    if part.membership.shape != (n,) or any(not isinstance(i, str) for i in part.ids):
        return False
    if any(a >= b for a, b in zip(part.ids, part.ids[1:], strict=False)):
        return False
    if n and (int(part.membership.min()) < 0 or int(part.membership.max()) >= n):
        return False
    return all(0 <= c < max(n, 1) for c in part.policies.values())
