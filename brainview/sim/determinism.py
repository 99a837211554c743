"""Same seed, same run: ids from a seeded stream, caches in the run's own directory.

brainview names decisions, lessons, recalls and batches with ``uuid.uuid4()``; recall
breaks score ties by id and consolidation orders by id, so random ids would make two
runs of one seed drift apart.  While a run is going, ``uuid.uuid4`` draws from a
generator seeded by the run (the ids keep the version-4 shape).  The recall index and
the community cache go under the run's directory (``XDG_CACHE_HOME``), never into the
user's cache.  Both are restored afterwards, even when the run fails.
"""

from __future__ import annotations

import os
import random
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from brainview.store import recall_handle


@contextmanager
def seeded(seed: str, cache_home: Path) -> Iterator[None]:
    """Seeded ``uuid.uuid4`` and a private ``XDG_CACHE_HOME`` for the duration."""
    rng = random.Random(seed)
    original = uuid.uuid4
    before = os.environ.get("XDG_CACHE_HOME")

    def uuid4() -> uuid.UUID:
        return uuid.UUID(int=rng.getrandbits(128), version=4)

    uuid.uuid4 = uuid4
    os.environ["XDG_CACHE_HOME"] = str(cache_home)
    try:
        yield
    finally:
        recall_handle.close_all()
        uuid.uuid4 = original
        if before is None:
            os.environ.pop("XDG_CACHE_HOME", None)
        else:
            os.environ["XDG_CACHE_HOME"] = before
