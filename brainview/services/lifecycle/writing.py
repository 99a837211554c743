"""Pausing reflection writing (``brainview reflect disable|enable``), per project.

While paused, decisions still grade the consulted reflections, but a rejection writes
no new reflection.  The switch lives in the agent brain (``brainview_meta`` key
``reflections.paused``, a JSON object with who, when and why), so every console and
script on the project sees it, whoever's config file they use; the config setting
``review.write_reflections = false`` pauses it for one maintainer only.
:func:`brainview.services.review.decide` reads the switch inside the decision's own
transaction, so no caller can write a reflection while it is paused.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from datetime import datetime

from sqlalchemy import Connection

from brainview.core import fsrs_math
from brainview.errors import InvalidInputError
from brainview.services import text_guard
from brainview.services.project import Project
from brainview.store.bv_schema import ensure_schema
from brainview.store.meta_kv import drop_meta, meta_value, put_meta

KEY = "reflections.paused"
MAX_REASON = 2_000


@dataclass(frozen=True)
class WritingState:
    """Whether rejections write reflections on this project, and since when."""

    paused: bool
    by: str | None = None
    at: str | None = None
    reason: str | None = None

    def to_json(self) -> dict[str, object]:
        """Plain JSON (``enabled`` is the opposite of ``paused``)."""
        return {"enabled": not self.paused, **asdict(self)}


def read_state(conn: Connection) -> WritingState:
    """The project's switch (inside any agent-brain transaction)."""
    stored = meta_value(conn, KEY)
    if stored is None:
        return WritingState(False)
    try:
        data = json.loads(stored)
    except ValueError:
        return WritingState(True, reason="(unreadable pause record)")
    return WritingState(True, data.get("by"), data.get("at"), data.get("reason"))


def state(project: Project) -> WritingState:
    """The switch as stored (not paused when there is no agent brain)."""
    if project.agent is None:
        return WritingState(False)
    with project.agent.read() as conn:
        return read_state(conn)


def set_writing(
    project: Project, *, enabled: bool, actor: str, now: datetime, reason: str | None = None
) -> tuple[WritingState, bool]:
    """Pause (``enabled=False``) or resume; returns the new state and whether it changed."""
    if reason is not None and len(reason) > MAX_REASON:
        raise InvalidInputError(f"reason longer than {MAX_REASON} characters")
    text_guard.optional_text("reason", reason, max_len=MAX_REASON)
    text_guard.name("actor", actor)
    agent = project.require_agent()
    with agent.write() as conn:
        ensure_schema(conn)
        current = read_state(conn)
        if current.paused != enabled:
            return current, False
        if enabled:
            drop_meta(conn, KEY)
            return WritingState(False), True
        at = fsrs_math.format_ts(now)
        value = json.dumps({"by": actor, "at": at, "reason": reason}, ensure_ascii=False)
        put_meta(conn, KEY, value)
        return WritingState(True, actor, at, reason), True
