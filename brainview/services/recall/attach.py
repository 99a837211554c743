"""``propose --recall ID`` (or ``"recall": "rc-…"`` in a proposal): what the curator saw.

A proposal that names a logged recall gets that recall's hits as its ``retrieved`` list —
the ones it did not consult, in rank order, after any it listed itself — so the triage
agent pane can show what the curator saw but did not lean on.  Hits invalidated or
retired since the recall are left out (they would be refused as retrieved); the
proposal itself stores no recall id.
"""

from __future__ import annotations

from typing import Any

from brainview.errors import InvalidInputError, NotFoundError
from brainview.services.lifecycle import CHALLENGED, LIVE, statuses
from brainview.services.project import Project
from brainview.services.recall import retrieved_of


def expand(project: Project, value: Any, recall_id: str | None = None) -> Any:
    """``value`` (a proposal or a list of them) with each recall turned into ``retrieved``."""
    many = isinstance(value, list)
    items = value if many else [value]
    if recall_id is None and not any(isinstance(v, dict) and "recall" in v for v in items):
        return value
    cache: dict[str, list[str]] = {}
    out = []
    for i, raw in enumerate(items):
        if not isinstance(raw, dict) or ("recall" not in raw and recall_id is None):
            out.append(raw)
            continue
        raw = dict(raw)
        rid = raw.pop("recall", None) or recall_id
        field = f"proposals[{i}].recall" if "recall" in items[i] else "--recall"
        if not isinstance(rid, str) or not rid:
            raise InvalidInputError(f"{field}: must be a recall id like rc-…")
        if rid not in cache:
            try:
                cache[rid] = _live(project, retrieved_of(project, rid))
            except NotFoundError:
                raise InvalidInputError(f"{field}: no recall {rid!r} in this agent brain") from None
        consulted = {
            c.get("reflection") for c in raw.get("consulted", []) or [] if isinstance(c, dict)
        }
        mine = raw.get("retrieved", []) or []
        if not isinstance(mine, list):
            out.append(raw)  # intake names the problem
            continue
        extra = [r for r in cache[rid] if r not in consulted and r not in mine]
        raw["retrieved"] = [*mine, *extra]
        out.append(raw)
    return out if many else out[0]


def _live(project: Project, ids: list[str]) -> list[str]:
    agent = project.require_agent()
    with agent.read() as conn:
        found = statuses(conn, agent.era, ids)
    return [r for r in ids if r in found and found[r].state in (LIVE, CHALLENGED)]
