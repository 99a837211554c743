"""Consolidating the agent brain under review (``brainview reflect consolidate``).

The API lives in :mod:`brainview.services.consolidate.api` and is re-exported here
lazily (PEP 562), so importing a submodule — the decision path imports
:mod:`~brainview.services.consolidate.apply_agent` — does not pull in the planner, numpy
or the clustering code.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "PHASES",
    "PLANNER",
    "PHASE_NAMES",
    "ConsolidationPlan",
    "PlanItem",
    "apply_directly",
    "plan",
    "queue",
    "settings_from",
]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from brainview.services.consolidate import api

        return getattr(api, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
