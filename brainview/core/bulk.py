"""Bulk work without the cyclic garbage collector in the way.

Checking 10,000 proposals or planning a 100k-reflection consolidation allocates
hundreds of thousands of small dicts, lists and tuples that live until the batch ends.
CPython's cyclic collector counts those allocations and walks the young generations
every few hundred of them, and the old one ever more often as the heap grows: 0.3–0.5 s
of the 1.5–2 s a 10k-proposal intake took (``bench/bench_intake.py``), for no cycle to
free — what a batch builds is freed by reference counting when it ends.

:func:`collector_paused` turns the collector off for the ``with`` block (reference
counting goes on) and back on after it.  Paused blocks may nest and
may run in several threads at once (the console's workers): the collector comes back
when the last one ends, and only if it was on before the first began.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_depth = 0
_was_on = False


@contextmanager
def collector_paused() -> Iterator[None]:
    """Run the block with the cyclic garbage collector off (see the module)."""
    global _depth, _was_on
    with _lock:
        if _depth == 0:
            _was_on = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _was_on:
                gc.enable()
