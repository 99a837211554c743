"""The latest spike of reflections: what prune and decay items are planned from
(the read lives in :mod:`brainview.store.consolidate_reads`)."""

from __future__ import annotations

from brainview.store.consolidate_reads import last_spikes

__all__ = ["last_spikes"]
