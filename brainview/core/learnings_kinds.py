"""The ``learning_tier`` proposal kind: move one imported ``.learnings`` entry.

Accepting it rewrites the Markdown files (the entry's line leaves its file and is
appended to the target) and the entry's tracked tier, inside the decision
(:mod:`brainview.services.learnings.apply`); undo restores both exactly.  The entry's
text is never carried in the params (it may hold any byte): ``entry`` names the
imported reflection, whose line brainview keeps.  ``source`` and ``target`` must be
the files the layout lets that action read and write
(:mod:`brainview.core.learnings_targets`); anything else is refused here, at intake, and
again when the proposal is accepted.
"""

from __future__ import annotations

from typing import Any

from brainview.core.learnings_parse import COLD, HOT, WARM
from brainview.core.learnings_targets import move_problem
from brainview.core.learnings_tiers import ACTIONS, GRADUATED, TIER_AFTER
from brainview.core.params import ParamError, Refs, text_field

LEARNING_KIND = "learning_tier"
TIER_NAMES = (HOT, WARM, COLD, GRADUATED)


def _path(p: dict[str, Any], key: str) -> str:
    value = text_field(p, key)
    parts = value.split("/")
    if value.startswith("/") or "\\" in value or any(x in ("", ".") for x in parts):
        raise ParamError(f"params.{key}", "must be a relative path inside the .learnings tree")
    if ".." in parts and value != "../AGENTS.md":
        raise ParamError(f"params.{key}", "must stay inside the .learnings tree")
    return value


def _learning_tier(p: dict[str, Any]) -> tuple[Refs, str]:
    entry = text_field(p, "entry")
    action = p.get("action")
    if action not in ACTIONS:
        raise ParamError("params.action", f"must be one of {', '.join(ACTIONS)}")
    source, target = _path(p, "source"), _path(p, "target")
    if source == target:
        raise ParamError("params.target", "same file as params.source")
    block = p.get("block", False)
    if not isinstance(block, bool):
        raise ParamError("params.block", "must be true or false")
    problem = move_problem(str(action), source, target, block=block)
    if problem is not None:
        raise ParamError(f"params.{problem[0]}", problem[1])
    line = p.get("line")
    if isinstance(line, bool) or not isinstance(line, int) or line < 1:
        raise ParamError("params.line", "required line number ≥ 1")
    if p.get("tier_from") not in TIER_NAMES:
        raise ParamError("params.tier_from", f"must be one of {', '.join(TIER_NAMES)}")
    if p.get("tier_to") != TIER_AFTER[action]:
        raise ParamError("params.tier_to", f"must be {TIER_AFTER[action]} for {action}")
    reason = p.get("reason")
    if reason is not None and not isinstance(reason, str):
        raise ParamError("params.reason", "must be text")
    return Refs(), f"{action} {source}:{line} → {target} ({entry})"


LEARNING_KINDS = {LEARNING_KIND: _learning_tier}
"""Kinds whose accepted change lands in a ``.learnings/`` tree (and its tier rows)."""
